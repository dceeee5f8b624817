"""RankedLimiter: at most N holders, waiters served lowest rank first (then in order), and a
waiter that gives up neither keeps nor loses anyone's turn."""

from __future__ import annotations

import anyio

from octo.core.ranked_limiter import RankedLimiter


async def test_waiters_are_served_by_rank_then_in_order() -> None:
    limiter = RankedLimiter(1)
    served: list[str] = []
    most = 0
    release = anyio.Event()

    async def use(name: str, rank: float) -> None:
        nonlocal most
        async with limiter.hold(rank):
            most = max(most, limiter.holders)
            served.append(name)
            if name == "first":
                await release.wait()

    async with anyio.create_task_group() as tg:
        tg.start_soon(use, "first", 0.0)
        await anyio.wait_all_tasks_blocked()
        for name, rank in [("late-a", 5.0), ("early", 1.0), ("late-b", 5.0), ("middle", 3.0)]:
            tg.start_soon(use, name, rank)
            await anyio.wait_all_tasks_blocked()
        release.set()
    assert served == ["first", "early", "middle", "late-a", "late-b"]
    assert most == 1


async def test_a_cancelled_waiter_leaves_its_turn_to_the_next() -> None:
    limiter = RankedLimiter(1)
    served: list[str] = []
    release = anyio.Event()

    async def use(name: str, rank: float) -> None:
        async with limiter.hold(rank):
            served.append(name)
            if name == "holder":
                await release.wait()

    async with anyio.create_task_group() as tg:
        tg.start_soon(use, "holder", 0.0)
        await anyio.wait_all_tasks_blocked()
        with anyio.CancelScope() as gives_up:
            gives_up.cancel()
            await use("impatient", 1.0)
        tg.start_soon(use, "patient", 2.0)
        await anyio.wait_all_tasks_blocked()
        release.set()
    assert served == ["holder", "patient"]
    assert limiter.holders == 0
