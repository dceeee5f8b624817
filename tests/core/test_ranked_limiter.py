"""RankedLimiter: at most N holders, waiters served lowest rank first (then in order), and a
waiter that gives up neither keeps nor loses anyone's turn."""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable

import anyio

from octo.core.ranked_limiter import RankedLimiter

Use = Callable[[str, float], Awaitable[None]]


def _user(limiter: RankedLimiter, served: list[tuple[str, int]], release: anyio.Event) -> Use:
    """``use(name, rank)``: hold a turn, note the name and the holders then, and (the first
    one) keep the turn until ``release``."""

    async def use(name: str, rank: float) -> None:
        async with limiter.hold(rank):
            served.append((name, limiter.holders))
            if len(served) == 1:
                await release.wait()

    return use


async def test_waiters_are_served_by_rank_then_in_order() -> None:
    limiter = RankedLimiter(1)
    served: list[tuple[str, int]] = []
    release = anyio.Event()
    use = _user(limiter, served, release)
    async with anyio.create_task_group() as tg:
        tg.start_soon(use, "first", 0.0)
        await anyio.wait_all_tasks_blocked()
        for name, rank in [("late-a", 5.0), ("early", 1.0), ("late-b", 5.0), ("middle", 3.0)]:
            tg.start_soon(use, name, rank)
            await anyio.wait_all_tasks_blocked()
        release.set()
    assert [name for name, _ in served] == ["first", "early", "middle", "late-a", "late-b"]
    assert {holders for _, holders in served} == {1}


async def test_a_cancelled_waiter_leaves_its_turn_to_the_next() -> None:
    limiter = RankedLimiter(1)
    served: list[tuple[str, int]] = []
    release = anyio.Event()
    use = _user(limiter, served, release)
    async with anyio.create_task_group() as tg:
        tg.start_soon(use, "holder", 0.0)
        await anyio.wait_all_tasks_blocked()
        with anyio.CancelScope() as gives_up:
            gives_up.cancel()
            await use("impatient", 1.0)
        tg.start_soon(use, "patient", 2.0)
        await anyio.wait_all_tasks_blocked()
        release.set()
    assert [name for name, _ in served] == ["holder", "patient"]
    assert limiter.holders == 0
