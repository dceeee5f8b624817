"""localViewStructure: list a local directory, filtered, sorted, summarised and paged.

Sensitive files (.env, keys) are listed with ``sensitive: true``: a name reveals
nothing, and reading them is gated by localGetFileContent.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from functools import partial
from typing import Any

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_of
from octo.core.files.confined import Opened
from octo.local.listing.entries import Entry
from octo.local.listing.entries import Walk
from octo.local.listing.entries import WalkOptions
from octo.local.listing.entries import stat_entries
from octo.local.listing.file_walk import walk_listing
from octo.local.listing.hints import ListingPage
from octo.local.listing.hints import structure_hints
from octo.local.listing.hints import truncated_hint
from octo.local.listing.models import EntryType
from octo.local.listing.models import StructureEntry
from octo.local.listing.models import StructureSummary
from octo.local.listing.models import ViewStructureQuery
from octo.local.listing.models import ViewStructureResult


async def view_structure(
    ctx: QueryContext, query: ViewStructureQuery
) -> Answer[ViewStructureResult]:
    """List a directory: filter, sort, summarise, then page."""
    options = WalkOptions(
        max_depth=query.effective_depth,
        hidden=query.hidden,
        no_ignore=query.noIgnore,
        paths=ctx.paths,
        need_dirs=not query.filesOnly,
        need_symlinks=not (query.filesOnly or query.directoriesOnly),
    )
    start, walked, entries = await walk_listing(
        ctx, query.path, "localViewStructure", options, partial(_select, query=query)
    )
    files = [e for e in entries if e.type == "file"]
    summary = StructureSummary(
        totalFiles=len(files),
        totalDirs=sum(1 for e in entries if e.type == "dir"),
        totalSize=sum(e.size for e in files),
    )
    kept = entries[: query.limit] if query.limit else entries
    page, pagination = page_of(kept, query.entriesPerPage, query.entryPageNumber)
    result = ViewStructureResult(
        path=str(start),
        entries=[_structure_entry(e, query.details) for e in page],
        summary=summary,
        pagination=pagination,
        truncated=True if walked.truncated else None,
    )
    answer = Answer(result)
    listed = ListingPage(pagination, matched=len(entries), kept=len(kept))
    answer.hint(*structure_hints(query, start, result, listed, walked))
    if walked.truncated:
        answer.hint(truncated_hint(ctx.config.rg_timeout_ms))
    return answer


def _pattern_matcher(pattern: str) -> Callable[[Entry], bool]:
    needle = pattern.lower()
    on_path = "/" in needle
    if any(c in needle for c in "*?["):
        return lambda e: fnmatch.fnmatchcase((e.rel if on_path else e.name).lower(), needle)
    return lambda e: needle in (e.rel if on_path else e.name).lower()


def _extension(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return ext.lower() if dot and stem else ""


_ORDER: dict[str, Callable[[Entry], Any]] = {
    "name": lambda e: e.rel.lower(),
    "size": lambda e: (-e.size, e.rel.lower()),
    "time": lambda e: (-e.stat.st_mtime, e.rel.lower()),
    "extension": lambda e: (_extension(e.name), e.rel.lower()),
}


def _select(start: Opened, walked: Walk, query: ViewStructureQuery) -> list[Entry]:
    """The entries the query keeps, lstat'ed and sorted (in a worker thread)."""
    extensions = query.wanted_extensions

    def keep(rel: str, kind: EntryType) -> bool:
        if query.filesOnly and kind != "file":
            return False
        if query.directoriesOnly and kind != "dir":
            return False
        if extensions and kind != "dir":
            name = rel.rsplit("/", 1)[-1].lower()
            return any(name.endswith("." + ext) for ext in extensions)
        return True

    entries = stat_entries(start, walked, keep)
    if query.pattern:
        matches = _pattern_matcher(query.pattern)
        entries = [e for e in entries if matches(e)]
    entries.sort(key=_ORDER[query.sortBy])
    return entries


def _structure_entry(entry: Entry, details: bool) -> StructureEntry:
    return StructureEntry(
        name=entry.shown,
        type=entry.type if details or entry.type != "file" else None,
        size=entry.stat.st_size if details and entry.type == "file" else None,
        modified=entry.modified if details else None,
        permissions=entry.permissions if details else None,
        sensitive=entry.sensitive,
    )
