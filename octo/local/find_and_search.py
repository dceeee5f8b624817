"""localFindAndSearchCode: localFindFiles' walk and filters choose the files, then
localSearchCode's passes search just those, in one call.

The walk (``rg --files``) applies the root, hidden and .gitignore rules and the search's own
file filters (type, globs), and prints only the names asked for; the size limit, hidden and
credential files are checked on the files kept. rg is then handed the chosen files by name,
so it does not walk the tree again, and a large set is split over runs below the
command-line limit. Its query and result models are here too.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel
from pydantic import Field

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import measured
from octo.core.files.confined import Opened
from octo.core.files.paths import is_hidden
from octo.core.formats import compact_json
from octo.core.queries import FieldAlias
from octo.core.secrets.sensitive import is_sensitive
from octo.local.checked_paths import opened_directory
from octo.local.listing.entries import Walk
from octo.local.listing.file_walk import walk_listing
from octo.local.listing.find_select import Check
from octo.local.listing.find_select import find_walk
from octo.local.listing.find_select import name_type_args
from octo.local.listing.find_select import select_entries
from octo.local.listing.hints import truncated_hint
from octo.local.listing.models import FIND_ALIASES
from octo.local.listing.models import FindFilters
from octo.local.listing.models import FindSort
from octo.local.search.handler import search_scope
from octo.local.search.hints import NO_FILE_SEARCHED
from octo.local.search.models import SEARCH_ALIASES
from octo.local.search.models import LocalSearchCodeResult
from octo.local.search.models import SearchFields
from octo.local.search.passes import SearchScope
from octo.local.search.passes import file_filter_args
from octo.local.search.passes import max_filesize
from octo.local.search.passes import timeout_ms
from octo.transports.ripgrep import RgQueue

TOOL = "localFindAndSearchCode"


async def find_and_search_code(
    ctx: QueryContext, query: FindAndSearchQuery
) -> Answer[FindAndSearchResult]:
    """Find files by name, extension, depth, time and size; search those for a pattern."""
    config = ctx.config
    started = time.monotonic()
    largest = max_filesize(config, query)
    options = replace(
        find_walk(query, ctx.paths),
        need_dirs=False,
        need_symlinks=False,
        file_filters=file_filter_args(query),
        narrowing=name_type_args(query, rg_type=query.type),
    )
    start, walked, found = await walk_listing(
        ctx,
        query.path,
        TOOL,
        options,
        partial(_found, query=query, now=time.time(), largest=largest),
        timeout_ms=timeout_ms(config, query),
    )
    kept = found[: query.fileLimit]
    chosen = [name for name, _size in kept]
    searching = time.monotonic()
    with await opened_directory(ctx.paths, start, query.path) as directory:
        rg = ctx.backend(RgQueue).place(ctx.arrived)
        size = sum(size for _name, size in kept)
        scope = SearchScope(directory, chosen, handed_bytes=size, rg=rg)
        searched = await search_scope(ctx, query, scope, TOOL)
    find = FindStats(
        searchedFileCount=len(chosen),
        truncated=walked.truncated or len(found) > len(chosen),
        findMs=round((searching - started) * 1000),
        searchMs=round((time.monotonic() - searching) * 1000),
    )
    result = searched.result.extended(FindAndSearchResult, find=find)
    if result.tokens is not None:
        result = measured(result, config.chars_per_token)
    answer = Answer(result)
    if len(found) > len(chosen):
        answer.hint(
            f"fileLimit searched the first {len(chosen)} of {len(found)} files found "
            f"({query.sortBy} order): raise fileLimit (up to {MAX_FILE_LIMIT}) or narrow "
            "name, extensions or excludeDir."
        )
    if walked.truncated:
        answer.hint(truncated_hint(timeout_ms(config, query)))
    if not chosen:
        # Said better than the search's own "no file passed the filters".
        answer.hint(_nothing_found(query, start))
        answer.hint(*(hint for hint in searched.hints if hint != NO_FILE_SEARCHED))
    else:
        answer.hint(*searched.hints)
    return answer


def _found(
    start: Opened, walked: Walk, query: FindAndSearchQuery, now: float, largest: int
) -> list[tuple[str, int]]:
    """The files every find filter keeps, up to ``largest`` bytes, in sortBy order, with
    their sizes; hidden and credential files only when asked for (in a worker thread)."""
    checks: list[Check] = [lambda e: e.stat.st_size <= largest]
    if not query.includeSensitive:
        checks.append(lambda e: not is_sensitive(e.rel))
    if not query.hidden:
        # rg shows hidden files a type or an include glob matches, asked for or not.
        checks.append(lambda e: not is_hidden(Path(e.rel), Path()))
    kept = select_entries(start, walked, query, now, kind="file", checks=checks)
    return [(e.rel, e.size) for e in kept]


def _nothing_found(query: FindAndSearchQuery, start: Path) -> str:
    listing = {"path": str(start), "maxDepth": query.maxDepth}
    if query.hidden:
        listing["hidden"] = True
    return (
        "No file passed the find filters (name, extensions, depth, modified, size, excludeDir, "
        "include/exclude, type), so nothing was searched; see what is there: localFindFiles "
        + compact_json(listing)
    )


#: Files searched when the query names no fileLimit; and the most it may name (spec 003).
DEFAULT_FILE_LIMIT = 2000
MAX_FILE_LIMIT = 10_000


class FindAndSearchQuery(FindFilters, SearchFields):
    """One find, then one search over the files found."""

    # The other fields mean what they mean in localFindFiles and localSearchCode, whose
    # tools/list schemas describe them: this one publishes only their shape.
    described_here = frozenset({"pattern", "path", "fileLimit", "sortBy"})

    fileLimit: int = Field(
        default=DEFAULT_FILE_LIMIT,
        ge=1,
        le=MAX_FILE_LIMIT,
        description="Files searched at most.",
    )
    sortBy: FindSort = Field(
        default="path",
        description="Order fileLimit keeps by.",
    )

    field_aliases: ClassVar[Mapping[str, FieldAlias]] = {
        **FIND_ALIASES,
        **SEARCH_ALIASES,
        "file_limit": FieldAlias("fileLimit"),
    }


class FindStats(BaseModel):
    """What the find handed to the search."""

    searchedFileCount: int = Field(description="Files the search read (at most fileLimit).")
    truncated: bool = Field(
        description="True when more files matched the filters than fileLimit, or the walk "
        "stopped early: only the first in sortBy order were searched."
    )
    findMs: int
    searchMs: int


class FindAndSearchResult(LocalSearchCodeResult):
    """localSearchCode's answer over the files found, and what the find chose."""

    find: FindStats
