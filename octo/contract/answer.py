"""What every tool handler returns: its result, next-step hints, and how it was obtained."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Generic
from typing import TypeVar

from octo.core.envelope import ToolResult

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
