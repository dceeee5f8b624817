"""What a tool handler gets besides its query: the runtime and the roots in force for the call."""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import replace
from functools import cached_property
from typing import TypeVar

from octo.contract.runtime import Backend
from octo.contract.runtime import Runtime
from octo.core.config import Config
from octo.core.paths import PathPolicy

B = TypeVar("B", bound=Backend)

#: ``report(done, total, message)``: progress of a long query, for faces that can show it.
ProgressReporter = Callable[[float, float | None, str | None], Awaitable[None]]


async def _no_progress(done: float, total: float | None, message: str | None) -> None:
    """Where progress goes when the face shows none."""


@dataclass(frozen=True)
class QueryContext:
    """The per-query context handed to every handler.

    ``paths`` are the allowed roots of this call: the configured ones, or the narrower
    set an MCP client announced. ``report_progress`` tells the caller how far a long
    query got (MCP progress notifications, a progress bar); it costs nothing when unused.
    ``max_tokens`` is this query's token budget when the dispatcher gave it a share of its
    call's budget; ``config.max_tokens`` then says it, so every handler honours it.
    """

    runtime: Runtime
    paths: PathPolicy
    report_progress: ProgressReporter = _no_progress
    max_tokens: int | None = None

    @cached_property
    def config(self) -> Config:
        """The runtime's settings, with this query's token budget."""
        if self.max_tokens is None:
            return self.runtime.config
        return replace(self.runtime.config, max_tokens=self.max_tokens)

    def backend(self, cls: type[B]) -> B:
        """The runtime's one instance of backend ``cls`` (built on first use)."""
        return self.runtime.backend(cls)
