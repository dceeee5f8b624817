"""githubGetFileContent: a file, whole or in part (a line range, windows around a match,
a character page), cut to the token budget and with secrets redacted."""

from __future__ import annotations

from typing import NamedTuple

from octo.codehosts.hosts.file_limits import download_limit
from octo.codehosts.hosts.file_limits import file_too_large
from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.models.code import FileContentQuery
from octo.codehosts.models.code import FileContentResult
from octo.codehosts.shapes.code import FileBlob
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import CharPagination
from octo.core.budget import cut_lines
from octo.core.budget import fit_whole
from octo.core.budget import measured
from octo.core.budget import with_tokens
from octo.core.config import Config
from octo.core.errors import InvalidQueryError
from octo.core.formats import compact_json
from octo.core.formats import region_marker
from octo.core.secrets.redaction import as_shown


async def get_file_content(ctx: QueryContext, query: FileContentQuery) -> Answer[FileContentResult]:
    """Read a file from the query's host."""
    host = choose_host(ctx, query)
    with not_found_hints(
        *host.not_found_hints("owner, repo, path and branch (paths are case-sensitive)"),
        f"Find the path with {call(host, 'githubViewRepoStructure')} or githubSearchCode.",
    ):
        reply = await host.file(query)
    result, hints, cut_from = file_content_answer(ctx.config, query, reply.value)
    if cut_from is not None:
        handle = await ctx.mint_handle(cut_from, query, local=False)
        # Its size counts the handle too: the fit left room for it.
        result = measured(result.model_copy(update={"contentHandle": handle}))
        hints.append("All of it, in pages: getCachedContent " + compact_json({"handle": handle}))
    answer = Answer(result, cached=reply.cached)
    answer.hint(*reply.notes, *hints, *follow_up_hints(host))
    return answer


class _Selection(NamedTuple):
    """The lines a read shows, where they start, the file's line count, and matchString's
    hits."""

    text: str
    first_line: int
    total_lines: int
    match_count: int | None = None


def _select(text: str, query: FileContentQuery) -> _Selection:
    """The lines a file query asks for (all, a range, or windows around matches)."""
    lines = text.splitlines(keepends=True)
    total = len(lines)
    if query.startLine is not None and query.endLine is not None:
        if query.startLine > total:
            raise InvalidQueryError(
                f"startLine {query.startLine} is past the end of the file ({total} lines)",
                hints=[f"Use startLine between 1 and {total}."],
            )
        chosen = lines[query.startLine - 1 : query.endLine]
        return _Selection("".join(chosen), query.startLine, total)
    if query.matchString is not None:
        hits = [i for i, line in enumerate(lines) if query.matchString in line]
        context = query.matchStringContextLines
        windows: list[list[int]] = []
        for i in hits:
            start, end = max(0, i - context), min(total - 1, i + context)
            if windows and start <= windows[-1][1] + 1:
                windows[-1][1] = max(windows[-1][1], end)
            else:
                windows.append([start, end])
        if not windows:
            return _Selection("", 1, total, 0)
        parts = []
        for start, end in windows:
            parts.append(region_marker(start + 1, end + 1))
            parts.append("".join(lines[start : end + 1]))
        return _Selection("".join(parts), windows[0][0] + 1, total, len(hits))
    return _Selection(text, 1, total)


def file_content_answer(
    config: Config, query: FileContentQuery, blob: FileBlob
) -> tuple[FileContentResult, list[str], str | None]:
    """A file query's answer from the file itself, for every code host: its result, hints,
    and the text the token budget cut (for its content handle; None when nothing was).

    Refuses binary and oversized files, selects lines, cuts the char page and the token budget.
    """
    if blob.binary or blob.text is None:
        raise InvalidQueryError(
            f"{query.path} is a binary file ({blob.size} bytes)",
            hints=["Binary files are not returned; look for a text source instead."],
        )
    if blob.size > download_limit(query):
        raise file_too_large(query, blob.size, len(blob.text))
    # Lines are chosen (matchString) over the text octo shows, whole before any part is
    # chosen or cut: a private key's body lines are known by its BEGIN line, and a cut cannot
    # split a secret from its detector.
    selection = _select(as_shown(blob.text), query)
    total = len(selection.text)
    start = min(query.charOffset, total)
    end = total if query.charLength is None else min(total, start + query.charLength)
    # The whole answer fits the budget, not only its content (see fit_whole).
    return fit_whole(
        lambda budget: _cut_answer(config, query, blob, selection, start, end, budget),
        config.max_tokens * config.chars_per_token,
        lambda built: _chars_as_sent(*built),
    )


#: Room for the contentHandle a cut answer gets once it is fitted (``,"contentHandle":"…"``).
_HANDLE_CHARS = 64


def _chars_as_sent(result: FileContentResult, _hints: list[str], cut_from: str | None) -> int:
    """Characters of the answer as sent, its handle (when cut) included."""
    chars = result.tokens.chars if result.tokens else 0
    return chars + (_HANDLE_CHARS if cut_from is not None else 0)


def _cut_answer(
    config: Config,
    query: FileContentQuery,
    blob: FileBlob,
    selection: _Selection,
    start: int,
    end: int,
    budget: int,
) -> tuple[FileContentResult, list[str], str | None]:
    """The answer of the char page ``text[start:end]`` with its content cut to ``budget``."""
    text = selection.text
    total = len(text)
    page = text[start:end]
    hints: list[str] = []
    cut_from = None
    if len(page) > budget:
        cut_from = page
        cut = cut_lines(page.splitlines(keepends=True), 1, budget, 1)
        page = cut.content
        end = start + len(page)
        hints.append(f"Cut to the token budget ({config.max_tokens} tokens).")
    paged = start > 0 or end < total
    pagination = None
    next_step = None
    if paged:
        pagination = CharPagination.of(start, end, total)
        if end < total:
            next_step = f"charOffset={end}, charLength={max(50, end - start)}"
            hints.append(f"More content: {next_step}.")
    first = selection.first_line + text.count("\n", 0, start)
    last = first + page.count("\n", 0, max(0, len(page) - 1)) if page else None
    if selection.match_count == 0:
        hints.append(
            f'"{query.matchString}" does not occur in {query.path}; matching is exact and '
            "case-sensitive."
        )
    result = FileContentResult(
        owner=query.owner,
        repo=query.repo,
        content=page,
        path=query.path,
        branch=query.branch,
        size=blob.size,
        sha=blob.sha,
        startLine=first if page and query.matchString is None else None,
        endLine=last if query.matchString is None else None,
        totalLines=selection.total_lines,
        matchCount=selection.match_count,
        pagination=pagination,
    )
    result = with_tokens(
        result,
        config,
        truncated_at_line=last if cut_from is not None and query.matchString is None else None,
        truncated=cut_from is not None,
        next_step=next_step,
    )
    return result, hints, cut_from
