"""Fan work out over items concurrently and keep the items' order: the one way octo does it.

A failure inside an anyio task group arrives wrapped in an ExceptionGroup; these helpers
hand back the item's own error instead, so a handler sees (and the envelope reports) the
real code: TIMEOUT, NOT_FOUND, RATE_LIMIT_EXCEEDED.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic
from typing import TypeVar

import anyio

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
