"""localSearchCode on ripgrep, in two passes; localGetFileContent under the token budget.

A counting pass (``rg --count``, multithreaded, files in any order) finds every
matching file with its count; sorted by path here, that gives exact stats and
file pages that line up across calls (sorting in rg would make it
single-threaded). A detail pass (``rg --json``) then reads just the page's
files, each only up to its matchesPerPage-th match, so its cost follows the
page, not the tree. Searches are not cached: files change under an agent's
hands and nothing cheap tells when. File reads decode and redact a file once
per version (path, mtime, size) and serve every page from the cache.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import anyio

from octo.core.budget import CharPagination, TokenInfo, cut_lines, token_info
from octo.core.errors import (
    FileTooLargeError,
    InvalidQueryError,
    NotFoundError,
    PathNotAllowedError,
)
from octo.core.formats import parse_size
from octo.core.paths import is_hidden
from octo.core.redaction import redact
from octo.core.sensitive import is_sensitive
from octo.local.models import (
    MODE_PRESETS,
    FilePaging,
    LocalGetFileContentQuery,
    LocalGetFileContentResult,
    LocalSearchCodeQuery,
    LocalSearchCodeResult,
    MatchPagination,
    SearchFile,
    SearchMatch,
    SearchStats,
)
from octo.providers.local_files import read_params
from octo.transports.ripgrep import (
    MAX_FILESIZE_CAP,
    max_filesize_arg,
    open_rg,
    rg_error_message,
    run_rg,
)

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime
    from octo.legacy import QueryRun

#: Longest line returned; a longer (minified) line is cut around its match.
MAX_LINE_CHARS = 300
#: fullContent skips the token budget, but not beyond this (spec: FILE_TOO_LARGE above 300 KB).
MAX_FULL_CONTENT_BYTES = 300 * 1024
#: Default and largest charLength (spec: 1-10000).
MAX_CHAR_LENGTH = 10_000
_BINARY_SNIFF_BYTES = 8192
_FILE_TEXT_TTL = 300.0
_REGEX_SYNTAX = re.compile(r"[\\^$.|?*+()\[\]{}]")


def clip_line(text: str, focus: int = 0, limit: int = MAX_LINE_CHARS) -> str:
    """``text`` cut to ``limit`` characters around ``focus``, saying how much was cut."""
    if len(text) <= limit:
        return text
    start = max(0, min(focus - limit // 4, len(text) - limit))
    end = start + limit
    head = f"[...{start} chars] " if start else ""
    tail = f" [...{len(text) - end} chars]" if end < len(text) else ""
    return head + text[start:end] + tail


def group_matches(lines: Iterable[tuple[int, str, bool]], context: int) -> list[SearchMatch]:
    """Matches with their context, from numbered ``(line, text, is_match)`` lines in order.

    Each context line is attached once: after the previous match when within
    ``context`` lines of it, else before the next match. Lines after the last
    match beyond its context are dropped.
    """
    built: list[tuple[int, str, list[str], list[str]]] = []
    before: list[str] = []
    for number, text, is_match in lines:
        if is_match:
            built.append((number, text, before, []))
            before = []
        elif built and number - built[-1][0] <= context and not before:
            built[-1][3].append(text)
        else:
            before.append(text)
    return [
        SearchMatch(
            lineNumber=number,
            content=text,
            beforeContext=prior or None,
            afterContext=after or None,
        )
        for number, text, prior, after in built
    ]


class LineRedactor:
    """Redacts a file's lines seen one at a time, in line order, possibly with gaps.

    ``redact`` needs a whole private-key block to recognise it; here the block's
    lines arrive one by one, so the body lines after a BEGIN line are hidden too.
    """

    _BEGIN = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----")
    _END = re.compile(r"-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----")
    _BODY = re.compile(r"^\s*(?:[A-Za-z0-9+/]+={0,2}|(?:Proc-Type|DEK-Info|Comment):.*)?\s*$")

    def __init__(self) -> None:
        self._in_key = False

    def __call__(self, line: str) -> str:
        if self._in_key:
            if self._END.search(line):
                self._in_key = False
                return line
            if self._BODY.match(line):
                return "[REDACTED:private-key]"
            self._in_key = False
        if self._BEGIN.search(line) and not self._END.search(line):
            self._in_key = True
            return line
        return redact(line)


def _rg_text(value: dict[str, Any]) -> str:
    """rg's JSON carries text as {"text": ...}, or {"bytes": base64} when not UTF-8."""
    if "text" in value:
        return str(value["text"])
    return base64.b64decode(value["bytes"]).decode("utf-8", errors="replace")


