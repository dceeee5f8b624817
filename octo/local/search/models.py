"""Query and result models of localSearchCode, whose search fields localFindAndSearchCode
shares.

``outputMode`` sets how much of a search an answer carries, cheapest first: totalOnly (the
counts), countOnly (files with their counts), summary (the top files with sample matches),
groupByFile (pages of files with their matching lines). A field that shapes what the mode
leaves out is refused with it, naming both, and the hint is the query without that field:
nothing a caller asks for is dropped silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated
from typing import Any
from typing import ClassVar
from typing import Literal
from typing import TypeVar

from pydantic import BaseModel
from pydantic import Field
from pydantic import PrivateAttr
from pydantic import field_validator
from pydantic import model_validator

from octo.contract.places import PlacedItem
from octo.contract.places import PlacesPart
from octo.contract.places import groups_field
from octo.core.budget import Pagination
from octo.core.budget import TokenInfo
from octo.core.formats import parse_size
from octo.core.queries import FieldAlias
from octo.core.queries import PageFields
from octo.core.queries import ToolQuery
from octo.core.queries import matching
from octo.core.queries import mendable
from octo.core.queries import optional
from octo.core.secrets.sensitive import HIDDEN_DESCRIPTION
from octo.core.secrets.sensitive import SENSITIVE_DESCRIPTION
from octo.local.models import SearchMatch
from octo.transports.ripgrep import MAX_FILESIZE_CAP

ResultT = TypeVar("ResultT", bound="LocalSearchCodeResult")

SearchMode = Literal["discovery", "paginated", "detailed"]
OutputMode = Literal["groupByFile", "totalOnly", "countOnly", "summary"]

#: What each mode sets; a parameter given explicitly in the query wins over its mode.
MODE_PRESETS: dict[str, dict[str, Any]] = {
    "discovery": {"filesOnly": True, "smartCase": True},
    "paginated": {"filesPerPage": 10, "matchesPerPage": 10, "smartCase": True},
    "detailed": {"contextLines": 3, "filesPerPage": 10, "matchesPerPage": 20, "smartCase": True},
}

#: Files on a countOnly page.
COUNT_PAGE_FILES = 200
#: A summary's files, and the sample matches shown of each.
SUMMARY_FILES = 3
SUMMARY_MATCHES = 2
#: The longest rg run a query may ask for (spec 003).
MAX_TIMEOUT_MS = 30_000

#: An encoding label as rg's -E takes it (the WHATWG names: "latin1", "utf-16le", "euc-jp").
_Encoding = Annotated[
    str,
    matching(
        r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,39}",
        'encoding \'{value}\' is not an encoding label: use e.g. "latin1", "utf-16", '
        '"shift_jis", or "auto"',
    ),
]
#: A ripgrep file type's name.
_TypeName = Annotated[
    str,
    matching(
        r"[A-Za-z0-9_+-]+",
        'type \'{value}\' is not a ripgrep file type name: use e.g. "py", "ts", "go"; or '
        "filter by name with include globs",
    ),
]

_PAGE_FIELDS = ("filesOnly", "matchesPerPage", "filesPerPage", "filePageNumber")
_AROUND_FIELDS = ("contextLines", "contextBefore", "contextAfter")

#: Per outputMode: what it answers with, and the fields that shape what it leaves out.
_OUTPUT_RULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "groupByFile": ("pages of files with their matching lines", ("countPageNumber",)),
    "totalOnly": (
        "the counts alone",
        (*_PAGE_FIELDS, *_AROUND_FIELDS, "columns", "countPageNumber"),
    ),
    "countOnly": (
        f"files with their match counts, {COUNT_PAGE_FILES} a page (countPageNumber)",
        (*_PAGE_FIELDS, *_AROUND_FIELDS, "columns"),
    ),
    "summary": (
        f"the {SUMMARY_FILES} files with most matches, {SUMMARY_MATCHES} sample matches each",
        (*_PAGE_FIELDS, "countPageNumber"),
    ),
}

_FILES = (
    "groupByFile: a page of files in path order; countOnly: a page of files, most matches "
    "first; summary: the files with most matches (absent with totalOnly)."
)
_COMPLETE = (
    "groupByFile: true when the counts cover every file searched, not only the files up to "
    "this page."
)

#: Spec 003's names (search_content's parameters and output formats) for the search fields.
SEARCH_ALIASES: dict[str, FieldAlias] = {
    "total_only": FieldAlias("outputMode", "totalOnly"),
    "count_only_matches": FieldAlias("outputMode", "countOnly"),
    "summary_only": FieldAlias("outputMode", "summary"),
    "group_by_file": FieldAlias("outputMode", "groupByFile"),
    "fixed_strings": FieldAlias("fixedString"),
    "context_before": FieldAlias("contextBefore"),
    "context_after": FieldAlias("contextAfter"),
    "include_globs": FieldAlias("include"),
    "exclude_globs": FieldAlias("exclude"),
    "max_filesize": FieldAlias("maxFilesize"),
    "timeout_ms": FieldAlias("timeoutMs"),
    "no_ignore": FieldAlias("noIgnore"),
    "query": FieldAlias("pattern"),
    "dir": FieldAlias("path"),
    "directory": FieldAlias("path"),
}


class SearchFields(ToolQuery):
    """What to search for and how much of it to answer with."""

    pattern: str = Field(min_length=1, description="Regex (literal: fixedString).")
    path: str = Field(
        min_length=1, description="Directory (or file) to search: absolute or root-relative."
    )
    mode: SearchMode | None = None
    outputMode: OutputMode = Field(
        default="groupByFile",
        description=f"countOnly: files; summary: top {SUMMARY_FILES}; groupByFile: lines.",
    )
    fixedString: bool = Field(default=False)
    word: bool = Field(default=False)
    smartCase: bool = Field(default=True, description="Ignore case if pattern is lowercase.")
    caseInsensitive: bool = Field(default=False)
    multiline: bool = Field(default=False)
    type: _TypeName | None = optional("rg type: py, ts...")
    include: list[str] | None = None
    exclude: list[str] | None = None
    filesOnly: bool = Field(default=False)
    contextLines: int | None = optional("Around each match.", ge=0, le=50)
    contextBefore: int | None = Field(default=None, ge=0, le=50)
    contextAfter: int | None = Field(default=None, ge=0, le=50)
    matchesPerPage: int = Field(default=10, ge=1, le=100, description="Per file.")
    filesPerPage: int = Field(default=10, ge=1, le=20)
    filePageNumber: int = Field(default=1, ge=1)
    countPageNumber: int = Field(default=1, ge=1)
    columns: bool = Field(default=False)
    maxFilesize: str | None = optional('"500k", "10M".')
    encoding: _Encoding | None = optional("rg -E, e.g. latin1.")
    maxCount: int | None = optional("rg -m: lines a file.", ge=1)
    timeoutMs: int | None = Field(default=None, ge=100, le=MAX_TIMEOUT_MS)
    hidden: bool = Field(default=False, description=HIDDEN_DESCRIPTION)
    noIgnore: bool = Field(default=False, description=".gitignored files too.")
    includeSensitive: bool = Field(default=False, description=SENSITIVE_DESCRIPTION)

    field_aliases: ClassVar[Mapping[str, FieldAlias]] = SEARCH_ALIASES

    @field_validator("include", "exclude", mode="before")
    @classmethod
    def _one_glob_is_a_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("include", "exclude")
    @classmethod
    def _globs_not_blank(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and any(not glob.strip() for glob in value):
            raise ValueError("glob patterns must not be empty")
        return value

    @field_validator("maxFilesize")
    @classmethod
    def _size_within_cap(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if parse_size(value) < 1:
            raise ValueError('maxFilesize must be at least 1 byte, e.g. "10M"')
        if parse_size(value) > MAX_FILESIZE_CAP:
            raise mendable(f"maxFilesize {value} is above the cap of 200M", maxFilesize="200M")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> SearchFields:
        given = set(self.model_fields_set)
        if self.caseInsensitive and "smartCase" in given and not self.smartCase:
            raise mendable(
                "caseInsensitive and smartCase: false are exclusive: one ignores case, the "
                "other keeps it; drop smartCase",
                smartCase=None,
            )
        sides = sorted(given & {"contextBefore", "contextAfter"})
        if sides and self.contextLines is not None:
            raise mendable(
                f"contextLines and {' and '.join(sides)} are exclusive: use contextBefore and "
                "contextAfter alone",
                contextLines=None,
                contextBefore=self.context_before,
                contextAfter=self.context_after,
            )
        answers, excluded = _OUTPUT_RULES[self.outputMode]
        clashing = [name for name in excluded if name in given]
        if clashing:
            raise mendable(
                f"outputMode {self.outputMode} and {', '.join(clashing)} do not go together: "
                f"{self.outputMode} answers with {answers}; drop {', '.join(clashing)}",
                **dict.fromkeys(clashing),
            )
        if self.mode is not None:
            for name, value in MODE_PRESETS[self.mode].items():
                if name not in given and not (name == "contextLines" and sides):
                    setattr(self, name, value)
        return self

    @property
    def context_before(self) -> int:
        """Context lines before each match."""
        return self.contextBefore if self.contextBefore is not None else self.contextLines or 0

    @property
    def context_after(self) -> int:
        """Context lines after each match."""
        return self.contextAfter if self.contextAfter is not None else self.contextLines or 0


class LocalSearchCodeQuery(SearchFields):
    """One ripgrep search."""


class MatchPagination(BaseModel):
    """Present only when a file has more matching lines than matchesPerPage."""

    currentPage: int = 1
    hasMore: bool
    matchesOnPage: int


class SearchFile(PlacedItem):
    """A file with matches; ``path`` is relative to the result's ``root`` (and ``place``)."""

    path: str
    matchCount: int | None = optional("Matching lines in the file (absent with filesOnly).")
    matches: list[SearchMatch] | None = optional(
        "The first matchesPerPage matching lines (summary: sample matches; absent "
        "with filesOnly and countOnly)."
    )
    pagination: MatchPagination | None = None


