"""What rg prints for localSearchCode: ``--count`` records and ``--json`` events, read into
matching files and their first matching lines."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import NamedTuple

from octo.core.secrets.redaction import KeyBodies
from octo.core.secrets.redaction import learn_key_lines
from octo.core.secrets.redaction import secret_spans
from octo.core.secrets.sensitive import sensitive_among
from octo.local.matched_lines import MAX_LINE_CHARS
from octo.local.matched_lines import clip_line
from octo.local.matched_lines import group_matches
from octo.local.matched_lines import strip_newline
from octo.local.models import MatchColumn
from octo.local.search.long_lines import long_event
from octo.local.search.models import MatchPagination
from octo.local.search.models import SearchFields
from octo.local.search.models import SearchFile
from octo.transports.capped_lines import LongLine


def _rg_text(value: dict[str, Any]) -> str:
    """rg's JSON carries text as {"text": ...}, or {"bytes": base64} when not UTF-8."""
    if "text" in value:
        return str(value["text"])
    return base64.b64decode(value["bytes"]).decode("utf-8", errors="replace")


def _rg_path(value: dict[str, Any]) -> bytes:
    """A path in rg's JSON, as the bytes rg was given (see :func:`_rg_text`)."""
    if "text" in value:
        return str(value["text"]).encode()
    return base64.b64decode(value["bytes"])


def _char_offset(line: str, byte_offset: int) -> int:
    return len(line.encode()[:byte_offset].decode("utf-8", errors="ignore"))


class MatchingFile(NamedTuple):
    """A file the counting pass found: its path as rg printed it, and its matching lines."""

    arg: bytes
    matched_lines: int
    #: The file holds a secret: its count is over its redacted text, and so are its lines.
    redacted: bool = False

    @property
    def path(self) -> str:
        """The path shown to the caller: relative to the searched directory."""
        return self.arg.decode("utf-8", errors="replace").removeprefix("./")

    @property
    def hidden(self) -> bool:
        """True when a part of the path below the searched directory starts with a dot."""
        below = self.arg.removeprefix(b"./")
        return below.startswith(b".") or b"/." in below

    @property
    def sort_key(self) -> bytes:
        """rg --sort=path's order, component by component ("a/b" before "a.txt"): with "/"
        as NUL, which no name holds, plain byte order compares components."""
        return self.arg.replace(b"/", b"\0")


_FILES_SEARCHED = re.compile(rb"^(\d+) files? searched$", re.MULTILINE)
_BYTES_SEARCHED = re.compile(rb"^(\d+) bytes? searched$", re.MULTILINE)


class Searched(NamedTuple):
    """What rg's stats say it read: files and bytes."""

    files: int
    bytes: int


def read_counts(
    stdout: bytes, *, include_sensitive: bool, include_hidden: bool
) -> tuple[list[MatchingFile], Searched | None]:
    """Files with their counts, and what rg read (None: no stats, rg was cut short), from
    ``rg --count --null --with-filename --stats``.

    Each file is ``path NUL count`` and a newline; a path may hold newlines, never
    NUL. The stats follow after a blank line, and hold none themselves, so the
    last blank line starts them (the output starts with it when nothing matched).
    """
    body, _, stats = stdout.rpartition(b"\n\n")
    files_searched = _FILES_SEARCHED.search(stats)
    bytes_searched = _BYTES_SEARCHED.search(stats)
    files: list[MatchingFile] = []
    if body:
        pieces = body.split(b"\0")
        arg = pieces[0]
        for piece in pieces[1:]:
            count, _, next_arg = piece.partition(b"\n")
            files.append(MatchingFile(arg, int(count)))
            arg = next_arg
    files = shown_files(files, include_sensitive=include_sensitive, include_hidden=include_hidden)
    if files_searched is None or bytes_searched is None:
        return files, None
    return files, Searched(int(files_searched[1]), int(bytes_searched[1]))


def shown_files(
    files: list[MatchingFile], *, include_sensitive: bool, include_hidden: bool
) -> list[MatchingFile]:
    """The ``files`` rg listed that an answer may show.

    Each check first looks at the whole listing at once, so that the thousands of files of
    a wide search cost no step each when none is hidden or a credential file.
    """
    if include_hidden and include_sensitive:
        return files
    args = [entry.arg for entry in files]
    # rg shows the hidden files a type or an include glob matches; octo, only on request.
    if not include_hidden and _may_be_hidden(b"\n" + b"\n".join(args)):
        files = [entry for entry in files if not entry.hidden]
        args = [entry.arg for entry in files]
    if not include_sensitive:
        # Credential files need the opt-in; only their path and count left rg, and go no further.
        sensitive = sensitive_among(args)
        if sensitive:
            files = [entry for index, entry in enumerate(files) if index not in sensitive]
    return files


def _may_be_hidden(listing: bytes) -> bool:
    """Whether one of the paths in ``listing`` (each after a newline) may be hidden: a part
    below the searched directory starting with a dot is "/." in it (rg's "./" before it
    included), or starts the path, the dot not followed by "/"."""
    return b"/." in listing or listing.count(b"\n.") != listing.count(b"\n./")


