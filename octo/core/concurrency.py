"""Fan work out over items concurrently and keep the items' order: the one way octo does it.

A failure inside an anyio task group arrives wrapped in an ExceptionGroup; these helpers
hand back the item's own error instead, so a handler sees (and the envelope reports) the
real code: TIMEOUT, NOT_FOUND, RATE_LIMIT_EXCEEDED. ``RankedLimiter`` bounds how many run at
once and serves waiters lowest rank first. ``Admission`` admits the calls the machine can
finish and tells the rest at once (BUSY) rather than at their deadline.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import AsyncIterator
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Sequence
from contextlib import AsyncExitStack
from contextlib import asynccontextmanager
from dataclasses import dataclass
from dataclasses import field
from typing import Generic
from typing import Protocol
from typing import TypeVar

import anyio

from octo.core.config import Config
from octo.core.errors import BusyError
from octo.core.errors import OctoError

T = TypeVar("T")
R = TypeVar("R")


async def map_ordered(func: Callable[[T], Awaitable[R]], items: Sequence[T]) -> list[R]:
    """``[await func(item) for item in items]``, run concurrently.

    The first item to fail cancels the others and its own exception is raised, unwrapped.
    """
    results: list[R | None] = [None] * len(items)
    failures: list[BaseException] = []

    async def run(index: int, item: T, scope: anyio.CancelScope) -> None:
        try:
            results[index] = await func(item)
        except Exception as exc:  # noqa: BLE001 - handed back to the caller below
            failures.append(exc)
            scope.cancel()

    async with anyio.create_task_group() as tg:
        for index, item in enumerate(items):
            tg.start_soon(run, index, item, tg.cancel_scope)
    if failures:
        raise failures[0]
    return results  # type: ignore[return-value]


@dataclass(frozen=True)
class Settled(Generic[R]):
    """One item's outcome: its value, or the OctoError it failed with."""

    value: R | None = None
    error: OctoError | None = None


async def map_settled(func: Callable[[T], Awaitable[R]], items: Sequence[T]) -> list[Settled[R]]:
    """Each item's own outcome, run concurrently: an OctoError fails its item only, so the
    caller can answer with what succeeded (a partial answer) and say what did not."""

    async def settle(item: T) -> Settled[R]:
        try:
            return Settled(value=await func(item))
        except OctoError as exc:
            return Settled(error=exc)

    return await map_ordered(settle, items)


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


class _Configured(Protocol):
    config: Config


class Admission:
    """The calls a runtime works on at once (one instance per runtime, its backend): at most
    ``OCTO_MAX_CALLS`` (4 per CPU), the others wait their turn in order of arrival, for at
    most ``OCTO_ADMISSION_WAIT`` seconds (5): a call that cannot start by then is refused
    with :class:`BusyError` at once, instead of waiting to its deadline to answer nothing.
    A call admitted runs whole."""

    def __init__(self, runtime: _Configured) -> None:
        self.total = runtime.config.max_calls
        self.wait = runtime.config.admission_wait
        self._limiter = RankedLimiter(self.total)

    @asynccontextmanager
    async def admitted(self) -> AsyncIterator[None]:
        """Hold one of the places for the block; BusyError when none came in time."""
        async with AsyncExitStack() as stack:
            try:
                with anyio.fail_after(self.wait):
                    await stack.enter_async_context(self._limiter.hold(anyio.current_time()))
            except TimeoutError:
                retry = math.ceil(self.wait)
                raise BusyError(
                    f"octo is busy: {self.total} calls are running and this one could not "
                    f"start within {retry} s (OCTO_MAX_CALLS); none of its queries ran",
                    reset_at=time.time() + retry,
                    hints=[
                        f"Retry in {retry} s (resetAt), or send fewer calls at once: "
                        "batch up to 5 queries in one call."
                    ],
                ) from None
            yield
