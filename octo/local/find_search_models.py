"""Query and result models of localFindAndSearchCode: localFindFiles' filters choose the
files, localSearchCode's search fields say what to look for in them and how to answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import BaseModel
from pydantic import Field

from octo.core.envelope import FieldAlias
from octo.local.listing.models import FIND_ALIASES
from octo.local.listing.models import FindFilters
from octo.local.listing.models import FindSort
from octo.local.search.models import SEARCH_ALIASES
from octo.local.search.models import LocalSearchCodeResult
from octo.local.search.models import SearchFields

#: Files searched when the query names no fileLimit; and the most it may name (spec 003).
DEFAULT_FILE_LIMIT = 2000
MAX_FILE_LIMIT = 10_000


class FindAndSearchQuery(FindFilters, SearchFields):
    """One find, then one search over the files found."""

    fileLimit: int = Field(
        default=DEFAULT_FILE_LIMIT,
        ge=1,
        le=MAX_FILE_LIMIT,
        description=f"Search at most this many of the files found, the first in sortBy order "
        f"(1-{MAX_FILE_LIMIT}).",
    )
    sortBy: FindSort = Field(
        default="path",
        description="Which files fileLimit keeps: path (A to Z), modified (newest first) or "
        "size (largest first).",
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
