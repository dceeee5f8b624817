"""localFindFiles: entries below a directory by name, type, depth, time, size and
permissions, most recently modified first."""

from __future__ import annotations

import fnmatch
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.formats import parse_duration
from octo.core.formats import parse_size
from octo.core.paging import page_of
from octo.local.listing_hints import ListingPage
from octo.local.listing_hints import find_hints
from octo.local.listing_hints import truncated_hint
from octo.local.listing_models import EntryType
from octo.local.listing_models import FindFilesQuery
from octo.local.listing_models import FindFilesResult
from octo.local.listing_models import FoundFile
from octo.local.walk import Entry
from octo.local.walk import Walk
from octo.local.walk import stat_entries
from octo.local.walk import walk_listing

_TYPE_OF: dict[str, EntryType] = {"f": "file", "d": "dir", "l": "symlink"}


async def find_files(ctx: QueryContext, query: FindFilesQuery) -> Answer[FindFilesResult]:
    """Find entries by name, type, depth, time, size and permissions; newest first."""
    start, walked = await walk_listing(
        ctx,
        query,
        "localFindFiles",
        max_depth=query.maxDepth,
        need_dirs=query.type in (None, "d", "l"),
        need_symlinks=query.type in (None, "l"),
        exclude_dirs=query.excludeDir or (),
    )
    found = await anyio.to_thread.run_sync(partial(_select, start, walked, query, time.time()))
    kept = found[: query.limit]
    page, pagination = page_of(kept, query.filesPerPage, query.filePageNumber)
    result = FindFilesResult(
        path=str(start),
        files=[_found_file(e) for e in page],
        totalCount=len(kept),
        pagination=pagination,
        truncated=True if walked.truncated or len(found) > len(kept) else None,
    )
    answer = Answer(result)
    listed = ListingPage(pagination, matched=len(found), kept=len(kept))
    answer.hint(*find_hints(query, start, result, listed))
    if walked.truncated:
        answer.hint(truncated_hint(ctx.config.rg_timeout_ms))
    return answer


def _name_matcher(patterns: list[tuple[str, bool]]) -> Callable[[str], bool]:
    if not patterns:
        return lambda _name: True
    compiled = [(p if sensitive else p.lower(), sensitive) for p, sensitive in patterns]
    return lambda name: any(
        fnmatch.fnmatchcase(name if sensitive else name.lower(), p) for p, sensitive in compiled
    )


def _access(path: Path, mode: int, kind: EntryType) -> bool:
    if kind == "symlink":
        # Judge the link itself: its target may lie outside the allowed roots.
        if os.access not in os.supports_follow_symlinks:
            return False
        return os.access(path, mode, follow_symlinks=False)
    return os.access(path, mode)


def _access_is(start: Path, mode: int, wanted: bool, entry: Entry) -> bool:
    return _access(start / entry.rel, mode, entry.type) == wanted


def _select(start: Path, walked: Walk, query: FindFilesQuery, now: float) -> list[Entry]:
    """The entries every filter keeps, lstat'ed, newest first (in a worker thread)."""
    names = _name_matcher(query.name_patterns)
    wanted_type = _TYPE_OF[query.type] if query.type else None
    min_depth = max(query.minDepth or 1, 1)

    def keep(rel: str, kind: EntryType) -> bool:
        if wanted_type is not None and kind != wanted_type:
            return False
        if (query.sizeGreater or query.sizeLess) and kind != "file":
            return False
        depth = rel.count("/") + 1
        return min_depth <= depth <= query.maxDepth and names(rel.rsplit("/", 1)[-1])

    checks: list[Callable[[Entry], bool]] = []
    if query.modifiedWithin:
        newest = now - parse_duration(query.modifiedWithin)
        checks.append(lambda e: e.stat.st_mtime >= newest)
    if query.modifiedBefore:
        oldest = now - parse_duration(query.modifiedBefore)
        checks.append(lambda e: e.stat.st_mtime < oldest)
    if query.sizeGreater:
        above = parse_size(query.sizeGreater)
        checks.append(lambda e: e.stat.st_size > above)
    if query.sizeLess:
        below = parse_size(query.sizeLess)
        checks.append(lambda e: e.stat.st_size < below)
    if query.permissions:
        mode = int(query.permissions, 8)
        mask = 0o7777 if len(query.permissions) == 4 else 0o777
        checks.append(lambda e: e.stat.st_mode & mask == mode)
    for flag, access in (
        (query.executable, os.X_OK),
        (query.readable, os.R_OK),
        (query.writable, os.W_OK),
    ):
        if flag is not None:
            checks.append(partial(_access_is, start, access, flag))

    entries = [e for e in stat_entries(start, walked, keep) if all(c(e) for c in checks)]
    entries.sort(key=lambda e: (-e.stat.st_mtime, e.rel))
    return entries


def _found_file(entry: Entry) -> FoundFile:
    return FoundFile(
        path=entry.shown,
        type=entry.type,
        size=entry.stat.st_size if entry.type == "file" else None,
        modified=entry.modified,
        permissions=entry.permissions,
        sensitive=entry.sensitive,
    )
