"""localSearchCode on ripgrep: a counting pass, then the answer the query's outputMode asks
for. groupByFile, the default, is built here: the counting pass's files sorted by path give
exact stats and file pages that line up across calls (sorting in rg would make it
single-threaded), and a detail pass reads just the page's files. The cheaper modes are in
octo.local.search.output_modes. Searches are not cached: files change under an agent's hands and
nothing cheap tells when.

When rg reaches its time limit in the counting pass after finding matches, the answer is
made of what it found, partial, with the ways to a complete one. A line of rg's output too
long to read whole is shown by a preview (octo.local.search.long_lines).
"""

from __future__ import annotations

import math
import time

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import Pagination
from octo.core.budget import with_tokens
from octo.core.config import Config
from octo.core.errors import FileTooLargeError
from octo.core.errors import QueryTimeoutError
from octo.core.files.confined import Opened
from octo.local.checked_paths import open_search
from octo.local.search.clipped_lines import CLIPPED_HINT
from octo.local.search.clipped_lines import hand_clipped_lines
from octo.local.search.hints import budget_hints
from octo.local.search.hints import search_hints
from octo.local.search.models import LocalSearchCodeQuery
from octo.local.search.models import LocalSearchCodeResult
from octo.local.search.models import SearchFields
from octo.local.search.models import SearchFile
from octo.local.search.output_modes import answer_counts
from octo.local.search.page_fit import PageFit
from octo.local.search.page_fit import fit_page
from octo.local.search.passes import Counted
from octo.local.search.passes import SearchScope
from octo.local.search.passes import count_matches
from octo.local.search.passes import max_filesize
from octo.local.search.passes import page_matches
from octo.local.search.passes import timeout_ms
from octo.local.search.passes import walk_args
from octo.transports.ripgrep import RgQueue

#: Seconds before the query's deadline at which a search still running answers with nothing.
_ANSWER_MARGIN = 0.5


async def search_code(
    ctx: QueryContext, query: LocalSearchCodeQuery
) -> Answer[LocalSearchCodeResult]:
    """Search file contents under a directory (or in one file)."""
    started = time.monotonic()
    with _before_the_deadline(), await open_search(ctx.paths, query) as searched:
        if searched.file is not None:
            _check_file_size(ctx.config, query, searched.file)
        scope = SearchScope(
            searched.directory,
            [searched.arg],
            walk_args(query, searched.fenced),
            searched.file,
            largest=None if searched.file is not None else max_filesize(ctx.config, query),
            rg=ctx.backend(RgQueue).place(ctx.arrived),
        )
        return await search_scope(ctx, query, scope, "localSearchCode")
    # The path was still being checked (a loaded server's worker threads all busy).
    return _unanswered(ctx.config, query, None, started)


async def search_scope(
    ctx: QueryContext, query: SearchFields, scope: SearchScope, tool: str
) -> Answer[LocalSearchCodeResult]:
    """``query`` over ``scope``, answered in its outputMode; hints continue with ``tool``."""
    config = ctx.config
    started = time.monotonic()
    try:
        with _before_the_deadline():
            counted = await count_matches(config, query, scope)
            if query.outputMode != "groupByFile":
                answer = await answer_counts(ctx, query, scope, counted, tool)
            else:
                answer = await _page_of_lines(ctx, query, scope, counted, tool)
            if not counted.complete:
                answer.partial = True
                answer.hints.insert(0, _cut_short_hint(config, query, len(counted.files)))
            return answer
    except QueryTimeoutError:
        pass
    return _unanswered(config, query, str(scope.cwd), started)


def _before_the_deadline() -> anyio.CancelScope:
    """A scope ending a moment before the query's deadline, so that a search still waiting
    then (for rg's queue, a worker thread) answers instead of being cancelled."""
    return anyio.CancelScope(deadline=anyio.current_effective_deadline() - _ANSWER_MARGIN)


def _unanswered(
    config: Config, query: SearchFields, root: str | None, started: float
) -> Answer[LocalSearchCodeResult]:
    """No turn or no time was left (a loaded server): an empty partial page that says so,
    not a bare TIMEOUT."""
    counted = Counted([], None, started, complete=False)
    answer = Answer(LocalSearchCodeResult(root=root, files=[], stats=counted.stats()))
    answer.partial = True
    answer.hint(_cut_short_hint(config, query, 0))
    return answer


