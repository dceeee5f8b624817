"""The local tools whose ``path`` may name several places, as the registry binds them: one
plain path goes to the tool itself, unchanged; a list or a glob to
:func:`octo.contract.place_answers.answer_places`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from typing import TypeVar

from octo.contract import Answer
from octo.contract import QueryContext
from octo.contract.place_answers import Paging
from octo.contract.place_answers import PlaceTool
from octo.contract.place_answers import answer_places
from octo.contract.places import Place
from octo.core.envelope import ToolQuery
from octo.core.envelope import ToolResult
from octo.core.paging import Pagination
from octo.local import find_files as find
from octo.local import search
from octo.local import view_structure as view
from octo.local.clipped_lines import CLIPPED_HINT
from octo.local.clipped_lines import hand_clipped_lines
from octo.local.listing_models import FindFilesQuery
from octo.local.listing_models import FindFilesResult
from octo.local.listing_models import FoundFile
from octo.local.listing_models import StructureEntry
from octo.local.listing_models import StructureSummary
from octo.local.listing_models import ViewStructureQuery
from octo.local.listing_models import ViewStructureResult
from octo.local.models import LocalSearchCodeQuery
from octo.local.models import LocalSearchCodeResult
from octo.local.models import SearchStats
from octo.local.places import local_places
from octo.local.places import place_paths

Q = TypeVar("Q", bound=ToolQuery)
R = TypeVar("R", bound=ToolResult)


def _path(place: Place) -> dict[str, Any]:
    return {"path": place.target}


def _pagination(paging: Paging) -> Pagination:
    return Pagination(
        currentPage=paging.currentPage, totalPages=paging.totalPages or 0, hasMore=paging.hasMore
    )


async def _in_places(
    ctx: QueryContext,
    query: Q,
    single: Callable[[QueryContext, Q], Any],
    tool: Callable[[Q], PlaceTool[Q, R]],
) -> Answer[R]:
    paths = place_paths(query)
    if paths is None:
        answer: Answer[R] = await single(ctx, query)
        return answer
    found = await local_places(ctx.paths, paths, ctx.tool)
    return await answer_places(ctx, query, found, tool(query))


async def search_code(
    ctx: QueryContext, query: LocalSearchCodeQuery
) -> Answer[LocalSearchCodeResult]:
    """localSearchCode, over one place or several."""
    return await _in_places(ctx, query, _search_one, _search_tool)


async def _search_one(
    ctx: QueryContext, query: LocalSearchCodeQuery
) -> Answer[LocalSearchCodeResult]:
    """One place's search, its clipped lines handed out whole."""
    answer = await search.search_code(ctx, query)
    answer.result, clipped = await hand_clipped_lines(ctx, query, answer.result)
    if clipped:
        answer.hint(CLIPPED_HINT)
    return answer


async def find_files(ctx: QueryContext, query: FindFilesQuery) -> Answer[FindFilesResult]:
    """localFindFiles, over one place or several."""
    return await _in_places(ctx, query, find.find_files, _find_tool)


async def view_structure(
    ctx: QueryContext, query: ViewStructureQuery
) -> Answer[ViewStructureResult]:
    """localViewStructure, over one place or several."""
    return await _in_places(ctx, query, view.view_structure, _view_tool)


def _search_tool(_query: LocalSearchCodeQuery) -> PlaceTool[Any, LocalSearchCodeResult]:
    def combine(
        root: str, files: list[Any], results: list[LocalSearchCodeResult], paging: Paging
    ) -> LocalSearchCodeResult:
        searched = [r.stats.filesSearched for r in results]
        stats = SearchStats(
            filesSearched=None if None in searched else sum(s or 0 for s in searched),
            filesWithMatches=sum(r.stats.filesWithMatches for r in results),
            totalMatches=sum(r.stats.totalMatches for r in results),
            searchTimeMs=max(r.stats.searchTimeMs for r in results),
            complete=all(r.stats.complete for r in results),
        )
        return LocalSearchCodeResult(
            root=root, files=files, stats=stats, pagination=_pagination(paging)
        )

    return PlaceTool(
        name="localSearchCode",
        single=_search_one,
        target=_path,
        items="files",
        page="filePageNumber",
        per_page="filesPerPage",
        count=lambda result, _window: result.stats.filesWithMatches,
        rank=None,
        combine=combine,
    )


def _newest_first(modified: str | None) -> float:
    if modified is None:
        return 0.0
    return -datetime.fromisoformat(modified.replace("Z", "+00:00")).timestamp()


def _find_tool(_query: FindFilesQuery) -> PlaceTool[Any, FindFilesResult]:
    def combine(
        root: str, files: list[Any], results: list[FindFilesResult], paging: Paging
    ) -> FindFilesResult:
        return FindFilesResult(
            path=root,
            files=files,
            totalCount=sum(r.totalCount for r in results),
            pagination=_pagination(paging),
            truncated=True if any(r.truncated for r in results) else None,
        )

    def rank(item: FoundFile, _position: int) -> Any:
        return (_newest_first(item.modified), item.path)

    return PlaceTool(
        name="localFindFiles",
        single=find.find_files,
        target=_path,
        items="files",
        page="filePageNumber",
        per_page="filesPerPage",
        count=lambda result, _window: result.totalCount,
        rank=rank,
        combine=combine,
    )


def _entry_count(result: ViewStructureResult, window: int) -> int:
    """Entries a place lists: exact when they fit the window, else from its summary (which
    counts files and directories, not symlinks)."""
    if result.pagination is None or not result.pagination.hasMore:
        return len(result.entries)
    return max(window + 1, result.summary.totalFiles + result.summary.totalDirs)


def _view_tool(query: ViewStructureQuery) -> PlaceTool[Any, ViewStructureResult]:
    def combine(
        root: str, entries: list[Any], results: list[ViewStructureResult], paging: Paging
    ) -> ViewStructureResult:
        return ViewStructureResult(
            path=root,
            entries=entries,
            pagination=_pagination(paging),
            summary=StructureSummary(
                totalFiles=sum(r.summary.totalFiles for r in results),
                totalDirs=sum(r.summary.totalDirs for r in results),
                totalSize=sum(r.summary.totalSize for r in results),
            ),
            truncated=True if any(r.truncated for r in results) else None,
        )

    orders: dict[str, Callable[[StructureEntry, int], Any]] = {
        "name": lambda e, _p: e.name.lower(),
        "size": lambda e, _p: (-(e.size or 0), e.name.lower()),
        "time": lambda e, _p: (_newest_first(e.modified), e.name.lower()),
        "extension": lambda e, _p: (
            e.name.rpartition(".")[2].lower() if "." in e.name else "",
            e.name.lower(),
        ),
    }
    # Ranking by size or time needs the details; the caller gets them only if asked for.
    needs_details = query.sortBy in ("size", "time") and not query.details
    return PlaceTool(
        name="localViewStructure",
        single=view.view_structure,
        target=_path,
        items="entries",
        page="entryPageNumber",
        per_page="entriesPerPage",
        count=_entry_count,
        rank=orders[query.sortBy],
        combine=combine,
        rank_fields={"details": True} if needs_details else {},
        unasked={"size": None, "modified": None, "permissions": None} if needs_details else {},
    )