@dataclass
class _FileScan:
    """The lines kept of one file on the page."""

    lines: list[tuple[int, str, bool]] = field(default_factory=list)
    shown: int = 0
    last_match: int = 0
    collecting_after: bool = False
    keys: KeyBodies = field(default_factory=KeyBodies)
    #: Per match (by its first line): where a multiline match ends, and its columns.
    ends: dict[int, int] = field(default_factory=dict)
    columns: dict[int, list[MatchColumn]] = field(default_factory=dict)


def _shown(current: _FileScan, text: str, focus: int, note: str) -> str:
    """A line as kept, unredacted (the dispatcher redacts answers): clipped around ``focus``
    with no secret a detector finds in it cut (its values known to the call), and a private
    key's body line whole, known to the call as a key line."""
    if current.keys(text):
        learn_key_lines([text + note])
        return text + note
    if len(text) <= MAX_LINE_CHARS:
        return text + note
    return clip_line(text, focus, keep=secret_spans(text)) + note


class PageScan:
    """Consumes ``rg --json`` over the page's files and keeps their first ``per_file``
    matching lines.

    rg writes each file's events together (begin, matches and context, end),
    even when it searches files in parallel.
    """

    def __init__(
        self,
        query: SearchFields,
        page: list[MatchingFile],
        per_file: int,
        aliases: Mapping[bytes, bytes] | None = None,
    ) -> None:
        self.per_file = per_file
        self.after = query.context_after
        self.columns = query.columns
        self.page = page
        self._scans = {entry.arg: _FileScan() for entry in page}
        #: What rg prints for a file given to it another way → the page's path for it.
        self._aliases = aliases or {}
        self._current: _FileScan | None = None

    def feed(self, line: bytes | LongLine) -> None:
        """Take one line of rg's output (a long one by its preview, see octo.local.search.long_lines)."""
        current = self._current
        if isinstance(line, LongLine):
            data = long_event(line)
            if current is not None and data is not None:
                if line.head.startswith(b'{"type":"match"'):
                    self._match(current, data)
                elif line.head.startswith(b'{"type":"context"'):
                    self._context(current, data)
        elif line.startswith(b'{"type":"match"'):
            if current is not None:
                self._match(current, json.loads(line)["data"])
        elif line.startswith(b'{"type":"context"'):
            if current is not None:
                self._context(current, json.loads(line)["data"])
        elif line.startswith(b'{"type":"begin"'):
            path = _rg_path(json.loads(line)["data"]["path"])
            self._current = self._scans.get(self._aliases.get(path, path))
        elif line.startswith(b'{"type":"end"'):
            self._current = None

    def _match(self, current: _FileScan, data: dict[str, Any]) -> None:
        if current.shown >= self.per_file:
            current.collecting_after = False
            return
        # A multiline match carries all its lines; it is shown at its first.
        matched = _rg_text(data["lines"])
        first, newline, _rest = matched.partition("\n")
        text = first.removesuffix("\r") if newline else first
        submatches = data.get("submatches") or []
        focus = _char_offset(matched, submatches[0]["start"]) if submatches else 0
        number = int(data["line_number"])
        shown = _shown(current, text, focus, data.get("cut_note", ""))
        current.lines.append((number, shown, True))
        current.shown += 1
        current.last_match = number + strip_newline(matched).count("\n")
        if current.last_match > number:
            current.ends[number] = current.last_match
        if self.columns:
            current.columns[number] = [
                MatchColumn(
                    start=_char_offset(matched, sub["start"]), end=_char_offset(matched, sub["end"])
                )
                for sub in submatches
            ]
        current.collecting_after = current.shown == self.per_file

    def _context(self, current: _FileScan, data: dict[str, Any]) -> None:
        if current.shown >= self.per_file and not current.collecting_after:
            return
        number = int(data["line_number"])
        if current.collecting_after and number - current.last_match > self.after:
            current.collecting_after = False
            return
        text = strip_newline(_rg_text(data["lines"]))
        shown = _shown(current, text, 0, data.get("cut_note", ""))
        current.lines.append((number, shown, False))

    def lines_of(self, arg: bytes) -> list[tuple[int, str, bool]]:
        """The numbered lines kept of the page's file ``arg``: (line, text, is_match)."""
        return self._scans[arg].lines

    def learn_key_bodies(self, arg: bytes, numbers: set[int]) -> None:
        """Make the lines ``numbers`` of file ``arg`` (a private key's body, as kept) known
        to the call as key lines, which every answer hides whole."""
        learn_key_lines(text for number, text, _ in self._scans[arg].lines if number in numbers)

    def files(self) -> list[SearchFile]:
        """The page's files in page order, each with its lines grouped by match."""
        return [self._file(entry, self._scans[entry.arg]) for entry in self.page]

    def _file(self, entry: MatchingFile, scan: _FileScan) -> SearchFile:
        # The count comes from the counting pass: this pass stops reading after the page.
        more = entry.matched_lines > scan.shown
        matches = group_matches(scan.lines, self.after, scan.ends)
        for match in matches:
            match.columns = scan.columns.get(match.lineNumber)
        return SearchFile(
            path=entry.path,
            matchCount=entry.matched_lines,
            matches=matches,
            pagination=MatchPagination(hasMore=True, matchesOnPage=scan.shown) if more else None,
        )