class SearchStats(BaseModel):
    """What the search covered."""

    filesSearched: int | None = optional(
        "Files rg read, as it counted them (credential files included: without "
        "includeSensitive their matches are dropped, never shown)."
    )
    filesWithMatches: int
    totalMatches: int = Field(description="Matching lines.")
    searchTimeMs: int
    complete: bool | None = optional(_COMPLETE)
    cappedAt: int | None = optional(
        "maxCount, when a file reached it: its count, and the totals, stop there."
    )


class LocalSearchCodeResult(PlacesPart):
    """Files matching a pattern: a page of them, their counts, or the counts alone."""

    items_field: ClassVar[str | None] = "files"
    page_fields: ClassVar[PageFields | None] = PageFields("filePageNumber", "filesPerPage")

    root: str | None = optional("The searched directory; file paths are relative to it.")
    files: list[SearchFile] | None = optional(_FILES)
    otherFiles: int | None = optional("summary: files with matches beyond those shown.")
    stats: SearchStats
    pagination: Pagination | None = optional("groupByFile: file pages; countOnly: count pages.")
    tokens: TokenInfo | None = optional(
        "Size of the answer; matches beyond the token budget are left out "
        "(truncated) and paginationHint says how to read them."
    )
    # Pages of lines may run past the last file; count answers are empty only without matches.
    groups: list[LocalSearchCodeResult] | None = groups_field("place")
    _empty_without_files: bool = PrivateAttr(default=True)

    @classmethod
    def paged_by(cls, query: ToolQuery) -> PageFields | None:
        """groupByFile pages its files by the query; the count answers page themselves
        (countPageNumber) or not at all."""
        grouped = isinstance(query, SearchFields) and query.outputMode == "groupByFile"
        return cls.page_fields if grouped else None

    def status_from_stats(self) -> LocalSearchCodeResult:
        """This answer, empty only when nothing matched (not when its page holds no file)."""
        self._empty_without_files = False
        return self

    def extended(self, cls: type[ResultT], **fields: Any) -> ResultT:
        """This answer as ``cls``, a result model adding ``fields``; its status rule kept."""
        extended = cls(**dict(self), **fields)
        extended._empty_without_files = self._empty_without_files
        return extended

    def found_nothing(self) -> bool:
        if self._empty_without_files:
            return not self.files
        return self.stats.filesWithMatches == 0
