"""How the local tools whose ``path`` may name several places put their answers together:
one :class:`~octo.contract.place_answers.SeveralPlaces` per tool, named by its binding. One
plain path goes to the tool's handler unchanged; a list or a glob to
:func:`octo.contract.place_answers.answer_places`, each place to the same handler.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any
from typing import TypedDict
from typing import TypeVar

from octo.contract import Answer
from octo.contract import QueryContext
from octo.contract.place_answers import Combine
from octo.contract.place_answers import Paging
from octo.contract.place_answers import Places
from octo.contract.place_answers import PlaceTool
from octo.contract.place_answers import SeveralPlaces
from octo.contract.places import Place
from octo.core.budget import Pagination
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.local import find_and_search
from octo.local.find_and_search import FindAndSearchQuery
from octo.local.find_and_search import FindAndSearchResult
from octo.local.find_and_search import FindStats
from octo.local.listing import find_files as find
from octo.local.listing import view_structure as view
from octo.local.listing.models import FindFilesQuery
from octo.local.listing.models import FindFilesResult
from octo.local.listing.models import FoundFile
from octo.local.listing.models import StructureEntry
from octo.local.listing.models import StructureSummary
from octo.local.listing.models import ViewStructureQuery
from octo.local.listing.models import ViewStructureResult
from octo.local.places.globs import GlobRules
from octo.local.places.paths import local_places
from octo.local.places.paths import place_paths
from octo.local.search import handler as search
from octo.local.search.models import SUMMARY_FILES
from octo.local.search.models import LocalSearchCodeQuery
from octo.local.search.models import LocalSearchCodeResult
from octo.local.search.models import SearchFields
from octo.local.search.models import SearchFile
from octo.local.search.models import SearchStats

Q = TypeVar("Q", bound=ToolQuery)
R = TypeVar("R", bound=ToolResult)
#: A search's result: localSearchCode's or localFindAndSearchCode's.
SR = TypeVar("SR", bound=LocalSearchCodeResult)
Single = Callable[[QueryContext, Q], Awaitable[Answer[R]]]


def _path(place: Place) -> dict[str, Any]:
    return {"path": place.target}


def _local_tool(
    name: str,
    single: Single[Any, R],
    count: Callable[[R, int], int],
    combine: Combine[R],
    rank: Callable[[Any, int], Any] | None,
) -> PlaceTool[Any, R]:
    """A local tool over places: each place goes to its handler as the query's ``path``."""
    return PlaceTool(
        name=name, single=single, place_fields=_path, count=count, combine=combine, rank=rank
    )


class Listed(TypedDict):
    """What every listing of several places says alike: its pages, and whether a walk was cut."""

    pagination: Pagination
    truncated: bool | None


def _pagination(paging: Paging) -> Pagination:
    return Pagination(
        currentPage=paging.currentPage, totalPages=paging.totalPages or 0, hasMore=paging.hasMore
    )


def _listed(results: Sequence[FindFilesResult | ViewStructureResult], paging: Paging) -> Listed:
    truncated = True if any(r.truncated for r in results) else None
    return Listed(pagination=_pagination(paging), truncated=truncated)


class SearchAnswerFields(TypedDict, total=False):
    """The fields of a search answer of several places (which ones: the query's outputMode)."""

    root: str
    stats: SearchStats
    files: list[SearchFile]
    otherFiles: int
    pagination: Pagination


async def _places_named(ctx: QueryContext, query: ToolQuery) -> Places | None:
    """The places of a query whose path is a list or a glob; None for one plain path. Its
    globs follow its walk's opt-ins, and match files where the tool searches a file too."""
    paths = place_paths(query)
    if paths is None:
        return None
    rules = GlobRules(
        hidden=bool(getattr(query, "hidden", False)),
        no_ignore=bool(getattr(query, "noIgnore", False)),
        files=isinstance(query, LocalSearchCodeQuery),
        include_sensitive=bool(getattr(query, "includeSensitive", False)),
    )
    return await local_places(ctx, paths, rules)


def _summed_stats(results: Sequence[LocalSearchCodeResult]) -> SearchStats:
    searched = [r.stats.filesSearched for r in results]
    complete = [r.stats.complete for r in results]
    return SearchStats(
        filesSearched=None if None in searched else sum(s or 0 for s in searched),
        filesWithMatches=sum(r.stats.filesWithMatches for r in results),
        totalMatches=sum(r.stats.totalMatches for r in results),
        searchTimeMs=max(r.stats.searchTimeMs for r in results),
        complete=None if None in complete else all(complete),
    )


def _search_fields(
    query: SearchFields,
    root: str,
    files: list[SearchFile],
    results: Sequence[LocalSearchCodeResult],
    paging: Paging,
) -> SearchAnswerFields:
    """The fields of a search answer of several places, in the query's outputMode."""
    stats = _summed_stats(results)
    fields = SearchAnswerFields(root=root, stats=stats)
    if query.outputMode == "totalOnly":
        return fields
    if query.outputMode == "summary":
        ranked_as_one = getattr(query, "aggregationMode", "global") == "global"
        shown = files[:SUMMARY_FILES] if ranked_as_one else files
        return {**fields, "files": shown, "otherFiles": stats.filesWithMatches - len(shown)}
    return {**fields, "files": files, "pagination": _pagination(paging)}


