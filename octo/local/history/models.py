"""Query and result models of localGitHistory and localGitBlame."""

from __future__ import annotations

import re
from typing import ClassVar

import re2
from pydantic import BaseModel
from pydantic import Field
from pydantic import field_validator
from pydantic import model_validator

from octo.core.budget import Pagination
from octo.core.budget import TokenInfo
from octo.core.queries import BlameHunkItem
from octo.core.queries import BudgetHandle
from octo.core.queries import PageNumber
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import optional

#: The longest value handed to git (a revision, an author, a date): far below the system's
#: limit on one argument.
_LONGEST = 1000


#: localGitHistory's ``resume``: seconds, commits of that second answered, the followed path.
_CURSOR = re.compile(r"\d{1,12}:\d{1,9}(:[^\x00]+)?", re.DOTALL)


def _no_option(value: str | None) -> str | None:
    """A value git would read as an option (``--output=...``), or that no argument can
    carry (a NUL, 128 KiB), is refused."""
    if value is not None and value.startswith("-"):
        raise ValueError("must not start with '-'")
    if value is not None and len(value) > _LONGEST:
        raise ValueError(f"is longer than {_LONGEST} characters")
    return _no_nul(value)


def _no_nul(value: str | None) -> str | None:
    if value is not None and "\0" in value:
        raise ValueError("must not hold a NUL character")
    return value


class LineRange(ToolQuery):
    """Fields of a file's line range, checked alike."""

    startLine: int | None = Field(default=None, ge=1)
    endLine: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> LineRange:
        if self.startLine and self.endLine and self.endLine < self.startLine:
            raise ValueError("endLine is before startLine")
        if self.endLine and not self.startLine:
            raise ValueError("endLine needs startLine")
        return self


class GitHistoryQuery(LineRange):
    """One localGitHistory query."""

    path: str = Field(default=".", description="File or folder in a checkout.")
    author: str | None = None
    since: str | None = optional("e.g. 2024-01-31.")
    until: str | None = None
    ref: str | None = optional("e.g. v1..v2.")
    added: str | None = optional("Text added (pickaxe).", max_length=500)
    removed: str | None = optional("Text removed.", max_length=500)
    regex: bool = False
    includePatch: bool = False
    limit: int = Field(default=20, ge=1, le=100)
    page: PageNumber = 1
    resume: str | None = optional("From a partial answer's hint.", max_length=1100)

    @field_validator("ref", "since", "until", "author")
    @classmethod
    def _no_options(cls, value: str | None) -> str | None:
        return _no_option(value)

    @field_validator("resume")
    @classmethod
    def _a_cursor(cls, value: str | None) -> str | None:
        if value is not None and not _CURSOR.fullmatch(value):
            raise ValueError("is not the cursor of a partial answer's hint")
        return value

    @field_validator("added", "removed")
    @classmethod
    def _no_nuls(cls, value: str | None) -> str | None:
        return _no_nul(value)

    @model_validator(mode="after")
    def _one_search(self) -> GitHistoryQuery:
        if self.added and self.removed:
            raise ValueError("give added or removed, not both")
        if self.regex and (self.added or self.removed):
            try:
                re2.compile(self.added or self.removed or "")
            except re2.error as exc:
                raise ValueError(f"added/removed is not a regex octo can read: {exc}") from None
        if self.startLine and (self.added or self.removed):
            raise ValueError("a line range cannot be combined with added/removed")
        return self


class HistoryCommit(BaseModel):
    """One commit of a checkout's history."""

    sha: str
    parents: list[str]
    author: str
    email: str
    date: str
    message: str
    files: list[str] = Field(description="Status and path (R: old new).")
    patch: str | None = None
    patchHandle: BudgetHandle = None


class GitHistoryResult(ToolResult):
    """localGitHistory's answer."""

    items_field: ClassVar[str] = "commits"

    repository: str = Field(description="The checkout's work tree.")
    path: str
    commits: list[HistoryCommit]
    pagination: Pagination
    tokens: TokenInfo | None = None


class GitBlameQuery(LineRange):
    """One localGitBlame query."""

    path: str = Field(description="File in a checkout.")
    ignoreWhitespace: bool = False
    ignoreRevs: list[str] | None = Field(default=None, max_length=100)

    @field_validator("ignoreRevs")
    @classmethod
    def _revs_no_options(cls, revs: list[str] | None) -> list[str] | None:
        for rev in revs or ():
            _no_option(rev)
        return revs


class GitBlameResult(ToolResult):
    """localGitBlame's answer."""

    items_field: ClassVar[str] = "hunks"

    repository: str
    path: str
    revision: str
    hunks: list[BlameHunkItem]
    tokens: TokenInfo | None = None
