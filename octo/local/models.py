"""Query and result models of localSearchCode and localGetFileContent.

Every rule of the spec's tables lives here, so a bad query fails alone with a
VALIDATION_ERROR naming the field. ``hidden`` and ``includeSensitive`` are
octo's additions: dot-files and credential files need an explicit opt-in.
"""

from __future__ import annotations

from typing import Any
from typing import Literal

from pydantic import BaseModel
from pydantic import Field
from pydantic import field_validator
from pydantic import model_validator

from octo.core.budget import CharPagination
from octo.core.budget import TokenInfo
from octo.core.envelope import ToolQuery
from octo.core.envelope import ToolResult
from octo.core.paging import Pagination

SearchMode = Literal["discovery", "paginated", "detailed"]

#: What each mode sets; a parameter given explicitly in the query wins over its mode.
MODE_PRESETS: dict[str, dict[str, Any]] = {
    "discovery": {"filesOnly": True, "smartCase": True},
    "paginated": {"filesPerPage": 10, "matchesPerPage": 10, "smartCase": True},
    "detailed": {"contextLines": 3, "filesPerPage": 10, "matchesPerPage": 20, "smartCase": True},
}

_HIDDEN_DESCRIPTION = (
    "octo extension: also search/read dot-files and dot-directories (.github, .config). "
    "Default false."
)
_SENSITIVE_DESCRIPTION = (
    "octo extension: also search/read credential files (.env, *.pem, *.key, id_rsa, "
    ".npmrc, credentials.json...). Secrets in returned text are redacted regardless. "
    "Default false."
)


class LocalSearchCodeQuery(ToolQuery):
    """One ripgrep search."""

    pattern: str = Field(min_length=1, description="Search pattern (regex or literal).")
    path: str = Field(
        min_length=1, description="Directory (or file) to search: absolute or root-relative."
    )
    mode: SearchMode | None = Field(
        default=None,
        description="Workflow preset: discovery (filesOnly), paginated (10 files x 10 matches), "
        "detailed (contextLines=3, 20 matches per file). Explicit parameters win.",
    )
    fixedString: bool = Field(default=False, description="Literal string search (no regex).")
    smartCase: bool = Field(
        default=True,
        description="Case-insensitive when the pattern is all lowercase; false = case-sensitive.",
    )
    type: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9_+-]+$",
        description="ripgrep file type (py, ts, rust, go, ...).",
    )
    include: list[str] | None = Field(
        default=None, description="Include glob patterns (e.g. '*.py', 'src/**')."
    )
    exclude: list[str] | None = Field(
        default=None, description="Exclude glob patterns (e.g. 'tests/**', '*.min.js')."
    )
    filesOnly: bool = Field(
        default=False, description="List matching files with their match counts only."
    )
    contextLines: int | None = Field(
        default=None, ge=0, le=50, description="Context lines before and after each match (0-50)."
    )
    matchesPerPage: int = Field(
        default=10, ge=1, le=100, description="Matches shown per file (1-100)."
    )
    filesPerPage: int = Field(default=10, ge=1, le=20, description="Files per page (1-20).")
    filePageNumber: int = Field(default=1, ge=1, description="File page number, from 1.")
    hidden: bool = Field(default=False, description=_HIDDEN_DESCRIPTION)
    noIgnore: bool = Field(
        default=False,
        description="octo extension: also search files that .gitignore / .ignore exclude. "
        "Default false.",
    )
    includeSensitive: bool = Field(default=False, description=_SENSITIVE_DESCRIPTION)

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

    @model_validator(mode="after")
    def _apply_mode(self) -> LocalSearchCodeQuery:
        if self.mode is not None:
            explicit = set(self.model_fields_set)
            for name, value in MODE_PRESETS[self.mode].items():
                if name not in explicit:
                    setattr(self, name, value)
        return self


class SearchMatch(BaseModel):
    """A matching line, with the context lines around it (each line appears once)."""

    lineNumber: int
    content: str
    beforeContext: list[str] | None = Field(
        default=None,
        description="Lines just before; lines already after the previous match are not repeated.",
    )
    afterContext: list[str] | None = Field(default=None, description="Lines just after.")


class MatchPagination(BaseModel):
    """Present only when a file has more matching lines than matchesPerPage."""

    currentPage: int = 1
    hasMore: bool
    matchesOnPage: int


class SearchFile(BaseModel):
    """A file with matches; ``path`` is relative to the result's ``root``."""

    path: str
    matchCount: int = Field(description="Matching lines in the file.")
    matches: list[SearchMatch] | None = Field(
        default=None, description="The first matchesPerPage matching lines (absent with filesOnly)."
    )
    modified: str | None = Field(
        default=None, description="Last modification (ISO 8601, UTC); given with filesOnly."
    )
    pagination: MatchPagination | None = None


