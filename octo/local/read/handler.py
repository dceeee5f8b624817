"""localGetFileContent: a local text file read under the token budget.

A file is decoded and redacted once per version (path, mtime, size); every page of it is
then served from the cache: from the start, a line range, matching lines with context,
character pages, or the whole file. Matching lines are found by rg (octo.local.read.matches).

Reading, redacting and cutting a file run in worker threads, never on the event loop, and
the query is answered at its deadline even when a thread is still at work: the file is read
a block at a time with a look at the deadline after each, so an abandoned read stops early.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import CharPagination
from octo.core.budget import cut_lines
from octo.core.budget import fit_whole
from octo.core.budget import with_tokens
from octo.core.cache import ResultCache
from octo.core.config import Config
from octo.core.errors import FileTooLargeError
from octo.core.errors import InvalidQueryError
from octo.core.files.confined import Opened
from octo.core.files.languages import language_of
from octo.core.formats import compact_json
from octo.core.formats import iso_utc
from octo.core.secrets.redaction import as_shown
from octo.core.secrets.redaction import relearn
from octo.local.checked_paths import open_file
from octo.local.matched_lines import clip_line
from octo.local.matched_lines import strip_newline
from octo.local.models import LocalGetFileContentQuery
from octo.local.models import LocalGetFileContentResult
from octo.local.read.matches import FileMatches
from octo.local.read.matches import match_lines
from octo.local.read.matches import no_match_hints
from octo.local.read.matches import regions_text
from octo.transports.ripgrep import max_filesize_bytes

#: fullContent skips the token budget, but not beyond this (spec: FILE_TOO_LARGE above 300 KB).
MAX_FULL_CONTENT_BYTES = 300 * 1024
#: Default and largest charLength (spec: 1-10000).
MAX_CHAR_LENGTH = 10_000
_BINARY_SNIFF_BYTES = 8192
_FILE_TEXT_TTL = 300.0
#: Up to this size a file's text is split and cut on the event loop (half a millisecond at most).
_SPLIT_ON_LOOP_CHARS = 32 * 1024
#: Lines before and after the first match that the "read around it" hint asks for.
_AROUND_MATCH_BEFORE = 10
_AROUND_MATCH_AFTER = 40
#: How much of a file's start its language is judged by (a shebang, ``<?php``).
_FIRST_LINE_CHARS = 256


async def get_file_content(
    ctx: QueryContext, query: LocalGetFileContentQuery
) -> Answer[LocalGetFileContentResult]:
    """Read one local text file (secrets redacted) in the way the query asks."""
    with await open_file(ctx.paths, query) as opened:
        _check_size(ctx.config, query, opened.stat.st_size)
        text, cached = await _file_text(ctx.runtime.cache, opened)
    if cached:
        relearn(text)  # its values may travel in the call's other answers
    base: dict[str, Any] = {
        "path": ctx.paths.relative(opened.path),
        "size": opened.stat.st_size,
        "modified": iso_utc(opened.stat.st_mtime),
        "language": language_of(opened.path, text[:_FIRST_LINE_CHARS].partition("\n")[0]),
    }

    def read() -> tuple[list[str], Answer[LocalGetFileContentResult]]:
        found = None if query.matchString is None else match_lines(text, query)
        lines = _split_lines(text)
        fields = {**base, "totalLines": len(lines)}
        return lines, _FileRead(ctx.config, query, text, lines, fields, opened.path.parent).answer(
            found
        )

    # Splitting and cutting a large file takes a while: off the event loop, and the query
    # is answered at its deadline even if the thread is still at it. A small file's take
    # less time than the hop to a thread.
    if len(text) <= _SPLIT_ON_LOOP_CHARS:
        lines, answer = read()
    else:
        lines, answer = await anyio.to_thread.run_sync(read, abandon_on_cancel=True)
    answer.cached = cached
    asked = _lines_asked(query, text, lines)
    tokens = answer.result.tokens
    if asked is not None and tokens is not None and tokens.truncated:
        handle = await ctx.mint_handle(asked, query)
        answer.result = answer.result.model_copy(update={"contentHandle": handle})
        answer.hint("All of it, in pages: getCachedContent " + compact_json({"handle": handle}))
    return answer


def _lines_asked(query: LocalGetFileContentQuery, text: str, lines: list[str]) -> str | None:
    """The text a read by lines asked for (the file, or its startLine-endLine range); None
    for the other ways to read."""
    if query.matchString is not None or query.char_mode or query.fullContent:
        return None
    if query.startLine is not None and query.endLine is not None:
        return "".join(lines[query.startLine - 1 : query.endLine])
    return text


def _check_size(config: Config, query: LocalGetFileContentQuery, size: int) -> None:
    limit = max_filesize_bytes(config.rg_max_filesize)
    if size > limit:
        raise FileTooLargeError(
            f"'{query.path}' has {size} bytes; octo reads files up to {limit} bytes",
            hints=[
                "OCTO_RG_MAX_FILESIZE raises the limit (at most 200M).",
                "Find the lines you need with localSearchCode on a smaller file set.",
            ],
        )
    if query.fullContent and size > MAX_FULL_CONTENT_BYTES:
        pages = {"path": query.path, "charOffset": 0, "charLength": MAX_CHAR_LENGTH}
        raise FileTooLargeError(
            f"'{query.path}' has {size} bytes; fullContent is limited to "
            f"{MAX_FULL_CONTENT_BYTES} bytes",
            hints=[
                "Read it in token-sized pages: drop fullContent (the answer says how to go on).",
                f"Or page by characters: {compact_json(pages)}",
                "Or read just the part you need with matchString or startLine/endLine.",
            ],
        )


async def _file_text(cache: ResultCache, opened: Opened) -> tuple[str, bool]:
    """The file's text as octo shows it (what ``matchString`` and every page are cut from),
    cached per file version; ``(text, from_cache)``."""

    def load_sync() -> str:
        data = opened.read_bytes(between=anyio.from_thread.check_cancelled)
        if b"\0" in data[:_BINARY_SNIFF_BYTES]:
            raise InvalidQueryError(
                f"'{opened.path.name}' is a binary file; localGetFileContent returns text only",
                hints=["Inspect its size and type with localViewStructure (details=true)."],
            )
        text = data.decode("utf-8", errors="replace")
        del data
        anyio.from_thread.check_cancelled()
        return as_shown(text)

    async def load() -> str:
        # Abandoned at the deadline, the thread stops at its next look at it.
        return await anyio.to_thread.run_sync(load_sync, abandon_on_cancel=True)

    info = opened.stat
    key = (
        f"localGetFileContent:{opened.path}:{info.st_dev}:{info.st_ino}:{info.st_mtime_ns}"
        f":{info.st_size}"
    )
    return await cache.get_or_load(key, _FILE_TEXT_TTL, load)


def _split_lines(text: str) -> list[str]:
    """Lines with their endings, split on "\\n" only (as rg numbers them)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    return lines


