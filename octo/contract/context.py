"""The handler's shape: what it gets besides its query (``QueryContext``: the runtime and the
roots in force for the call) and what it returns (``Answer``)."""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from typing import Generic
from typing import TypeVar

from octo.contract.runtime import Backend
from octo.contract.runtime import Runtime
from octo.core.config import Config
from octo.core.files.paths import PathPolicy
from octo.core.handles import Origin
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.secrets.redaction import known_hidden

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
    ``tool`` names the tool that runs; ``config_override`` replaces the runtime's config for
    this query alone (its share of the call's token budget, one place's share). ``arrived``
    is when the query's call was admitted (the event loop's clock), its rank in the queues of
    the runtime's backends (rg's: earlier calls first); None outside a call.
    """

    runtime: Runtime
    paths: PathPolicy
    report_progress: ProgressReporter = _no_progress
    tool: str = ""
    config_override: Config | None = None
    arrived: float | None = None

    @property
    def config(self) -> Config:
        return self.config_override or self.runtime.config

    @property
    def roots(self) -> tuple[str, ...]:
        """The allowed roots of this call, as content handles are bound to them."""
        return tuple(sorted(str(root) for root in self.paths.roots))

    def backend(self, cls: type[B]) -> B:
        """The runtime's one instance of backend ``cls`` (built on first use)."""
        return self.runtime.backend(cls)

    def with_token_budget(self, max_tokens: int) -> QueryContext:
        """This context with a token budget of ``max_tokens`` for the answer."""
        return replace(self, config_override=replace(self.config, max_tokens=max_tokens))

    async def mint_handle(self, content: str, query: ToolQuery, *, local: bool = True) -> str:
        """A content handle for ``content``, cut from the answer to ``query``.

        Local content is readable only under the roots of this call; remote content
        (``local=False``) under any; both only by the credential identity of this runtime.
        The secret values this call has met are hidden in it: getCachedContent serves it in
        another call, whose redaction knows only what each page shows.
        """
        origin = Origin(
            self.tool, query.params(), self.roots if local else None, self.runtime.identity
        )
        return await self.runtime.handles.put(known_hidden(content), origin)


ResultT = TypeVar("ResultT", bound=ToolResult)


@dataclass
class Answer(Generic[ResultT]):
    """A handler's answer to one query.

    ``cached``: every part of it came from the cache. ``partial``: a limit (time, size,
    an upstream failure on some items) cut it short; the hints say how to get the rest.
    """

    result: ResultT
    hints: list[str] = field(default_factory=list)
    cached: bool = False
    partial: bool = False

    def hint(self, *texts: str) -> None:
        """Add next-step hints, each once, in order."""
        for text in texts:
            if text not in self.hints:
                self.hints.append(text)
