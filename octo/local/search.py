"""localSearchCode on ripgrep: a counting pass, then the answer the query's outputMode asks
for. groupByFile, the default, is built here: the counting pass's files sorted by path give
exact stats and file pages that line up across calls (sorting in rg would make it
single-threaded), and a detail pass reads just the page's files. The cheaper modes are in
octo.local.output_modes. Searches are not cached: files change under an agent's hands and
nothing cheap tells when.
"""

from __future__ import annotations

import math

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import with_tokens
from octo.core.config import Config
from octo.core.paging import Pagination
from octo.local.output_modes import answer_counts
from octo.local.page_fit import fit_budget
from octo.local.search_hints import budget_hints
from octo.local.search_hints import search_hints
from octo.local.search_models import LocalSearchCodeQuery
from octo.local.search_models import LocalSearchCodeResult
from octo.local.search_models import SearchFields
from octo.local.search_passes import Counted
from octo.local.search_passes import SearchScope
from octo.local.search_passes import count_matches
from octo.local.search_passes import files_with_mtimes
from octo.local.search_passes import page_matches
from octo.local.search_passes import walk_args
from octo.local.targets import search_target


async def search_code(
    ctx: QueryContext, query: LocalSearchCodeQuery
) -> Answer[LocalSearchCodeResult]:
    """Search file contents under a directory (or in one file)."""
    with await search_target(ctx.paths, query) as target:
        scope = SearchScope(
            target.directory, [target.arg], walk_args(ctx.config, query), target.file
        )
        return await search_scope(ctx.config, query, scope, "localSearchCode")


async def search_scope(
    config: Config, query: SearchFields, scope: SearchScope, tool: str
) -> Answer[LocalSearchCodeResult]:
    """``query`` over ``scope``, answered in its outputMode; hints continue with ``tool``."""
    counted = await count_matches(config, query, scope)
    if query.outputMode != "groupByFile":
        return await answer_counts(config, query, scope, counted, tool)
    return await _page_of_lines(config, query, scope, counted, tool)


async def _page_of_lines(
    config: Config, query: SearchFields, scope: SearchScope, counted: Counted, tool: str
) -> Answer[LocalSearchCodeResult]:
    """groupByFile: one page of files in path order, with their first matching lines."""
    cwd = scope.cwd
    matching = counted.in_path_order()
    first = (query.filePageNumber - 1) * query.filesPerPage
    page = matching[first : first + query.filesPerPage]
    if query.filesOnly:
        files = await files_with_mtimes(cwd, page)
    else:
        files = await page_matches(config, query, scope, page, query.matchesPerPage)
    stats = counted.stats(complete=True)
    fit = fit_budget(files, config.max_tokens * config.chars_per_token)

    result = LocalSearchCodeResult(
        root=str(cwd),
        files=fit.files,
        stats=stats,
        # Not page_of: a search that matched nothing has no pages (totalPages 0).
        pagination=Pagination(
            currentPage=query.filePageNumber,
            totalPages=math.ceil(len(matching) / query.filesPerPage),
            hasMore=first + query.filesPerPage < len(matching),
        ),
    )
    hints, next_step = budget_hints(query, fit, cwd, config.max_tokens)
    if next_step is None and result.pagination is not None and result.pagination.hasMore:
        next_step = f"filePageNumber={query.filePageNumber + 1}"
    result = with_tokens(
        result,
        max_tokens=config.max_tokens,
        chars_per_token=config.chars_per_token,
        truncated=fit.cut is not None,
        truncated_at_line=fit.cut_after_line,
        next_step=next_step,
    )
    answer = Answer(result)
    answer.hint(*hints, *search_hints(query, result, cwd, tool))
    return answer