@dataclass(frozen=True)
class _FileRead:
    """One query's read of a file's redacted ``text`` (``lines`` keep their endings);
    ``base`` holds the result fields every mode shares; ``folder`` is the file's own."""

    config: Config
    query: LocalGetFileContentQuery
    text: str
    lines: list[str]
    base: dict[str, Any]
    folder: Path

    def _again(self, **changes: Any) -> str:
        """localGetFileContent on this file (with the query's opt-ins) and ``changes``."""
        params: dict[str, Any] = {"path": self.query.path}
        params.update((k, True) for k in ("hidden", "includeSensitive") if getattr(self.query, k))
        return "localGetFileContent " + compact_json({**params, **changes})

    def answer(self, found: FileMatches | None = None) -> Answer[LocalGetFileContentResult]:
        """The read in the mode the query asks for (``found``: the lines matchString
        matches), with the hints that continue it."""
        query, lines = self.query, self.lines
        if query.matchString is not None and found is not None:
            return self._matches(query.matchString, found)
        if query.char_mode:
            return self._chars()
        if query.fullContent:
            return Answer(
                self._measured(
                    LocalGetFileContentResult(
                        **self.base,
                        content=self.text,
                        startLine=1 if lines else None,
                        endLine=len(lines) or None,
                    )
                )
            )
        if query.startLine is not None and query.endLine is not None:
            if lines and query.startLine > len(lines):
                raise InvalidQueryError(
                    f"startLine {query.startLine} is past the end of the file ({len(lines)} lines)",
                    hints=[
                        f"Read the end: startLine={max(1, len(lines) - 49)}, endLine={len(lines)}"
                    ],
                )
            return self._lines(query.startLine, query.endLine)
        return self._lines(1, len(lines))

    @property
    def _budget_chars(self) -> int:
        return self.config.max_tokens * self.config.chars_per_token

    def _measured(
        self,
        result: LocalGetFileContentResult,
        *,
        truncated_at_line: int | None = None,
        next_step: str | None = None,
    ) -> LocalGetFileContentResult:
        if result.content and result.startLine is not None and result.endLine is not None:
            returned = result.endLine - result.startLine + 1
            result = result.model_copy(update={"returnedLines": returned})
        return with_tokens(
            result,
            self.config,
            truncated_at_line=truncated_at_line,
            next_step=next_step,
        )

    def _lines(self, first: int, last: int) -> Answer[LocalGetFileContentResult]:
        # The whole answer fits the budget, not only its content (see fit_whole).
        return fit_whole(
            lambda budget: self._lines_within(first, last, budget),
            self._budget_chars,
            lambda answer: answer.result.tokens.chars if answer.result.tokens else 0,
        )

    def _lines_within(
        self, first: int, last: int, budget_chars: int
    ) -> Answer[LocalGetFileContentResult]:
        lines = self.lines
        last = min(last, len(lines))
        wanted = lines[first - 1 : last]
        cut = cut_lines(wanted, first, budget_chars, chars_per_token=1)
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
        hints: list[str] = []
        next_step = None
        if next_query is not None:
            next_step = ", ".join(f"{key}={value}" for key, value in next_query.items())
            hints.append(f"Continue reading: {self._again(**next_query)}")
            if self.query.startLine is None:
                # A large file read from its top: its outline tells which lines to read.
                outline = {"uri": str(self.folder / Path(self.query.path).name)}
                hints.append(
                    f"Its outline (classes, functions, lines): lspDocumentSymbols {compact_json(outline)}"
                )
        elif wanted and last < len(lines):
            # The asked range fit; the file goes on (spec 000: requiresPagination).
            following = min(len(lines), last + (last - first + 1))
            next_step = f"startLine={last + 1}, endLine={following}"
            hints.append(f"Next lines: {self._again(startLine=last + 1, endLine=following)}")
        elif wanted and self.query.startLine is not None:
            folder = compact_json({"path": str(self.folder)})
            hints.append(
                f"That is the end of the file ({len(lines)} lines); its folder: "
                f"localViewStructure {folder}"
            )
        result = self._measured(
            LocalGetFileContentResult(
                **self.base,
                content=cut.content,
                startLine=first if wanted else None,
                endLine=cut.last_line if wanted else None,
            ),
            truncated_at_line=truncated_at,
            next_step=next_step,
        )
        return Answer(result, hints)

    def _chars(self) -> Answer[LocalGetFileContentResult]:
        query, text = self.query, self.text
        total = len(text)
        if query.charOffset >= total and total:
            raise InvalidQueryError(
                f"charOffset {query.charOffset} is past the end of the file ({total} characters)",
                hints=[f"Use a charOffset below {total}."],
            )
        length = min(query.charLength or MAX_CHAR_LENGTH, self._budget_chars)
        content = text[query.charOffset : query.charOffset + length]
        end = query.charOffset + len(content)
        hints: list[str] = []
        next_step = None
        if end < total:
            next_step = f"charOffset={end}, charLength={length}"
            hints.append(f"Continue reading: {self._again(charOffset=end, charLength=length)}")
        result = self._measured(
            LocalGetFileContentResult(
                **self.base,
                content=content,
                startLine=text.count("\n", 0, query.charOffset) + 1 if content else None,
                endLine=text.count("\n", 0, max(end - 1, 0)) + 1 if content else None,
                pagination=CharPagination.of(query.charOffset, end, total),
            ),
            next_step=next_step,
        )
        return Answer(result, hints)

    def _matches(self, match_string: str, found: FileMatches) -> Answer[LocalGetFileContentResult]:
        query, lines = self.query, self.lines
        columns = dict(found.lines)
        hits = list(columns)
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
                text = strip_newline(lines[number - 1])
                if number in hit_set:
                    window_lines.append((number, clip_line(text, columns[number]), True))
                else:
                    window_lines.append((number, clip_line(text), False))
            cost = sum(len(text) + 1 for _, text, _ in window_lines)
            if numbered and used + cost > self._budget_chars:
                break
            numbered += window_lines
            used += cost
            covered = window[-1]

        hints: list[str] = []
        next_step = None
        truncated_at = None
        rest = [hit for hit in hits if hit > covered]
        unshown = found.total - (len(hits) - len(rest))
        if unshown and covered < len(lines):
            truncated_at = covered
            start = max(rest[0] - context, covered + 1) if rest else covered + 1
            next_step = f"startLine={start}, endLine={len(lines)}"
            hints.append(
                f"{unshown} more matching lines after line {covered} did not fit the token "
                "budget: make matchString more specific, or read on with "
                + self._again(startLine=start, endLine=len(lines))
            )
        if hits:
            hints += self._match_hints(hits[0], match_string)
        else:
            hints += no_match_hints(query, match_string)
        result = self._measured(
            LocalGetFileContentResult(
                **self.base,
                content=regions_text(numbered) or None,
                matchCount=found.total,
                returnedLines=len(numbered),
                matchedLines=[number for number, _, is_match in numbered if is_match] or None,
            ),
            truncated_at_line=truncated_at,
            next_step=next_step,
        )
        return Answer(result, hints)

    def _match_hints(self, first_hit: int, match_string: str) -> list[str]:
        """Read on around the first match; find the text in the file's folder."""
        query = self.query
        around = self._again(
            startLine=max(1, first_hit - _AROUND_MATCH_BEFORE),
            endLine=min(len(self.lines), first_hit + _AROUND_MATCH_AFTER),
        )
        search: dict[str, Any] = {"pattern": match_string, "path": str(self.folder)}
        if not query.matchStringIsRegex:
            search["fixedString"] = True
        if query.hidden:
            search["hidden"] = True
        return [
            f"Read the code around the first match: {around}",
            f"Find it in the other files of the folder: localSearchCode {compact_json(search)}",
        ]