class SearchStats(BaseModel):
    """What the search covered."""

    filesSearched: int | None = Field(
        default=None,
        description="Files rg read, as it counted them (credential files included: without "
        "includeSensitive their matches are dropped, never shown).",
    )
    filesWithMatches: int
    totalMatches: int = Field(description="Matching lines.")
    searchTimeMs: int
    complete: bool = Field(
        description="True: the counts cover every file searched, not only the files up to this "
        "page."
    )


class LocalSearchCodeResult(ToolResult):
    """Files matching a pattern, one page of them."""

    root: str = Field(description="The searched directory; file paths are relative to it.")
    files: list[SearchFile]
    stats: SearchStats
    pagination: Pagination
    tokens: TokenInfo | None = Field(
        default=None,
        description="Size of the page's text; matches beyond the token budget are left out "
        "(truncated) and paginationHint says how to read them.",
    )

    def is_empty(self) -> bool:
        return not self.files


class LocalGetFileContentQuery(ToolQuery):
    """One read of a local file.

    Without a mode the file is read from its start up to the token budget.
    """

    path: str = Field(min_length=1, description="File path: absolute or root-relative.")
    fullContent: bool = Field(
        default=False,
        description="Return the entire file, beyond the token budget (files up to 300 KB).",
    )
    startLine: int | None = Field(default=None, ge=1, description="Start line (1-indexed).")
    endLine: int | None = Field(default=None, ge=1, description="End line (1-indexed, inclusive).")
    matchString: str | None = Field(
        default=None,
        min_length=1,
        description="Text to match (a regex with matchStringIsRegex); returns each matching "
        "line with context.",
    )
    matchStringContextLines: int = Field(
        default=5, ge=1, le=50, description="Context lines around each match (1-50)."
    )
    matchStringIsRegex: bool = Field(
        default=False,
        description="Treat matchString as a regular expression in ripgrep's syntax, as "
        "localSearchCode's pattern (Rust regex: linear time; no look-around or "
        "back-references).",
    )
    matchStringCaseSensitive: bool = Field(default=False, description="Case-sensitive matching.")
    charOffset: int = Field(default=0, ge=0, description="Character offset for pagination.")
    charLength: int | None = Field(
        default=None, ge=1, le=10000, description="Characters to return (1-10000)."
    )
    hidden: bool = Field(default=False, description=_HIDDEN_DESCRIPTION)
    includeSensitive: bool = Field(default=False, description=_SENSITIVE_DESCRIPTION)

    @property
    def char_mode(self) -> bool:
        return self.charLength is not None or self.charOffset > 0

    @model_validator(mode="after")
    def _one_mode(self) -> LocalGetFileContentQuery:
        if (self.startLine is None) != (self.endLine is None):
            raise ValueError(
                "startLine and endLine must be used together, e.g. startLine=1, endLine=50"
            )
        if (
            self.startLine is not None
            and self.endLine is not None
            and self.startLine > self.endLine
        ):
            raise ValueError(f"startLine ({self.startLine}) must be <= endLine ({self.endLine})")
        modes = [
            name
            for name, used in (
                ("fullContent", self.fullContent),
                ("startLine/endLine", self.startLine is not None),
                ("matchString", self.matchString is not None),
                ("charOffset/charLength", self.char_mode),
            )
            if used
        ]
        if len(modes) > 1:
            raise ValueError(
                f"{' and '.join(modes)} are mutually exclusive: use one way to read the file"
            )
        if self.matchString is None:
            stray = sorted(
                self.model_fields_set
                & {"matchStringContextLines", "matchStringIsRegex", "matchStringCaseSensitive"}
            )
            if stray:
                raise ValueError(f"{', '.join(stray)} only apply together with matchString")
        return self


class LocalGetFileContentResult(ToolResult):
    """Content of a local file (secrets redacted), cut to the token budget."""

    path: str = Field(description="The file, relative to its allowed root.")
    content: str | None = Field(
        default=None, description="The text read (absent with matchString: see matches)."
    )
    size: int = Field(description="File size in bytes.")
    totalLines: int
    startLine: int | None = Field(default=None, description="First line in content.")
    endLine: int | None = Field(default=None, description="Last line in content.")
    matchCount: int | None = Field(
        default=None, description="Lines matching matchString in the whole file."
    )
    matches: list[SearchMatch] | None = None
    pagination: CharPagination | None = None
    tokens: TokenInfo

    def is_empty(self) -> bool:
        if self.matchCount is not None:
            return self.matchCount == 0
        return not self.content
