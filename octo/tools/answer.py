"""What a remote provider hands a tool handler: the result, next-step hints, whether cached."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from octo.envelope import ToolResult

if TYPE_CHECKING:
    from octo.dispatch import QueryRun

ResultT = TypeVar("ResultT", bound=ToolResult)


@dataclass
class HostAnswer(Generic[ResultT]):
    """A remote host's answer to one query (code host or package registry)."""

    result: ResultT
    hints: list[str] = field(default_factory=list)
    #: True when every request behind the answer was served from the cache.
    cached: bool = False

    def deliver(self, run: QueryRun) -> ResultT:
        """Hand the hints and the cached flag to ``run``, and return the result."""
        for text in self.hints:
            run.hint(text)
        run.cached = self.cached
        return self.result
