"""Which lines of one file match localGetFileContent's matchString: found by RE2 (linear time,
whatever the pattern) in the file's text as it is shown, redacted, so a hit never confirms
what a redacted span hides. Each match lies within one line, as in a line-by-line search.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import Any

import anyio
import re2

from octo.core.errors import InvalidQueryError
from octo.core.formats import compact_json
from octo.core.formats import region_marker
from octo.local.checked_paths import has_regex_syntax
from octo.local.models import LocalGetFileContentQuery

#: Matching lines kept with their column; more are only counted.
MAX_KEPT = 10_000
#: Matching lines between two looks at whether the query was given up.
_CHECK_EVERY = 4096


@dataclass(frozen=True)
class FileMatches:
    """The first matching lines of a file as ``(line number, first match's character
    offset)``, in line order, and how many lines match in all."""

    lines: list[tuple[int, int]]
    total: int


def match_lines(text: str, query: LocalGetFileContentQuery) -> FileMatches:
    """The lines of ``text`` (the redacted file) that match ``query.matchString``
    (blocking: run in a worker thread)."""
    assert query.matchString is not None
    search = _compiled(query)._regexp.Match
    # Bytes: RE2 searches on from a position without encoding the text again; a CRLF ending
    # is a line break, so "$" matches before it.
    data = text.replace("\r\n", "\n").encode("utf-8", "surrogatepass")
    size = len(data)
    kept: list[tuple[int, int]] = []
    total = 0
    line, counted_to, position = 1, 0, 0
    while position < size:
        start, _ = search(_SEARCH, data, position, size)[0]
        if start < 0:
            break
        line += data.count(b"\n", counted_to, start)
        line_start = data.rfind(b"\n", 0, start) + 1
        total += 1
        if len(kept) < MAX_KEPT:
            kept.append((line, len(data[line_start:start].decode("utf-8", "ignore"))))
        elif total % _CHECK_EVERY == 0:
            anyio.from_thread.check_cancelled()
        line_end = data.find(b"\n", start)
        if line_end < 0:
            break
        line += 1
        counted_to = position = line_end + 1
    return FileMatches(kept, total)


_SEARCH = re2._Anchor.UNANCHORED


def _compiled(query: LocalGetFileContentQuery) -> Any:
    assert query.matchString is not None
    options = re2.Options()
    options.never_nl = True  # a match never spans lines, as in a search line by line
    options.case_sensitive = query.matchStringCaseSensitive
    options.log_errors = False  # the caller's bad regex is answered, not logged on stderr
    pattern = query.matchString if query.matchStringIsRegex else re2.escape(query.matchString)
    try:
        return re2.compile(f"(?m){pattern}", options=options)
    except re2.error as exc:
        raise InvalidQueryError(
            f"matchString is not a regex RE2 takes: {exc}",
            hints=[
                "matchString is a regex in RE2's syntax (localSearchCode's, without "
                "look-around or back-references); set matchStringIsRegex: false to match it "
                "literally.",
            ],
        ) from None


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
