"""RankedLimiter: at most N holders, waiters served lowest rank first (then in order), and a
waiter that gives up neither keeps nor loses anyone's turn."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

import anyio
from anyio.abc import TaskGroup

from octo.core.concurrency import RankedLimiter


@dataclass
class _Turns:
    """Users of a one-holder limiter: each notes its name and the holders while it holds a
    turn; the first keeps its turn until ``release``."""

    limiter: RankedLimiter = field(default_factory=lambda: RankedLimiter(1))
    served: list[tuple[str, int]] = field(default_factory=list)
    release: anyio.Event = field(default_factory=anyio.Event)

    async def use(self, name: str, rank: float) -> None:
        async with self.limiter.hold(rank):
            self.served.append((name, self.limiter.holders))
            if len(self.served) == 1:
                await self.release.wait()

    async def queue(self, tg: TaskGroup, name: str, rank: float) -> None:
        """``use`` in ``tg``, once it holds its turn or waits for one."""
        tg.start_soon(self.use, name, rank)
        await anyio.wait_all_tasks_blocked()

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.served]


async def test_waiters_are_served_by_rank_then_in_order() -> None:
    turns = _Turns()
    async with anyio.create_task_group() as tg:
        await turns.queue(tg, "first", 0.0)
        for name, rank in [("late-a", 5.0), ("early", 1.0), ("late-b", 5.0), ("middle", 3.0)]:
            await turns.queue(tg, name, rank)
        turns.release.set()
    assert turns.names == ["first", "early", "middle", "late-a", "late-b"]
    assert {holders for _, holders in turns.served} == {1}


async def test_a_cancelled_waiter_leaves_its_turn_to_the_next() -> None:
    turns = _Turns()
    async with anyio.create_task_group() as tg:
        await turns.queue(tg, "holder", 0.0)
        with anyio.CancelScope() as gives_up:
            gives_up.cancel()
            await turns.use("impatient", 1.0)
        await turns.queue(tg, "patient", 2.0)
        turns.release.set()
    assert turns.names == ["holder", "patient"]
    assert turns.limiter.holders == 0