async def _page_of_lines(
    ctx: QueryContext, query: SearchFields, scope: SearchScope, counted: Counted, tool: str
) -> Answer[LocalSearchCodeResult]:
    """groupByFile: one page of files in path order, with their first matching lines."""
    config = ctx.config
    cwd = scope.cwd
    matching = counted.in_path_order()
    first = (query.filePageNumber - 1) * query.filesPerPage
    page = matching[first : first + query.filesPerPage]
    lines_cut = False
    if query.filesOnly:
        # Paths alone: counts are countOnly's answer, dates localFindFiles'.
        files = [SearchFile(path=entry.path) for entry in page]
    else:
        try:
            files = await page_matches(config, query, scope, page, query.matchesPerPage)
        except QueryTimeoutError:
            # Out of time for the page's lines: the files and counts are still an answer.
            files = [SearchFile(path=entry.path, matchCount=entry.matched_lines) for entry in page]
            lines_cut = bool(page)
    stats = counted.stats(complete=True)
    shown, clipped = await hand_clipped_lines(ctx, query, cwd, files)
    pagination = Pagination(
        currentPage=query.filePageNumber,
        # Not page_of: a search that matched nothing has no pages (totalPages 0).
        totalPages=math.ceil(len(matching) / query.filesPerPage),
        hasMore=first + query.filesPerPage < len(matching),
    )

    def answer_of(fit: PageFit) -> tuple[list[str], LocalSearchCodeResult]:
        hints, next_step = budget_hints(query, fit, cwd, config.max_tokens, tool)
        if next_step is None and pagination.hasMore:
            next_step = f"filePageNumber={query.filePageNumber + 1}"
        result = with_tokens(
            LocalSearchCodeResult(
                root=str(cwd), files=fit.files, stats=stats, pagination=pagination
            ),
            config,
            truncated=fit.cut is not None,
            truncated_at_line=fit.cut_after_line,
            next_step=next_step,
        )
        return hints, result

    def answer_chars(fit: PageFit) -> int:
        tokens = answer_of(fit)[1].tokens
        return tokens.chars if tokens is not None else 0

    # The whole answer fits the budget, not only its matching lines.
    hints, result = answer_of(
        fit_page(shown, config.max_tokens * config.chars_per_token, answer_chars)
    )
    # A page of paths alone (filesOnly) is not cut by fit_page: the dispatcher's finishing
    # stage makes the last cut.
    answer = Answer(result, partial=lines_cut)
    if lines_cut:
        answer.hint(
            "There was no time left to read the page's matching lines: the files and counts "
            "are shown; ask again for the lines (a narrower path makes it quicker)."
        )
    one_file = scope.file is not None
    answer.hint(*hints, *search_hints(query, result, cwd, tool, one_file=one_file))
    if clipped:
        answer.hint(CLIPPED_HINT)
    return answer


def _cut_short_hint(config: Config, query: SearchFields, found: int) -> str:
    return (
        f"ripgrep reached its time limit ({timeout_ms(config, query)} ms) after finding "
        f"{found} matching files (it may have waited its turn behind other searches): the "
        "counts and pages cover those only. For a complete answer retry, narrow the search (a "
        "sub-directory as path, a type, include globs), or raise timeoutMs or "
        "OCTO_RG_TIMEOUT_MS (at most 30000)."
    )


def _check_file_size(config: Config, query: LocalSearchCodeQuery, file: Opened) -> None:
    """rg skips large files only while it walks; a file named as path is checked here."""
    limit = max_filesize(config, query)
    size = file.stat.st_size
    if size > limit:
        raise FileTooLargeError(
            f"'{query.path}' has {size} bytes; searches skip files over {limit} bytes "
            "(maxFilesize, OCTO_RG_MAX_FILESIZE)",
            hints=[
                "maxFilesize or OCTO_RG_MAX_FILESIZE raises the limit (at most 200M).",
                "Search the directory around it for smaller files, or the file's source.",
            ],
        )
