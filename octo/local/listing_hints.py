"""The next calls a localViewStructure or localFindFiles answer suggests: the next page,
reading a listed file, searching the directory, and what to relax when nothing matched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from octo.core.formats import compact_json
from octo.core.paging import Pagination
from octo.local.listing_models import (
    FindFilesQuery,
    FindFilesResult,
    ViewStructureQuery,
    ViewStructureResult,
)
from octo.local.next_calls import read_params
from octo.local.walk import MAX_SCANNED_FILES, Walk

#: Matches beyond which the answer suggests narrowing filters.
MANY_RESULTS = 100


def structure_hints(
    query: ViewStructureQuery,
    start: Path,
    result: ViewStructureResult,
    matched: int,
    kept: int,
    walk: Walk,
) -> list[str]:
    """Hints for a page of a listing of ``matched`` entries, ``kept`` of them after limit."""
    pagination = result.pagination
    assert pagination is not None
    if not result.entries:
        past = _past_last_page("localViewStructure", query, pagination) if matched else None
        if past is not None:
            return [past]
        relax = []
        if query.pattern:
            relax.append(f"drop pattern '{query.pattern}'")
        if query.wanted_extensions:
            relax.append("drop extension/extensions")
        if query.filesOnly or query.directoriesOnly:
            relax.append("drop filesOnly/directoriesOnly")
        if query.effective_depth < 5:
            relax.append("go deeper with recursive=true")
        if not query.hidden:
            relax.append("hidden=true (dot-entries are skipped)")
        if not query.noIgnore:
            relax.append("noIgnore=true (.gitignore'd entries are skipped)")
        hints = ["Nothing matched. Relax: " + "; ".join(relax) + "."]
        if not walk.files and not walk.dirs:
            hints.append("Directories show only when they hold a visible file (like git).")
        return hints
    hints = []
    if pagination.hasMore:
        hints.append(
            "Next page: localViewStructure "
            + _as_call(query, entryPageNumber=query.entryPageNumber + 1)
        )
    if matched > kept:
        hints.append(f"limit kept {kept} of {matched} entries: raise limit or add filters.")
    if matched > MANY_RESULTS:
        hints.append(
            f"{matched} entries: narrow with pattern, extensions, filesOnly/directoriesOnly, "
            "or list a sub-directory."
        )
    dirs = [e.name for e in result.entries if e.type == "dir"]
    if dirs and query.effective_depth == 1 and not query.recursive:
        inside = compact_json({"path": str(start / dirs[0])})
        hints.append(f'Look inside: localViewStructure {inside} or add "depth":2.')
    files = [(e.name, bool(e.sensitive)) for e in result.entries if e.type == "file"]
    return hints + _next_steps(start, files)


def find_hints(
    query: FindFilesQuery, start: Path, result: FindFilesResult, matched: int
) -> list[str]:
    """Hints for a page of ``matched`` entries found (``result.totalCount`` kept)."""
    pagination = result.pagination
    assert pagination is not None
    if not result.files:
        past = _past_last_page("localFindFiles", query, pagination) if matched else None
        if past is not None:
            return [past]
        relax = [
            f"{field} {value!r}"
            for field, value in (
                ("name", query.name),
                ("iname", query.iname),
                ("names", query.names),
                ("type", query.type),
                ("modifiedWithin", query.modifiedWithin),
                ("modifiedBefore", query.modifiedBefore),
                ("sizeGreater", query.sizeGreater),
                ("sizeLess", query.sizeLess),
                ("permissions", query.permissions),
                ("executable", query.executable),
                ("readable", query.readable),
                ("writable", query.writable),
                ("minDepth", query.minDepth),
                ("excludeDir", query.excludeDir),
            )
            if value is not None
        ]
        advice = ["drop or loosen " + ", ".join(relax)] if relax else []
        if query.maxDepth < 10:
            advice.append(f"raise maxDepth (now {query.maxDepth})")
        if not query.hidden:
            advice.append("hidden=true (dot-entries are skipped)")
        if not query.noIgnore:
            advice.append("noIgnore=true (.gitignore'd entries are skipped)")
        return ["Nothing matched. Relax: " + "; ".join(advice) + "."]
    hints = []
    if pagination.hasMore:
        hints.append(
            "Next page: localFindFiles " + _as_call(query, filePageNumber=query.filePageNumber + 1)
        )
    if matched > result.totalCount:
        hints.append(
            f"limit kept the {result.totalCount} newest of {matched} matches: raise limit "
            "(up to 10000) or narrow the filters."
        )
    if matched > MANY_RESULTS:
        hints.append(
            f"{matched} matches: narrow with name, type, modifiedWithin, sizeGreater or excludeDir."
        )
    files = [(f.path, bool(f.sensitive)) for f in result.files if f.type == "file"]
    return hints + _next_steps(start, files)


def truncated_hint(timeout_ms: int) -> str:
    """What to do when the walk stopped at its file cap or deadline."""
    return (
        f"The walk stopped early ({MAX_SCANNED_FILES} files or {timeout_ms} ms): totals are "
        "partial; start from a sub-directory or add excludeDir / filters."
    )


def _as_call(query: ViewStructureQuery | FindFilesQuery, **changes: Any) -> str:
    """The query's own parameters (defaults and context left out) with ``changes``, as JSON."""
    return compact_json({**query.params(), **changes})


def _past_last_page(
    tool: str, query: ViewStructureQuery | FindFilesQuery, pagination: Pagination
) -> str | None:
    """The hint to the last page when ``query`` asked for one past it."""
    field = "entryPageNumber" if isinstance(query, ViewStructureQuery) else "filePageNumber"
    asked: int = getattr(query, field)
    if asked <= pagination.totalPages:
        return None
    return (
        f"Page {asked} is past the last page: "
        f"{tool} {_as_call(query, **{field: pagination.totalPages})}"
    )


def _next_steps(start: Path, files: list[tuple[str, bool]]) -> list[str]:
    """Hints to read a listed file (sensitive ones need an opt-in) and to search the directory.

    ``files`` are the page's files as (path relative to ``start``, sensitive).
    """
    hints = []
    plain = next((rel for rel, sensitive in files if not sensitive), None)
    if plain is not None:
        hints.append(f"Read a file: localGetFileContent {compact_json(read_params(start, plain))}")
    flagged = [rel for rel, sensitive in files if sensitive]
    if flagged:
        hints.append(
            f"{', '.join(flagged[:3])} may hold secrets (sensitive: true); to read one "
            f"(secrets redacted): localGetFileContent {compact_json(read_params(start, flagged[0]))}"
        )
    search = compact_json({"path": str(start), "pattern": "<regex>"})
    hints.append(f"Search inside: localSearchCode {search}")
    return hints
