"""Which lines of one file match localGetFileContent's matchString: found by rg, so a regex
has localSearchCode's dialect (Rust's regex syntax) and runs in linear time, off the event
loop, under rg's deadline and in its queue.

rg prints each matching line's number and the byte column of its first match; the line
itself is left out (``--max-columns=1``), so a file of one 200 MB line costs a few bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio

from octo.core.config import Config
from octo.core.confined import Opened
from octo.core.errors import InvalidQueryError
from octo.local.models import LocalGetFileContentQuery
from octo.transports.ripgrep import open_rg
from octo.transports.ripgrep import rg_error_message

#: Matching lines kept with their column; more are only counted.
MAX_KEPT = 10_000


@dataclass(frozen=True)
class FileMatches:
    """The first matching lines of a file as ``(line number, first match's byte offset)``,
    in line order, and how many lines match in all."""

    lines: list[tuple[int, int]]
    total: int


async def match_lines(config: Config, file: Opened, query: LocalGetFileContentQuery) -> FileMatches:
    """The lines of ``file`` (as octo opened it: no link followed) that match
    ``query.matchString``."""
    assert query.matchString is not None
    args = [
        "--line-number",
        "--column",
        "--no-filename",
        "--color=never",
        "--max-columns=1",
        # What localGetFileContent reads is text: NUL bytes do not end the search.
        "--text",
        # "$" matches before a CRLF ending too, as the lines shown have none.
        "--crlf",
        "--case-sensitive" if query.matchStringCaseSensitive else "--ignore-case",
    ]
    if not query.matchStringIsRegex:
        args.append("--fixed-strings")
    kept: list[tuple[int, int]] = []
    total = 0
    async with open_rg(
        [*args, "--", query.matchString, file.child_path()],
        timeout_ms=config.rg_timeout_ms,
        pass_fds=(file.fd,),
    ) as rg:
        async for line in rg.lines():
            total += 1
            if len(kept) < MAX_KEPT:
                number, column, _ = line.split(b":", 2)
                kept.append((int(number), int(column) - 1))
        if await rg.wait() == 2:
            raise _rejected(rg_error_message(await anyio.to_thread.run_sync(lambda: rg.stderr)))
    return FileMatches(kept, total)


def _rejected(message: str) -> InvalidQueryError:
    return InvalidQueryError(
        f"ripgrep rejected matchString: {message}",
        hints=[
            "matchString is a regex in ripgrep's syntax (as localSearchCode's pattern: no "
            "look-around or back-references); set matchStringIsRegex: false to match it "
            "literally.",
        ],
    )
