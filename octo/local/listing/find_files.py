"""localFindFiles: entries below a directory by name, extension, type, depth, time, size,
emptiness and permissions, most recently modified first (or by path or size)."""

from __future__ import annotations

import fnmatch
import os
import re
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import re2

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_of
from octo.core.files.confined import Opened
from octo.local.listing.entries import Entry
from octo.local.listing.entries import Walk
from octo.local.listing.file_walk import walk_listing
from octo.local.listing.find_select import Check
from octo.local.listing.find_select import find_walk
from octo.local.listing.find_select import select_entries
from octo.local.listing.hints import ListingPage
from octo.local.listing.hints import find_hints
from octo.local.listing.hints import truncated_hint
from octo.local.listing.models import EntryType
from octo.local.listing.models import FindFilesQuery
from octo.local.listing.models import FindFilesResult
from octo.local.listing.models import FoundFile

_TYPE_OF: dict[str, EntryType] = {"f": "file", "d": "dir", "l": "symlink"}


async def find_files(ctx: QueryContext, query: FindFilesQuery) -> Answer[FindFilesResult]:
    """Find entries by name, type, depth, time, size and permissions; newest first."""
    options = replace(
        find_walk(query, ctx.paths),
        need_dirs=query.type in (None, "d", "l"),
        need_symlinks=query.type in (None, "l"),
        need_empty_dirs=query.empty and query.type in (None, "d"),
    )
    start, walked, found = await walk_listing(
        ctx, query.path, "localFindFiles", options, partial(_select, query=query, now=time.time())
    )
    kept = found[: query.limit]
    page, pagination = page_of(kept, query.filesPerPage, query.filePageNumber)
    result = FindFilesResult(
        path=str(start),
        files=[_found_file(e, _asked(query)) for e in page],
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


def _access(path: Path, mode: int, kind: EntryType) -> bool:
    if kind == "symlink":
        # Judge the link itself: its target may lie outside the allowed roots.
        if os.access not in os.supports_follow_symlinks:
            return False
        return os.access(path, mode, follow_symlinks=False)
    return os.access(path, mode)


def _access_is(start: Opened, mode: int, wanted: bool, entry: Entry) -> bool:
    return _access(start.path / entry.rel, mode, entry.type) == wanted


def _select(start: Opened, walked: Walk, query: FindFilesQuery, now: float) -> list[Entry]:
    """The entries every filter keeps, in sortBy order (in a worker thread)."""
    checks: list[Check] = []
    if query.empty:
        empty_dirs = frozenset(walked.empty_dirs)
        checks.append(lambda e: e.rel in empty_dirs if e.type == "dir" else e.stat.st_size == 0)
        checks.append(lambda e: e.type != "symlink")
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
    kind = _TYPE_OF[query.type] if query.type else None
    return select_entries(
        start, walked, query, now, kind=kind, checks=checks, named=_name_rules(query)
    )


def _name_rules(query: FindFilesQuery) -> Callable[[str, EntryType], bool] | None:
    """The name regex (on the path below the start with fullPathMatch) and the file names
    left out, as one check of an entry's path and kind; None when the query has neither."""
    if query.pattern is None and not query.excludeFiles:
        return None
    options = re2.Options()
    options.log_errors = False
    regex = re2.compile(query.pattern, options=options) if query.pattern is not None else None
    excluded = (
        re.compile("|".join(fnmatch.translate(glob) for glob in query.excludeFiles))
        if query.excludeFiles
        else None
    )
    whole_path = query.fullPathMatch

    def keep(rel: str, kind: EntryType) -> bool:
        name = rel[rel.rfind("/") + 1 :]
        # A name that is not UTF-8 (its bytes kept as surrogates) is matched as shown.
        shown = (rel if whole_path else name).encode("utf-8", "surrogateescape")
        if regex is not None and regex.search(shown.decode("utf-8", "replace")) is None:
            return False
        return excluded is None or kind == "dir" or excluded.match(name) is None

    return keep


#: Every detail, a plain file's type (``file``) included.
_EVERY_DETAIL = frozenset({"fileType", "size", "modified", "permissions"})


def _asked(query: FindFilesQuery) -> frozenset[str]:
    """The details an entry carries besides its path: those the query sorts or filters by
    (the default sort is by modification time), or all with ``details``."""
    if query.details:
        return _EVERY_DETAIL
    asked: set[str] = set()
    if query.sortBy == "modified" or query.modifiedWithin or query.modifiedBefore:
        asked.add("modified")
    if query.sortBy == "size" or query.sizeGreater or query.sizeLess:
        asked.add("size")
    if query.permissions:
        asked.add("permissions")
    return frozenset(asked)


def _found_file(entry: Entry, asked: frozenset[str]) -> FoundFile:
    """``entry`` with the details ``asked`` for; the type of an entry that is not a plain
    file always."""
    size = entry.stat.st_size if entry.type == "file" else None
    return FoundFile(
        path=entry.shown,
        type=entry.type if entry.type != "file" or "fileType" in asked else None,
        size=size if "size" in asked else None,
        modified=entry.modified if "modified" in asked else None,
        permissions=entry.permissions if "permissions" in asked else None,
        sensitive=entry.sensitive,
    )