def _strip_newline(text: str) -> str:
    return text[:-1].removesuffix("\r") if text.endswith("\n") else text


def _char_offset(line: str, byte_offset: int) -> int:
    return len(line.encode()[:byte_offset].decode("utf-8", errors="ignore"))


def _iso_mtime(path: Path) -> str | None:
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    return datetime.fromtimestamp(mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _rg_path(value: dict[str, Any]) -> bytes:
    """A path in rg's JSON, as the bytes rg was given (see :func:`_rg_text`)."""
    if "text" in value:
        return str(value["text"]).encode()
    return base64.b64decode(value["bytes"])


class _MatchingFile(NamedTuple):
    """A file the counting pass found: its path as rg printed it, and its matching lines."""

    arg: bytes
    matched_lines: int

    @property
    def path(self) -> str:
        """The path shown to the caller: relative to the searched directory."""
        return self.arg.decode("utf-8", errors="replace").removeprefix("./")

    @property
    def sort_key(self) -> bytes:
        """rg --sort=path's order, component by component ("a/b" before "a.txt"): with "/"
        as NUL, which no name holds, plain byte order compares components."""
        return self.arg.replace(b"/", b"\0")


_FILES_SEARCHED = re.compile(rb"^(\d+) files? searched$", re.MULTILINE)


def _read_counts(stdout: bytes, include_sensitive: bool) -> tuple[list[_MatchingFile], int | None]:
    """Files with their counts, and the searched-file count, from
    ``rg --count --null --with-filename --stats``.

    Each file is ``path NUL count`` and a newline; a path may hold newlines, never
    NUL. The stats follow after a blank line, and hold none themselves, so the
    last blank line starts them (the output starts with it when nothing matched).
    """
    body, _, stats = stdout.rpartition(b"\n\n")
    searched = _FILES_SEARCHED.search(stats)
    files: list[_MatchingFile] = []
    if body:
        pieces = body.split(b"\0")
        arg = pieces[0]
        for piece in pieces[1:]:
            count, _, next_arg = piece.partition(b"\n")
            files.append(_MatchingFile(arg, int(count)))
            arg = next_arg
    if not include_sensitive:
        # Credential files need the opt-in; only their path and count left rg, and go no further.
        files = [entry for entry in files if not is_sensitive(entry.path)]
    return files, int(searched[1]) if searched else None


@dataclass
class _FileScan:
    """The lines kept of one file on the page."""

    lines: list[tuple[int, str, bool]] = field(default_factory=list)
    shown: int = 0
    last_match: int = 0
    collecting_after: bool = False
    redactor: LineRedactor = field(default_factory=LineRedactor)


class _PageScan:
    """Consumes ``rg --json`` over the page's files and keeps their first matching lines.

    rg writes each file's events together (begin, matches and context, end),
    even when it searches files in parallel.
    """

    def __init__(self, query: LocalSearchCodeQuery, page: list[_MatchingFile]) -> None:
        self.query = query
        self.context = query.contextLines or 0
        self.page = page
        self._scans = {entry.arg: _FileScan() for entry in page}
        self._current: _FileScan | None = None

    def feed(self, line: bytes) -> None:
        """Take one line of rg's output."""
        current = self._current
        if line.startswith(b'{"type":"match"'):
            if current is not None:
                self._match(current, line)
        elif line.startswith(b'{"type":"context"'):
            if current is not None:
                self._context(current, line)
        elif line.startswith(b'{"type":"begin"'):
            self._current = self._scans.get(_rg_path(json.loads(line)["data"]["path"]))
        elif line.startswith(b'{"type":"end"'):
            self._current = None

    def _match(self, current: _FileScan, line: bytes) -> None:
        if current.shown >= self.query.matchesPerPage:
            current.collecting_after = False
            return
        data = json.loads(line)["data"]
        text = _strip_newline(_rg_text(data["lines"]))
        submatches = data.get("submatches") or []
        focus = _char_offset(text, submatches[0]["start"]) if submatches else 0
        number = int(data["line_number"])
        current.lines.append((number, clip_line(current.redactor(text), focus), True))
        current.shown += 1
        current.last_match = number
        current.collecting_after = current.shown == self.query.matchesPerPage

    def _context(self, current: _FileScan, line: bytes) -> None:
        if current.shown >= self.query.matchesPerPage and not current.collecting_after:
            return
        data = json.loads(line)["data"]
        number = int(data["line_number"])
        if current.collecting_after and number - current.last_match > self.context:
            current.collecting_after = False
            return
        text = _strip_newline(_rg_text(data["lines"]))
        current.lines.append((number, clip_line(current.redactor(text)), False))

    def files(self) -> list[SearchFile]:
        """The page's files in page order, each with its lines grouped by match."""
        return [self._file(entry, self._scans[entry.arg]) for entry in self.page]

    def _file(self, entry: _MatchingFile, scan: _FileScan) -> SearchFile:
        # The count comes from the counting pass: this pass stops reading after the page.
        more = entry.matched_lines > scan.shown
        return SearchFile(
            path=entry.path,
            matchCount=entry.matched_lines,
            matches=group_matches(scan.lines, self.context),
            pagination=MatchPagination(hasMore=True, matchesOnPage=scan.shown) if more else None,
        )


@dataclass(frozen=True)
class _PageFit:
    """A page's files with their matches cut to the token budget, in page order.

    ``cut`` is the index of the file where matches stopped (None: all fit);
    ``text`` is what the page shows, for its size.
    """

    files: list[SearchFile]
    text: str
    cut: int | None = None
    cut_after_line: int | None = None
    unshown_lines: tuple[int, ...] = ()


def _match_lines(match: SearchMatch) -> list[str]:
    return [*(match.beforeContext or ()), match.content, *(match.afterContext or ())]


def _fit_budget(files: list[SearchFile], budget_chars: int) -> _PageFit:
    """Keep matches, in page order, while their lines fit ``budget_chars``.

    The first match always stays, so every page shows something. From the first
    match that does not fit, the files keep their path and matchCount only, and
    their pagination says how many matches they show.
    """
    shown: list[str] = []
    used = 0
    for index, file in enumerate(files):
        shown.append(file.path)
        for position, match in enumerate(file.matches or ()):
            lines = _match_lines(match)
            cost = sum(len(line) + 1 for line in lines)
            if used and used + cost > budget_chars:
                return _cut_page(files, index, position, "\n".join(shown))
            shown += lines
            used += cost
    return _PageFit(files, "\n".join(shown))


def _cut_page(files: list[SearchFile], index: int, position: int, text: str) -> _PageFit:
    cut_file = files[index]
    kept = (cut_file.matches or [])[:position]
    unshown = tuple(m.lineNumber for m in (cut_file.matches or [])[position:])
    partial = cut_file.model_copy(
        update={
            "matches": kept or None,
            "pagination": MatchPagination(hasMore=True, matchesOnPage=len(kept)),
        }
    )
    rest = [
        file.model_copy(
            update={"matches": None, "pagination": MatchPagination(hasMore=True, matchesOnPage=0)}
        )
        for file in files[index + 1 :]
    ]
    text += "".join("\n" + file.path for file in rest)
    return _PageFit(
        [*files[:index], partial, *rest],
        text,
        cut=index,
        cut_after_line=kept[-1].lineNumber if kept else None,
        unshown_lines=unshown,
    )


def _split_lines(text: str) -> list[str]:
    """Lines with their endings, split on "\\n" only (as rg numbers them)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    return lines


class LocalSearchProvider:
    """localSearchCode and localGetFileContent."""

    def __init__(self, runtime: Runtime) -> None:
        self.config = runtime.config
        self.cache = runtime.cache

    # -- localSearchCode -------------------------------------------------------------------

    async def search_code(
        self, run: QueryRun, query: LocalSearchCodeQuery
    ) -> LocalSearchCodeResult:
        target = run.paths.resolve(query.path)
        root = run.paths.root_of(target) or target
        if not target.exists():
            raise _not_found(target, root, query.path)
        _check_opt_ins(
            target, root, query.path, query.hidden, query.includeSensitive or target.is_dir()
        )
        if target.is_dir():
            cwd, search_arg = target, "."
        elif target.is_file():
            cwd, search_arg = target.parent, f"./{target.name}"
        else:
            raise InvalidQueryError(f"'{query.path}' is neither a directory nor a regular file")

        started = time.monotonic()
        counted, files_searched = await self._count_matches(query, cwd, search_arg)
        matching = sorted(counted, key=lambda entry: entry.sort_key)
        first = (query.filePageNumber - 1) * query.filesPerPage
        page = matching[first : first + query.filesPerPage]
        if query.filesOnly:
            files = [
                SearchFile(
                    path=entry.path,
                    matchCount=entry.matched_lines,
                    modified=_iso_mtime(cwd / os.fsdecode(entry.arg)),
                )
                for entry in page
            ]
        else:
            files = await self._page_matches(query, cwd, page)
        elapsed_ms = round((time.monotonic() - started) * 1000)
        fit = _fit_budget(files, self._budget_chars)

        result = LocalSearchCodeResult(
            root=str(cwd),
            files=fit.files,
            stats=SearchStats(
                filesSearched=files_searched,
                filesWithMatches=len(matching),
                totalMatches=sum(entry.matched_lines for entry in matching),
                searchTimeMs=elapsed_ms,
                complete=True,
            ),
            pagination=FilePaging(
                currentPage=query.filePageNumber,
                totalPages=math.ceil(len(matching) / query.filesPerPage),
                hasMore=first + query.filesPerPage < len(matching),
            ),
        )
        next_step = _budget_hints(run, query, fit, cwd, self.config.max_tokens)
        if next_step is None and result.pagination.hasMore:
            next_step = f"filePageNumber={query.filePageNumber + 1}"
        result.tokens = self._tokens(
            fit.text,
            truncated_at_line=fit.cut_after_line,
            next_step=next_step,
            truncated=fit.cut is not None,
        )
        _search_hints(run, query, result, cwd)
        return result

    async def _count_matches(
        self, query: LocalSearchCodeQuery, cwd: Path, search_arg: str
    ) -> tuple[list[_MatchingFile], int | None]:
        """Pass 1: every matching file with its count, from multithreaded rg in any order."""
        args = [
            "--count",
            "--null",
            "--with-filename",
            "--stats",
            "--no-messages",
            *self._match_args(query),
            *self._filter_args(query),
        ]
        done = await run_rg(
            [*args, "--", query.pattern, search_arg], cwd=cwd, timeout_ms=self.config.rg_timeout_ms
        )
        # --no-messages silences unreadable files; what remains is about the query.
        if done.returncode == 2 and done.stderr.strip():
            raise _rg_rejected(rg_error_message(done.stderr))
        return _read_counts(done.stdout, query.includeSensitive)

    async def _page_matches(
        self, query: LocalSearchCodeQuery, cwd: Path, page: list[_MatchingFile]
    ) -> list[SearchFile]:
        """Pass 2: the matching lines of just the page's files, named explicitly."""
        if not page:
            return []
        args = ["--json", "--no-messages", *self._match_args(query)]
        # One match past the page ends the last shown match's after-context where it begins.
        args.append(f"--max-count={query.matchesPerPage + 1}")
        if query.contextLines:
            args.append(f"--context={query.contextLines}")
        scan = _PageScan(query, page)
        # Streamed: few lines, but a minified file's line may be megabytes long.
        async with open_rg(
            [*args, "--", query.pattern, *(os.fsdecode(entry.arg) for entry in page)],
            cwd=cwd,
            timeout_ms=self.config.rg_timeout_ms,
        ) as rg:
            async for line in rg.lines():
                scan.feed(line)
        return scan.files()

    def _match_args(self, query: LocalSearchCodeQuery) -> list[str]:
        args = ["--smart-case" if query.smartCase else "--case-sensitive"]
        if query.fixedString:
            args.append("--fixed-strings")
        return args

    def _filter_args(self, query: LocalSearchCodeQuery) -> list[str]:
        """Which files rg looks at."""
        args = ["--no-require-git", max_filesize_arg(self.config.rg_max_filesize)]
        if query.hidden:
            args.append("--hidden")
        if query.noIgnore:
            args.append("--no-ignore")
        if query.type:
            args.append(f"--type={query.type}")
        args += [f"--glob={glob}" for glob in query.include or ()]
        args += [f"--glob=!{glob.removeprefix('!')}" for glob in query.exclude or ()]
        if query.hidden:
            args.append("--glob=!.git/")
        # Credential files are dropped by name from the counting pass's output, not with
        # rg globs: a glob set costs rg a match per walked path (~10% on a large tree).
        return args

    # -- localGetFileContent ---------------------------------------------------------------

    async def get_file_content(
        self, run: QueryRun, query: LocalGetFileContentQuery
    ) -> LocalGetFileContentResult:
        real = run.paths.resolve(query.path)
        root = run.paths.root_of(real) or real
        try:
            info = real.stat()
        except FileNotFoundError:
            raise _not_found(real, root, query.path) from None
        if stat.S_ISDIR(info.st_mode):
            raise InvalidQueryError(
                f"'{query.path}' is a directory, not a file",
                hints=[f"List it with localViewStructure {_compact({'path': query.path})}"],
            )
        if not stat.S_ISREG(info.st_mode):
            raise InvalidQueryError(f"'{query.path}' is not a regular file")
        _check_opt_ins(real, root, query.path, query.hidden, query.includeSensitive)
        self._check_size(query, info.st_size)

        text, run.cached = await self._file_text(real, info)
        lines = _split_lines(text)
        base: dict[str, Any] = {
            "path": run.paths.relative(real),
            "size": info.st_size,
            "totalLines": len(lines),
        }
        if query.matchString is not None:
            return self._read_matches(run, query, lines, base)
        if query.char_mode:
            return self._read_chars(run, query, text, base)
        if query.fullContent:
            return LocalGetFileContentResult(
                **base,
                content=text,
                startLine=1 if lines else None,
                endLine=len(lines) or None,
                tokens=self._tokens(text),
            )
        if query.startLine is not None and query.endLine is not None:
            if lines and query.startLine > len(lines):
                raise InvalidQueryError(
                    f"startLine {query.startLine} is past the end of the file ({len(lines)} lines)",
                    hints=[
                        f"Read the end: startLine={max(1, len(lines) - 49)}, endLine={len(lines)}"
                    ],
                )
            return self._read_lines(run, query, lines, query.startLine, query.endLine, base)
        return self._read_lines(run, query, lines, 1, len(lines), base)

    def _check_size(self, query: LocalGetFileContentQuery, size: int) -> None:
        limit = min(parse_size(self.config.rg_max_filesize), MAX_FILESIZE_CAP)
        if size > limit:
            raise FileTooLargeError(
                f"'{query.path}' has {size} bytes; octo reads files up to {limit} bytes",
                hints=[
                    "OCTO_RG_MAX_FILESIZE raises the limit (at most 200M).",
                    "Find the lines you need with localSearchCode on a smaller file set.",
                ],
            )
        if query.fullContent and size > MAX_FULL_CONTENT_BYTES:
            raise FileTooLargeError(
                f"'{query.path}' has {size} bytes; fullContent is limited to "
                f"{MAX_FULL_CONTENT_BYTES} bytes",
                hints=[
                    "Read it in token-sized pages: drop fullContent (the answer says how to go on).",
                    f"Or page by characters: {_compact({'path': query.path, 'charOffset': 0, 'charLength': MAX_CHAR_LENGTH})}",
                    "Or read just the part you need with matchString or startLine/endLine.",
                ],
            )

    async def _file_text(self, real: Path, info: os.stat_result) -> tuple[str, bool]:
        """The file's text, redacted, cached per file version; ``(text, from_cache)``."""

        def load_sync() -> str:
            data = real.read_bytes()
            if b"\0" in data[:_BINARY_SNIFF_BYTES]:
                raise InvalidQueryError(
                    f"'{real.name}' is a binary file; localGetFileContent returns text only",
                    hints=["Inspect its size and type with localViewStructure (details=true)."],
                )
            return redact(data.decode("utf-8", errors="replace"), keep_lines=True)

        async def load() -> str:
            return await anyio.to_thread.run_sync(load_sync)

        key = f"localGetFileContent:{real}:{info.st_mtime_ns}:{info.st_size}"
        return await self.cache.get_or_load(key, _FILE_TEXT_TTL, load)

    def _tokens(
        self,
        content: str,
        *,
        truncated_at_line: int | None = None,
        next_step: str | None = None,
        truncated: bool | None = None,
    ) -> TokenInfo:
        return token_info(
            content,
            max_tokens=self.config.max_tokens,
            chars_per_token=self.config.chars_per_token,
            truncated_at_line=truncated_at_line,
            next_step=next_step,
            truncated=truncated,
        )

    @property
    def _budget_chars(self) -> int:
        return self.config.max_tokens * self.config.chars_per_token

    def _read_lines(
        self,
        run: QueryRun,
        query: LocalGetFileContentQuery,
        lines: list[str],
        first: int,
        last: int,
        base: dict[str, Any],
    ) -> LocalGetFileContentResult:
        last = min(last, len(lines))
        wanted = lines[first - 1 : last]
        cut = cut_lines(wanted, first, self.config.max_tokens, self.config.chars_per_token)
        whole_lines = sum(len(line) for line in wanted[: cut.last_line - first + 1])
        next_query: dict[str, Any] | None = None
        truncated_at: int | None = None
        if wanted and len(cut.content) < whole_lines:
            # One line alone is over the budget: continue inside it, by characters.
            offset = sum(len(line) for line in lines[: first - 1]) + len(cut.content)
            next_query = {
                "charOffset": offset,
                "charLength": min(MAX_CHAR_LENGTH, self._budget_chars),
            }
            truncated_at = cut.last_line
        elif cut.truncated:
            next_query = {"startLine": cut.last_line + 1, "endLine": last}
            truncated_at = cut.last_line
        next_step = None
        if next_query is not None:
            next_step = ", ".join(f"{key}={value}" for key, value in next_query.items())
            run.hint(
                f"Continue reading: localGetFileContent {_compact({'path': query.path, **next_query})}"
            )
        elif wanted and last < len(lines):
            # The asked range fit; the file goes on (spec 000: requiresPagination).
            following = min(len(lines), last + (last - first + 1))
            next_step = f"startLine={last + 1}, endLine={following}"
        return LocalGetFileContentResult(
            **base,
            content=cut.content,
            startLine=first if wanted else None,
            endLine=cut.last_line if wanted else None,
            tokens=self._tokens(cut.content, truncated_at_line=truncated_at, next_step=next_step),
        )

    def _read_chars(
        self, run: QueryRun, query: LocalGetFileContentQuery, text: str, base: dict[str, Any]
    ) -> LocalGetFileContentResult:
        total = len(text)
        if query.charOffset >= total and total:
            raise InvalidQueryError(
                f"charOffset {query.charOffset} is past the end of the file ({total} characters)",
                hints=[f"Use a charOffset below {total}."],
            )
        length = min(query.charLength or MAX_CHAR_LENGTH, self._budget_chars)
        content = text[query.charOffset : query.charOffset + length]
        end = query.charOffset + len(content)
        next_offset = end if end < total else None
        next_step = None
        if next_offset is not None:
            next_step = f"charOffset={next_offset}, charLength={length}"
            run.hint(
                "Continue reading: localGetFileContent "
                + _compact({"path": query.path, "charOffset": next_offset, "charLength": length})
            )
        return LocalGetFileContentResult(
            **base,
            content=content,
            startLine=text.count("\n", 0, query.charOffset) + 1 if content else None,
            endLine=text.count("\n", 0, max(end - 1, 0)) + 1 if content else None,
            pagination=CharPagination.of(query.charOffset, end, total),
            tokens=self._tokens(content, next_step=next_step),
        )

    def _read_matches(
        self,
        run: QueryRun,
        query: LocalGetFileContentQuery,
        lines: list[str],
        base: dict[str, Any],
    ) -> LocalGetFileContentResult:
        assert query.matchString is not None
        flags = 0 if query.matchStringCaseSensitive else re.IGNORECASE
        source = query.matchString if query.matchStringIsRegex else re.escape(query.matchString)
        regex = re.compile(source, flags)
        bare = [_strip_newline(line) for line in lines]
        hits = [index + 1 for index, line in enumerate(bare) if regex.search(line)]
        hit_set = set(hits)
        context = query.matchStringContextLines

        numbered: list[tuple[int, str, bool]] = []
        used = 0
        covered = 0
        for hit in hits:
            if hit <= covered:
                continue
            window = range(max(hit - context, covered + 1), min(hit + context, len(lines)) + 1)
            window_lines = []
            for number in window:
                text = bare[number - 1]
                if number in hit_set:
                    found = regex.search(text)
                    window_lines.append(
                        (number, clip_line(text, found.start() if found else 0), True)
                    )
                else:
                    window_lines.append((number, clip_line(text), False))
            cost = sum(len(text) + 1 for _, text, _ in window_lines)
            if numbered and used + cost > self._budget_chars:
                break
            numbered += window_lines
            used += cost
            covered = window[-1]
        matches = group_matches(numbered, context)
        shown_text = "".join(text + "\n" for _, text, _ in numbered)

        next_step = None
        truncated_at = None
        rest = [hit for hit in hits if hit > covered]
        if rest:
            truncated_at = covered
            start = max(rest[0] - context, covered + 1)
            next_step = f"startLine={start}, endLine={len(lines)}"
            run.hint(
                f"{len(rest)} more matching lines after line {covered} did not fit the token "
                "budget: make matchString more specific, or read on with localGetFileContent "
                + _compact({"path": query.path, "startLine": start, "endLine": len(lines)})
            )
        if not hits:
            _no_match_hints(run, query)
        return LocalGetFileContentResult(
            **base,
            matchCount=len(hits),
            matches=matches,
            tokens=self._tokens(shown_text, truncated_at_line=truncated_at, next_step=next_step),
        )


# -- checks and hints shared by both tools ------------------------------------------------


def _check_opt_ins(real: Path, root: Path, raw: str, hidden: bool, include_sensitive: bool) -> None:
    """Hidden and credential files need the query's explicit opt-in."""
    if not include_sensitive and (is_sensitive(real) or is_sensitive(raw)):
        raise PathNotAllowedError(
            f"'{raw}' looks like a credential file",
            hints=["Set includeSensitive: true to use it anyway (secrets stay redacted)."],
        )
    if not hidden and is_hidden(real, root):
        raise PathNotAllowedError(
            f"'{raw}' is hidden (a dot-file or inside a dot-directory)",
            hints=["Set hidden: true to use it."],
        )


def _not_found(real: Path, root: Path, raw: str) -> NotFoundError:
    parent = real.parent
    while parent != root and not parent.is_dir() and parent.is_relative_to(root):
        parent = parent.parent
    where = str(parent) if parent.is_dir() else str(root)
    return NotFoundError(
        f"'{raw}' does not exist",
        hints=[
            "Find it: localFindFiles " + _compact({"path": where, "iname": f"*{real.name}*"}),
            "Or look around: localViewStructure " + _compact({"path": where}),
        ],
    )


def _rg_rejected(message: str) -> InvalidQueryError:
    hints: list[str] = []
    if "regex" in message:
        hints.append(
            "Search the text literally with fixedString: true, or escape regex characters "
            "(\\( \\[ \\. \\*)."
        )
    if "file type" in message:
        hints.append(
            "Common types: py, js, ts, rust, go, java, c, cpp, md, json, yaml; "
            "or filter by name with include globs such as '*.ext'."
        )
    if "glob" in message:
        hints.append(
            "Fix the include/exclude globs: close every [ and {, and end none with \\ "
            "(e.g. '*.py', 'src/**')."
        )
    if not hints:
        hints.append(
            "Check the pattern and globs against ripgrep's syntax; fixedString: true searches "
            "the text literally."
        )
    return InvalidQueryError(f"ripgrep rejected the query: {message}", hints=hints)


def _repeat(query: LocalSearchCodeQuery) -> dict[str, Any]:
    """The query's own parameters, as the caller would write them again: defaults, context
    fields and what its mode already sets are left out."""
    preset = MODE_PRESETS[query.mode] if query.mode else {}
    return {k: v for k, v in query.params().items() if k not in preset or preset[k] != v}


def _search_hints(
    run: QueryRun, query: LocalSearchCodeQuery, result: LocalSearchCodeResult, cwd: Path
) -> None:
    repeat = _repeat(query)
    if not result.files:
        _empty_search_hints(run, query, result, repeat)
        return
    if result.pagination.hasMore:
        run.hint(
            "Next page: localSearchCode "
            + _compact({**repeat, "filePageNumber": query.filePageNumber + 1})
        )
    first = result.files[0]
    if query.filesOnly:
        lines = {k: v for k, v in repeat.items() if k != "filesOnly"}
        if lines.get("mode") == "discovery":
            del lines["mode"]
        run.hint("See the matching lines of these files: localSearchCode " + _compact(lines))
    read = read_params(cwd, first.path)
    read["matchString"] = query.pattern
    if not query.fixedString and _REGEX_SYNTAX.search(query.pattern):
        read["matchStringIsRegex"] = True
    if not query.smartCase or query.pattern != query.pattern.lower():
        read["matchStringCaseSensitive"] = True
    run.hint("Read around a hit: localGetFileContent " + _compact(read))
    crowded = next(
        (
            f
            for f in result.files
            if f.pagination is not None and f.pagination.matchesOnPage == query.matchesPerPage
        ),
        None,
    )
    if crowded is None:
        return
    shown = f"{crowded.path} has {crowded.matchCount} matching lines, {query.matchesPerPage} shown"
    if query.matchesPerPage < 100:
        more = {**repeat, "path": str(cwd / crowded.path)}
        more.pop("filePageNumber", None)
        more["matchesPerPage"] = min(100, crowded.matchCount)
        run.hint(f"{shown}; see more: localSearchCode {_compact(more)}")
    else:
        match = {k: v for k, v in read.items() if k.startswith("matchString")}
        every = {**read_params(cwd, crowded.path), **match}
        run.hint(f"{shown}; read them all (paged): localGetFileContent {_compact(every)}")


def _budget_hints(
    run: QueryRun, query: LocalSearchCodeQuery, fit: _PageFit, cwd: Path, max_tokens: int
) -> str | None:
    """Hints that continue a page the token budget cut; returns the first continuation."""
    if fit.cut is None:
        return None
    cut_file = fit.files[fit.cut]
    context = query.contextLines or 0
    read = read_params(cwd, cut_file.path)
    read["startLine"] = max(1, fit.unshown_lines[0] - context)
    read["endLine"] = fit.unshown_lines[-1] + context
    continuation = "localGetFileContent " + _compact(read)
    where = f" after line {fit.cut_after_line}" if fit.cut_after_line else ""
    run.hint(
        f"The token budget ({max_tokens} tokens) cut the matches in {cut_file.path}{where}: "
        f"read them with {continuation}"
    )
    later = fit.files[fit.cut + 1 :]
    if later:
        one = {k: v for k, v in _repeat(query).items() if k != "filePageNumber"}
        one["path"] = str(cwd / later[0].path)
        run.hint(
            f"{len(later)} later file(s) on this page show matchCount only (lower contextLines,"
            f" matchesPerPage or filesPerPage to fit more); search them one at a time: "
            f"localSearchCode {_compact(one)}"
        )
    return continuation


def _empty_search_hints(
    run: QueryRun,
    query: LocalSearchCodeQuery,
    result: LocalSearchCodeResult,
    repeat: dict[str, Any],
) -> None:
    if result.stats.filesWithMatches:
        last = {**repeat, "filePageNumber": result.pagination.totalPages}
        run.hint(
            f"Only {result.pagination.totalPages} page(s) of files; the last one: "
            f"localSearchCode {_compact(last)}"
        )
        return
    if result.stats.filesSearched == 0:
        run.hint("No file passed the filters: check path, type, include and exclude.")
    dropped = [name for name in ("type", "include", "exclude") if name in repeat]
    if dropped:
        run.hint(
            "Drop a filter ("
            + ", ".join(dropped)
            + "): localSearchCode "
            + _compact({k: v for k, v in repeat.items() if k not in dropped})
        )
    # Lower-casing \W or \S would change what the regex means.
    if (query.pattern != query.pattern.lower() or not query.smartCase) and (
        query.fixedString or not re.search(r"\\[A-Z]", query.pattern)
    ):
        ignore_case = {**repeat, "pattern": query.pattern.lower()}
        ignore_case.pop("smartCase", None)
        run.hint("Ignore case: localSearchCode " + _compact(ignore_case))
    if not query.fixedString and _REGEX_SYNTAX.search(query.pattern):
        run.hint(
            "The pattern is a regex; search its text literally: localSearchCode "
            + _compact({**repeat, "fixedString": True})
        )
    skipped = {"hidden": True} if not query.hidden else {}
    if not query.noIgnore:
        skipped["noIgnore"] = True
    if skipped:
        run.hint(
            "Dot-files and .gitignored files were skipped; include them: localSearchCode "
            + _compact({**repeat, **skipped})
        )


def _no_match_hints(run: QueryRun, query: LocalGetFileContentQuery) -> None:
    if query.matchStringCaseSensitive:
        run.hint("Match case-insensitively: drop matchStringCaseSensitive.")
    if (
        not query.matchStringIsRegex
        and query.matchString
        and _REGEX_SYNTAX.search(query.matchString)
    ):
        run.hint("matchString was taken literally; set matchStringIsRegex: true for a regex.")
    run.hint(
        "Search more files: localSearchCode "
        + _compact(
            {"pattern": query.matchString, "path": ".", "fixedString": not query.matchStringIsRegex}
        )
    )
