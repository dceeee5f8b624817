"""Query and result models of localViewStructure and localFindFiles.

Every rule of the spec's tables lives here, so a bad query fails alone with a
VALIDATION_ERROR naming the field. Durations ("7d") and sizes ("10M") are
parsed by octo.core.formats, for validation and filtering alike.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Annotated
from typing import ClassVar
from typing import Literal

from pydantic import AfterValidator
from pydantic import BaseModel
from pydantic import Field
from pydantic import field_validator
from pydantic import model_validator

from octo.contract.places import PlacedItem
from octo.contract.places import PlacesPart
from octo.contract.places import groups_field
from octo.core.budget import Pagination
from octo.core.formats import parse_duration
from octo.core.formats import parse_size
from octo.core.queries import FieldAlias
from octo.core.queries import PageFields
from octo.core.queries import ToolQuery
from octo.core.queries import is_text
from octo.core.queries import matching
from octo.core.queries import mendable
from octo.core.queries import optional

EntryType = Literal["file", "dir", "symlink"]
#: What both listings may say of an entry besides its name, type, size and age.
Permissions = Annotated[str | None, Field(description='Octal mode, e.g. "644".')]
Sensitive = Annotated[
    bool | None,
    Field(
        description="True for files that usually hold secrets (.env, keys): "
        "listed, but reading them needs an explicit opt-in."
    ),
]

#: A find filter's permissions: an octal mode.
_OctalMode = Annotated[
    str,
    matching(
        r"[0-7]{3,4}", "'{value}' is not an octal mode: use 3 or 4 octal digits, e.g. \"755\""
    ),
]


def normalize_extension(ext: str) -> str:
    """ "ts", ".ts" and "TS" all mean the extension ``ts``."""
    return ext.strip().lstrip(".").lower()


def _below(low: str | None, high: str | None, parse: Callable[[str], int]) -> bool:
    """False only when both bounds are given and ``low`` does not parse below ``high``."""
    return low is None or high is None or parse(low) < parse(high)


def _read_by(parse: Callable[[str], int]) -> AfterValidator:
    """A check that a text reads as ``parse`` reads it; the field keeps the text."""

    def check(value: str) -> str:
        # A lone surrogate is not read: ToolQuery's own check names it.
        if is_text(value):
            parse(value)
        return value

    return AfterValidator(check)


#: A find filter's age ("30m", "7d") and size ("10M"), kept as written once they read.
Duration = Annotated[str, _read_by(parse_duration)]
Size = Annotated[str, _read_by(parse_size)]

#: Names a model reaches for when it means ``path``.
PATH_ALIASES: dict[str, FieldAlias] = {"dir": FieldAlias("path"), "directory": FieldAlias("path")}


class ListingQuery(ToolQuery):
    """Fields both listing tools share: the start directory and what the walk may enter."""

    field_aliases: ClassVar[Mapping[str, FieldAlias]] = PATH_ALIASES

    path: str = Field(min_length=1, description="Directory: absolute or root-relative.")
    hidden: bool = Field(default=False, description="Dot-entries too.")
    noIgnore: bool = Field(default=False, description=".gitignored entries too.")


class ViewStructureQuery(ListingQuery):
    """One localViewStructure query."""

    depth: int | None = optional("Levels (1: children; 5 with recursive).", ge=1, le=5)
    recursive: bool = Field(default=False, description="Nested levels too.")
    details: bool = Field(default=False, description="Add size, modified, permissions.")
    sortBy: Literal["name", "size", "time", "extension"] = Field(
        default="name", description="time newest first, size largest first."
    )
    filesOnly: bool = Field(default=False)
    directoriesOnly: bool = Field(default=False)
    extension: str | None = optional("Only this extension.", min_length=1)
    extensions: list[str] | None = optional("Only these extensions.", min_length=1)
    pattern: str | None = optional("Name glob or substring, case-insensitive.", min_length=1)
    entriesPerPage: int = Field(default=20, ge=1, le=20)
    entryPageNumber: int = Field(default=1, ge=1)
    limit: int | None = optional("At most this many entries.", ge=1, le=10000)

    @model_validator(mode="after")
    def _one_kind_filter(self) -> ViewStructureQuery:
        if self.filesOnly and self.directoriesOnly:
            raise ValueError(
                "filesOnly and directoriesOnly are mutually exclusive: set at most one"
            )
        return self

    @property
    def effective_depth(self) -> int:
        return self.depth or (5 if self.recursive else 1)

    @property
    def wanted_extensions(self) -> frozenset[str]:
        given = [*(self.extensions or []), *([self.extension] if self.extension else [])]
        return frozenset(normalize_extension(e) for e in given if normalize_extension(e))


class StructureEntry(PlacedItem):
    """One entry of a directory listing."""

    name: str = Field(description="Path relative to the listed directory.")
    type: EntryType | None = optional("Absent for a plain file (unless details).")
    size: int | None = optional("Bytes (files, with details).")
    modified: str | None = optional("ISO 8601 UTC (with details).")
    permissions: Permissions = None
    sensitive: Sensitive = None


class StructureSummary(BaseModel):
    """Totals over every entry that matched the filters (before limit and paging)."""

    totalFiles: int
    totalDirs: int
    totalSize: int = Field(description="Bytes of the matched files.")


class ViewStructureResult(PlacesPart):
    """A page of a directory listing."""

    items_field: ClassVar[str] = "entries"
    page_fields: ClassVar[PageFields | None] = PageFields("entryPageNumber", "entriesPerPage")

    path: str = Field(description="The listed directory (absolute).")
    entries: list[StructureEntry]
    summary: StructureSummary
    pagination: Pagination | None = None
    truncated: bool | None = optional(
        "True when the walk stopped early (time or size cap): totals are partial."
    )
    groups: list[ViewStructureResult] | None = groups_field("place")


FindSort = Literal["modified", "path", "size"]

#: Spec 003's names (list_files' parameters) for the find filters.
FIND_ALIASES: dict[str, FieldAlias] = {
    **PATH_ALIASES,
    "full_path_match": FieldAlias("fullPathMatch"),
    "changed_within": FieldAlias("modifiedWithin"),
    "changed_before": FieldAlias("modifiedBefore"),
    "no_ignore": FieldAlias("noIgnore"),
    "depth": FieldAlias("maxDepth"),
}


class FindFilters(ListingQuery):
    """Which entries a find keeps: localFindFiles' filters, which localFindAndSearchCode
    shares."""

    name: str | None = optional("Name glob.", min_length=1)
    iname: str | None = optional("Glob, any case.", min_length=1)
    names: list[str] | None = optional("Globs (any).", min_length=1)
    extensions: list[str] | None = optional('E.g. "py".', min_length=1)
    fullPathMatch: bool = Field(default=False, description="Match the path below path.")
    maxDepth: int = Field(default=5, ge=1, le=10, description="1: children.")
    minDepth: int | None = Field(default=None, ge=0, le=10)
    modifiedWithin: Duration | None = optional('Age below: "30m", "7d".')
    modifiedBefore: Duration | None = None
    sizeGreater: Size | None = optional('"500k", "10M".')
    sizeLess: Size | None = None
    excludeDir: list[str] | None = None
    sortBy: FindSort = Field(default="modified")

    field_aliases: ClassVar[Mapping[str, FieldAlias]] = FIND_ALIASES

    @field_validator("names")
    @classmethod
    def _names_not_blank(cls, value: list[str] | None) -> list[str] | None:
        for item in value or []:
            if not item:
                raise ValueError('name patterns must not be empty, e.g. "*.py"')
        return value

    @field_validator("extensions")
    @classmethod
    def _extensions_not_blank(cls, value: list[str] | None) -> list[str] | None:
        for item in value or []:
            if not normalize_extension(item) or "/" in item:
                raise ValueError(f'\'{item}\' is not an extension: use e.g. "py" or "d.ts"')
        return value

    @field_validator("excludeDir")
    @classmethod
    def _valid_excludes(cls, value: list[str] | None) -> list[str] | None:
        for item in value or []:
            cleaned = item.strip().strip("/").removeprefix("./")
            if not cleaned or ".." in cleaned.split("/"):
                raise ValueError(
                    f"'{item}' is not a directory to exclude: use a name or a path below the "
                    'start directory, e.g. "node_modules"'
                )
        return value

    @model_validator(mode="after")
    def _consistent_filters(self) -> FindFilters:
        if not self.fullPathMatch:
            for field, value in self._name_globs():
                if "/" in value:
                    raise mendable(
                        f"{field} '{value}' has a '/': name patterns match entry names; start "
                        "from a sub-directory with path, or set fullPathMatch: true to match "
                        "the path below it",
                        fullPathMatch=True,
                    )
        if self.minDepth is not None and self.minDepth > self.maxDepth:
            raise ValueError(
                f"minDepth ({self.minDepth}) must not exceed maxDepth ({self.maxDepth})"
            )
        if not _below(self.sizeGreater, self.sizeLess, parse_size):
            raise ValueError(
                f"sizeGreater ({self.sizeGreater}) must be below sizeLess ({self.sizeLess})"
            )
        if not _below(self.modifiedBefore, self.modifiedWithin, parse_duration):
            raise ValueError(
                f"modifiedBefore ({self.modifiedBefore}) must be shorter than "
                f"modifiedWithin ({self.modifiedWithin}) or no entry can match"
            )
        return self

    def _name_globs(self) -> list[tuple[str, str]]:
        return [
            *([("name", self.name)] if self.name else []),
            *([("iname", self.iname)] if self.iname else []),
            *(("names", item) for item in self.names or []),
        ]

    @property
    def name_patterns(self) -> list[tuple[str, bool]]:
        """Every name glob with whether it is case-sensitive; empty means any name."""
        patterns = [(p, True) for p in [*([self.name] if self.name else []), *(self.names or [])]]
        if self.iname:
            patterns.append((self.iname, False))
        return patterns

    @property
    def wanted_extensions(self) -> tuple[str, ...]:
        """The extensions asked for, lower-case, each with its dot (".py")."""
        return tuple(f".{normalize_extension(ext)}" for ext in self.extensions or [])


class FindFilesQuery(FindFilters):
    """One localFindFiles query."""

    pattern: str | None = optional("Name regex (RE2).")
    excludeFiles: list[str] | None = optional("Name globs to skip.")
    type: Literal["f", "d", "l"] | None = optional("file, directory, symlink.")
    empty: bool = Field(default=False)
    permissions: _OctalMode | None = optional('Octal, e.g. "755".')
    executable: bool | None = None
    readable: bool | None = None
    writable: bool | None = None
    details: bool = Field(default=False, description="Every detail.")
    filesPerPage: int = Field(default=20, ge=1, le=20)
    filePageNumber: int = Field(default=1, ge=1)
    limit: int = Field(default=1000, ge=1, le=10000)

    @field_validator("pattern")
    @classmethod
    def _re2_pattern(cls, value: str | None) -> str | None:
        if value is not None and is_text(value):
            import re2  # not at import: listing the tools loads this module

            options = re2.Options()
            options.log_errors = False  # the caller's error is answered, not logged on stderr
            try:
                re2.compile(value, options=options)
            except re2.error as exc:
                raise ValueError(
                    f"pattern '{value}' is not a regex RE2 takes ({exc}): it matches names "
                    'with RE2\'s syntax, e.g. "^test_.*\\.py$" (no look-around or '
                    "back-references); for a glob use name"
                ) from None
        return value

    @field_validator("excludeFiles")
    @classmethod
    def _name_globs_only(cls, value: list[str] | None) -> list[str] | None:
        for item in value or []:
            if not item or "/" in item:
                raise ValueError(
                    f"excludeFiles '{item}' is not a file name glob: use e.g. \"*.min.js\"; "
                    "leave folders out with excludeDir"
                )
        return value


class FoundFile(PlacedItem):
    """One entry found by localFindFiles: its path, and the details its query asked for
    (sorted or filtered by them, or ``details``)."""

    path: str = Field(description="Path relative to the start directory.")
    type: EntryType | None = optional("Absent for a plain file.")
    size: int | None = optional("Bytes (files).")
    modified: str | None = optional("ISO 8601 UTC.")
    permissions: Permissions = None
    sensitive: Sensitive = None


class FindFilesResult(PlacesPart):
    """A page of entries found, in sortBy order (most recently modified first)."""

    items_field: ClassVar[str] = "files"
    page_fields: ClassVar[PageFields | None] = PageFields("filePageNumber", "filesPerPage")

    path: str = Field(description="The start directory (absolute).")
    files: list[FoundFile]
    totalCount: int = Field(description="Entries found (at most limit).")
    pagination: Pagination | None = None
    truncated: bool | None = optional(
        "True when more entries matched than limit, or the walk stopped early."
    )
    groups: list[FindFilesResult] | None = groups_field("place")
