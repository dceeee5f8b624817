"""Models both localSearchCode and localGetFileContent use, and localGetFileContent's own.

Every rule of the spec's tables lives in the models, so a bad query fails alone with a
VALIDATION_ERROR naming the field. ``hidden`` and ``includeSensitive`` are octo's
additions: dot-files and credential files need an explicit opt-in.
"""

from __future__ import annotations

from pydantic import BaseModel
from pydantic import Field
from pydantic import model_validator

from octo.core.budget import CharPagination
from octo.core.budget import TokenInfo
from octo.core.queries import BudgetHandle
from octo.core.queries import FileSize
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import optional
from octo.core.secrets.sensitive import HIDDEN_DESCRIPTION
from octo.core.secrets.sensitive import SENSITIVE_DESCRIPTION


class MatchColumn(BaseModel):
    """Where one submatch sits in its line: 0-based character offsets, end exclusive."""

    start: int
    end: int


class SearchMatch(BaseModel):
    """A matching line, with the context lines around it (each line appears once)."""

    lineNumber: int
    content: str
    beforeContext: list[str] | None = optional(
        "Lines just before; lines already after the previous match are not repeated."
    )
    afterContext: list[str] | None = optional("Lines just after.")
    contentHandle: str | None = optional(
        "A line here was clipped: getCachedContent gives them whole."
    )
    columns: list[MatchColumn] | None = optional(
        "With columns: true, each submatch's 0-based character offsets in the "
        "file's line (content may show it clipped); a multiline match may end past it."
    )


class LocalGetFileContentQuery(ToolQuery):
    """One read of a local file.

    Without a mode the file is read from its start up to the token budget.
    """

    path: str = Field(min_length=1, description="File path: absolute or root-relative.")
    fullContent: bool = Field(
        default=False, description="Whole file past the token budget (up to 300 KB)."
    )
    startLine: int | None = optional("1-based.", ge=1)
    endLine: int | None = optional("1-based, inclusive.", ge=1)
    matchString: str | None = optional("Text whose lines to return, with context.", min_length=1)
    matchStringContextLines: int = Field(
        default=5, ge=1, le=50, description="Lines around each match."
    )
    matchStringIsRegex: bool = Field(default=False, description="matchString is an RE2 regex.")
    matchStringCaseSensitive: bool = Field(default=False, description="Case-sensitive matching.")
    charOffset: int = Field(default=0, ge=0, description="Character offset.")
    charLength: int | None = optional("Characters to return.", ge=1, le=10000)
    hidden: bool = Field(default=False, description=HIDDEN_DESCRIPTION)
    includeSensitive: bool = Field(default=False, description=SENSITIVE_DESCRIPTION)

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
    content: str | None = optional(
        "The text read; with matchString, the matched regions, each headed by "
        "its line numbers ('--- lines 12-20 ---'), as githubGetFileContent gives them."
    )
    size: FileSize
    modified: str = Field(description="Last modified, ISO 8601 UTC.")
    language: str | None = optional(
        "LSP language id (python, typescriptreact...), by extension, name or first line."
    )
    totalLines: int
    startLine: int | None = optional("First line in content.")
    endLine: int | None = optional("Last line in content.")
    matchCount: int | None = optional("Lines matching matchString in the whole file.")
    matchedLines: list[int] | None = optional(
        "With matchString: the numbers of the matching lines shown in content "
        "(each line is in content once, never repeated here)."
    )
    pagination: CharPagination | None = None
    tokens: TokenInfo | None = optional(
        "Always given: the answer's size, and whether the token budget cut the "
        "text read (paginationHint says how to read on)."
    )
    contentHandle: BudgetHandle = None

    def is_empty(self) -> bool:
        if self.matchCount is not None:
            return self.matchCount == 0
        return not self.content
