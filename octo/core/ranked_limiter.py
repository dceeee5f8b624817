"""A limit on how many tasks hold a resource at once, whose waiters are served by rank.

Under load, first come first served per request is not fair to the calls that made them: a
call's later requests (a search's second pass) would queue behind every request that came
meanwhile, so every call would finish only when the whole backlog did. Ranked by the time
their call came, the requests of earlier calls go first and calls finish in the order they
came, at the pace the resource allows.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from dataclasses import field

import anyio


@dataclass(order=True)
class _Waiter:
    rank: float
    order: int
    turn: anyio.Event = field(compare=False, default_factory=anyio.Event)
    gone: bool = field(compare=False, default=False)


class RankedLimiter:
    """At most ``total`` holders; waiters get their turn lowest rank first, then in order."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._free = total
        self._waiters: list[_Waiter] = []
        self._order = itertools.count()

    @property
    def holders(self) -> int:
        """How many hold the resource now."""
        return self.total - self._free

    @asynccontextmanager
    async def hold(self, rank: float) -> AsyncIterator[None]:
        """Hold the resource for the block, once a turn comes (waiting as ``rank``)."""
        if self._free and not self._waiters:
            self._free -= 1
        else:
            waiter = _Waiter(rank, next(self._order))
            heapq.heappush(self._waiters, waiter)
            try:
                await waiter.turn.wait()
            except BaseException:
                waiter.gone = True
                if waiter.turn.is_set():  # the turn came as the wait was cancelled
                    self._release()
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        """Hand the resource to the first waiter still waiting, else free it."""
        while self._waiters:
            waiter = heapq.heappop(self._waiters)
            if not waiter.gone:
                waiter.turn.set()
                return
        self._free += 1