def _most_matches_first(item: Any, _position: int) -> Any:
    return (-item.matchCount, item.path)


def _matching_files(result: LocalSearchCodeResult, _window: int) -> int:
    return result.stats.filesWithMatches


def _search_place_tool(
    name: str, single: Single[Any, SR], query: SearchFields, combine: Combine[SR]
) -> PlaceTool[Any, SR]:
    """A search over places: groupByFile pages its files in path order (places in order, each
    in path order); the count answers page themselves, the files with most matches first."""
    rank = None if query.outputMode == "groupByFile" else _most_matches_first
    return _local_tool(name, single, _matching_files, combine, rank)


def _search_tool(query: LocalSearchCodeQuery) -> PlaceTool[Any, LocalSearchCodeResult]:
    def combine(
        root: str, files: list[Any], results: list[LocalSearchCodeResult], paging: Paging
    ) -> LocalSearchCodeResult:
        found = LocalSearchCodeResult(**_search_fields(query, root, files, results, paging))
        if query.outputMode != "groupByFile":
            found.status_from_stats()
        return found

    return _search_place_tool("localSearchCode", search.search_code, query, combine)


def _find_and_search_tool(query: FindAndSearchQuery) -> PlaceTool[Any, FindAndSearchResult]:
    def combine(
        root: str, files: list[Any], results: list[FindAndSearchResult], paging: Paging
    ) -> FindAndSearchResult:
        find = FindStats(
            searchedFileCount=sum(r.find.searchedFileCount for r in results),
            truncated=any(r.find.truncated for r in results),
            findMs=max(r.find.findMs for r in results),
            searchMs=max(r.find.searchMs for r in results),
        )
        fields = _search_fields(query, root, files, results, paging)
        found = FindAndSearchResult(**fields, find=find)
        if query.outputMode != "groupByFile":
            found.status_from_stats()
        return found

    return _search_place_tool(
        "localFindAndSearchCode", find_and_search.find_and_search_code, query, combine
    )


def _newest_first(modified: str | None) -> float:
    if modified is None:
        return 0.0
    return -datetime.fromisoformat(modified.replace("Z", "+00:00")).timestamp()


def _find_combine(
    root: str, files: list[Any], results: list[FindFilesResult], paging: Paging
) -> FindFilesResult:
    total = sum(r.totalCount for r in results)
    return FindFilesResult(path=root, files=files, totalCount=total, **_listed(results, paging))


#: A find's sortBy over several places: an answer carries the detail it is sorted by.
_FIND_RANKS: dict[str, Callable[[FoundFile, int], Any]] = {
    "modified": lambda item, _p: (_newest_first(item.modified), item.path),
    "size": lambda item, _p: (-(item.size or 0), item.path),
    "path": lambda item, _p: item.path,
}


def _found(result: FindFilesResult, _window: int) -> int:
    return result.totalCount


def _find_tool(query: FindFilesQuery) -> PlaceTool[Any, FindFilesResult]:
    rank = _FIND_RANKS[query.sortBy]
    return _local_tool("localFindFiles", find.find_files, _found, _find_combine, rank)


def _entry_count(result: ViewStructureResult, window: int) -> int:
    """Entries a place lists: exact when they fit the window, else from its summary (which
    counts files and directories, not symlinks)."""
    if result.pagination is None or not result.pagination.hasMore:
        return len(result.entries)
    return max(window + 1, result.summary.totalFiles + result.summary.totalDirs)


_SUMMED = ("totalFiles", "totalDirs", "totalSize")


def _view_combine(
    root: str, entries: list[Any], results: list[ViewStructureResult], paging: Paging
) -> ViewStructureResult:
    totals = {name: sum(getattr(r.summary, name) for r in results) for name in _SUMMED}
    return ViewStructureResult(
        path=root, entries=entries, summary=StructureSummary(**totals), **_listed(results, paging)
    )


_ORDERS: dict[str, Callable[[StructureEntry, int], Any]] = {
    "name": lambda e, _p: e.name.lower(),
    "size": lambda e, _p: (-(e.size or 0), e.name.lower()),
    "time": lambda e, _p: (_newest_first(e.modified), e.name.lower()),
    "extension": lambda e, _p: (
        e.name.rpartition(".")[2].lower() if "." in e.name else "",
        e.name.lower(),
    ),
}
_DETAILS = {"size": None, "modified": None, "permissions": None}


def _view_tool(query: ViewStructureQuery) -> PlaceTool[Any, ViewStructureResult]:
    # Ranking by size or time needs the details; the caller gets them only if asked for.
    hidden_details = query.sortBy in ("size", "time") and not query.details
    rank = _ORDERS[query.sortBy]
    tool = _local_tool("localViewStructure", view.view_structure, _entry_count, _view_combine, rank)
    if not hidden_details:
        return tool
    return replace(tool, rank_fields={"details": True}, unasked=_DETAILS)


#: What the local tools' bindings name as their places (their handlers answer one place).
SEARCH_CODE = SeveralPlaces(_places_named, _search_tool)
FIND_AND_SEARCH_CODE = SeveralPlaces(_places_named, _find_and_search_tool)
FIND_FILES = SeveralPlaces(_places_named, _find_tool)
VIEW_STRUCTURE = SeveralPlaces(_places_named, _view_tool)
