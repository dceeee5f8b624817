"""The next calls a localViewStructure or localFindFiles answer suggests: the next page,
reading a listed file, searching the directory, and what to relax when nothing matched."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from octo.core.budget import Pagination
from octo.core.budget import page_hints
from octo.core.files.paths import is_generated
from octo.core.formats import compact_json
from octo.local.checked_paths import read_params
from octo.local.listing.entries import MAX_SCANNED_FILES
from octo.local.listing.entries import Walk
from octo.local.listing.models import FindFilesQuery
from octo.local.listing.models import FindFilesResult
from octo.local.listing.models import ViewStructureQuery
from octo.local.listing.models import ViewStructureResult

#: Matches beyond which the answer suggests narrowing filters.
MANY_RESULTS = 100


@dataclass(frozen=True)
class ListingPage:
    """The page an answer shows, of ``matched`` entries (every filter passed), ``kept`` of
    them within the query's limit."""

    pagination: Pagination
    matched: int
    kept: int


def structure_hints(
    query: ViewStructureQuery,
    start: Path,
    result: ViewStructureResult,
    page: ListingPage,
    walk: Walk,
) -> list[str]:
    """Hints for a page of a directory listing."""
    tool = "localViewStructure"
    if not result.entries:
        return _page_hints(tool, query, page) or _relax_structure(query, walk)
    hints = _page_hints(tool, query, page)
    if page.matched > page.kept:
        hints.append(
            f"limit kept {page.kept} of {page.matched} entries: raise limit or add filters."
        )
    if page.matched > MANY_RESULTS:
        hints.append(
            f"{page.matched} entries: narrow with pattern, extensions, filesOnly/directoriesOnly, "
            "or list a sub-directory."
        )
    # Never into what tools fill (__pycache__, node_modules, .git): nothing to learn there.
    dirs = [e.name for e in result.entries if e.type == "dir" and not is_generated(e.name)]
    if dirs and query.effective_depth == 1 and not query.recursive:
        inside = compact_json({"path": str(start / dirs[0])})
        hints.append(f'Look inside: localViewStructure {inside} or add "depth":2.')
    files = [(e.name, bool(e.sensitive)) for e in result.entries if e.type is None]
    return hints + _next_steps(start, files)


def find_hints(
    query: FindFilesQuery, start: Path, result: FindFilesResult, page: ListingPage
) -> list[str]:
    """Hints for a page of entries found."""
    tool = "localFindFiles"
    if not result.files:
        return _page_hints(tool, query, page) or [_relax_find(query)]
    hints = _page_hints(tool, query, page)
    if page.matched > page.kept:
        hints.append(
            f"limit kept the first {page.kept} of {page.matched} matches ({query.sortBy} "
            "order): raise limit (up to 10000) or narrow the filters."
        )
    if page.matched > MANY_RESULTS:
        hints.append(
            f"{page.matched} matches: narrow with name, type, modifiedWithin, sizeGreater or "
            "excludeDir."
        )
    # A plain file's type is left out unless details were asked for.
    files = [(f.path, bool(f.sensitive)) for f in result.files if f.type in (None, "file")]
    return hints + _next_steps(start, files)


def truncated_hint(timeout_ms: int) -> str:
    """What to do when the walk stopped at its file cap or deadline."""
    return (
        f"The walk stopped early ({MAX_SCANNED_FILES} files or {timeout_ms} ms): totals are "
        "partial; start from a sub-directory or add excludeDir / filters."
    )


def _relax_structure(query: ViewStructureQuery, walk: Walk) -> list[str]:
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


def _relax_find(query: FindFilesQuery) -> str:
    relax = [
        f"{field} {value!r}"
        for field, value in (
            ("name", query.name),
            ("iname", query.iname),
            ("names", query.names),
            ("extensions", query.extensions),
            ("type", query.type),
            ("empty", query.empty or None),
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
    return "Nothing matched. Relax: " + "; ".join(advice) + "."


def _page_hints(
    tool: str, query: ViewStructureQuery | FindFilesQuery, page: ListingPage
) -> list[str]:
    """The call for the next page, or for the last one when the query asked past it."""
    field = "entryPageNumber" if isinstance(query, ViewStructureQuery) else "filePageNumber"
    return page_hints(tool, query.params(), field, page.pagination, page.matched)


#: Compiled files and caches nobody reads for research (bytecode, object files).
_BUILD_OUTPUT_SUFFIXES = (".pyc", ".pyo", ".o", ".so", ".class", ".dll", ".dylib", ".exe")
_BUILD_OUTPUT_DIRS = frozenset({"__pycache__", "node_modules", ".mypy_cache", ".ruff_cache"})


def is_build_output(rel: str) -> bool:
    """True for a compiled file or one inside a cache folder: no file to suggest reading."""
    parts = rel.split("/")
    return rel.endswith(_BUILD_OUTPUT_SUFFIXES) or not _BUILD_OUTPUT_DIRS.isdisjoint(parts[:-1])


def _next_steps(start: Path, files: list[tuple[str, bool]]) -> list[str]:
    """Hints to read a listed file (sensitive ones need an opt-in) and to search the directory.

    ``files`` are the page's files as (path relative to ``start``, sensitive).
    """
    hints = []
    plain = next(
        (rel for rel, sensitive in files if not sensitive and not is_build_output(rel)), None
    )
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
