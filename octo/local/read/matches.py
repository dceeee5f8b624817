"""Which lines of one file match localGetFileContent's matchString: found by rg, so a regex
has localSearchCode's dialect (Rust's regex syntax) and runs in linear time, off the event
loop, under rg's deadline and in its queue.

rg prints each matching line's number and the byte column of its first match; the line
itself is left out (``--max-columns=1``), so a file of one 200 MB line costs a few bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

import anyio

from octo.core.config import Config
from octo.core.errors import InvalidQueryError
from octo.core.files.confined import Opened
from octo.core.formats import compact_json
from octo.core.formats import region_marker
from octo.local.checked_paths import has_regex_syntax
from octo.local.models import LocalGetFileContentQuery
from octo.local.redacted_search import files_holding_secrets
from octo.local.redacted_search import redacted_copies
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
    # A file holding a secret is matched over its redacted text, as it is shown: a hit
    # never confirms what a redacted span hides.
    secret = await files_holding_secrets(
        [file.child_path()], cwd=None, pass_fds=(file.fd,), timeout_ms=config.rg_timeout_ms
    )
    with await redacted_copies({b"": file} if secret else {}) as copies:
        target = copies.path(b"") if b"" in copies.fds else file.child_path()
        async with open_rg(
            [*args, "--", query.matchString, target],
            timeout_ms=config.rg_timeout_ms,
            pass_fds=(file.fd, *copies.fds.values()),
        ) as rg:
            async for line in rg.lines():
                total += 1
                if len(kept) < MAX_KEPT:
                    number, column, _ = line.split(b":", 2)
                    kept.append((int(number), int(column) - 1))
            if await rg.wait() == 2:
                message = await anyio.to_thread.run_sync(lambda: rg.stderr)
                raise _rejected(rg_error_message(message))
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


def regions_text(numbered: list[tuple[int, str, bool]]) -> str:
    """The shown lines as text, each run of consecutive lines headed by its line numbers
    (githubGetFileContent's format)."""
    parts: list[str] = []
    # Consecutive line numbers keep the same difference to their position in the list.
    for _, run in groupby(enumerate(numbered), key=lambda item: item[1][0] - item[0]):
        lines = [line for _, line in run]
        parts.append(region_marker(lines[0][0], lines[-1][0]))
        parts.extend(text + "\n" for _, text, _ in lines)
    return "".join(parts)


def no_match_hints(query: LocalGetFileContentQuery, match_string: str) -> list[str]:
    """Ways on when matchString matched nothing in the file."""
    hints: list[str] = []
    if query.matchStringCaseSensitive:
        hints.append("Match case-insensitively: drop matchStringCaseSensitive.")
    if not query.matchStringIsRegex and has_regex_syntax(match_string):
        hints.append("matchString was taken literally; set matchStringIsRegex: true for a regex.")
    search = {"pattern": match_string, "path": ".", "fixedString": not query.matchStringIsRegex}
    hints.append("Search more files: localSearchCode " + compact_json(search))
    return hints
