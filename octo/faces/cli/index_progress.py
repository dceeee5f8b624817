"""Semantic indexing from the command line: ``octo index PATH`` and ``octo call
semanticIndexCodebase`` wait for every vector unless ``--no-wait``, and show their progress: a
bar with the rate and the time left on a terminal, one line every few seconds otherwise (a log
or a CI job)."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING
from typing import Any
from typing import TextIO

if TYPE_CHECKING:
    from octo.core.config import Config
    from octo.core.envelope import BulkResponse

INDEX_TOOL = "semanticIndexCodebase"
#: Seconds between two progress lines when the output is not a terminal.
LINE_EVERY = 5.0
_BAR = 30


class ProgressPrinter:
    """Renders a call's progress reports on ``stream``; each phase ("indexed ... files",
    "embedded ... chunks") gets its own rate and estimate."""

    def __init__(self, stream: TextIO, *, bar: bool, every: float = LINE_EVERY) -> None:
        self.stream = stream
        self.bar = bar
        self.every = every
        self._phase = ""
        self._start = (0.0, 0.0)
        self._last_line = 0.0
        self._drawn = False

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        now = time.monotonic()
        phase = (message or "").split(" ", 1)[0]
        if phase != self._phase:
            self._phase, self._start, self._last_line = phase, (now, done), 0.0
        elapsed = now - self._start[0]
        rate = (done - self._start[1]) / elapsed if elapsed > 0 else 0.0
        left = f", {(total - done) / rate:.0f} s left" if total and rate > 0 else ""
        figures = f"{message or ''} ({rate:.1f}/s{left})"
        if self.bar:
            filled = int(_BAR * done / total) if total else 0
            line = f"[{'#' * filled}{'.' * (_BAR - filled)}] {figures}"
            print(f"\r{line:<100}", end="", file=self.stream, flush=True)
            self._drawn = True
        elif now - self._last_line >= self.every or (total and done >= total):
            print(f"octo: {figures}", file=self.stream, flush=True)
            self._last_line = now

    def close(self) -> None:
        """End the bar's line, if one was drawn."""
        if self._drawn:
            print(file=self.stream)
            self._drawn = False


def waiting(queries: list[Any], no_wait: bool) -> list[Any]:
    """``queries`` of semanticIndexCodebase with waitForEmbeddings set (true unless
    ``no_wait``) where the caller left it out."""
    return [
        {"waitForEmbeddings": not no_wait, **query} if isinstance(query, dict) else query
        for query in queries
    ]


async def run_index(
    config: Config, path: str, name: str | None, roots: list[str] | None, no_wait: bool
) -> BulkResponse[Any]:
    """``octo index PATH``: semanticIndexCodebase waiting for every vector unless ``no_wait``,
    with progress on stderr."""
    from octo.faces.library import Gateway

    progress = ProgressPrinter(sys.stderr, bar=sys.stderr.isatty())
    query: dict[str, Any] = {"path": path, "waitForEmbeddings": not no_wait}
    if name:
        query["indexName"] = name
    allowed = roots or [str(r) for r in config.roots] or [path]
    try:
        async with Gateway(config, roots=allowed) as gateway:
            return await gateway.call(INDEX_TOOL, [query], progress=progress)
    finally:
        progress.close()
