"""Query and result models of the line-history tools: githubGetFileBlame (a remote file's
blame) and traceLine (a line range -> its commits -> pull requests -> issues), and the
host-neutral shapes of their hosts' answers."""

from __future__ import annotations

from typing import ClassVar
from typing import Literal

from pydantic import BaseModel
from pydantic import Field
from pydantic import model_validator

from octo.codehosts.models.code import RemoteQuery
from octo.codehosts.models.patterns import GitRef
from octo.core.budget import TokenInfo
from octo.core.queries import BlameRange as BlameRange
from octo.core.queries import BudgetHandle
from octo.core.queries import ToolResult
from octo.core.queries import optional


class _Lines(RemoteQuery):
    """A line range of a file, checked alike by both tools."""

    startLine: int | None = Field(default=None, ge=1)
    endLine: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> _Lines:
        if self.endLine and (not self.startLine or self.endLine < self.startLine):
            raise ValueError("endLine needs a startLine at or before it")
        return self


class FileBlameQuery(_Lines):
    """One githubGetFileBlame query."""

    owner: str = Field(min_length=1, max_length=200)
    repo: str = Field(min_length=1, max_length=150)
    path: str = Field(min_length=1)
    ref: GitRef | None = optional("Default branch.")


class FileBlameResult(ToolResult):
    """githubGetFileBlame's answer."""

    items_field: ClassVar[str] = "ranges"

    owner: str
    repo: str
    path: str
    sha: str = Field(description="The commit blamed.")
    ranges: list[BlameRange]
    tokens: TokenInfo | None = None


TraceDepth = Literal["commit", "pullRequest", "issue"]


class TraceLineQuery(_Lines):
    """One traceLine query: a local file (``path`` alone) or a remote one (``owner``,
    ``repo``, ``path``)."""

    path: str = Field(min_length=1)
    owner: str | None = Field(default=None, min_length=1, max_length=200)
    repo: str | None = Field(default=None, min_length=1, max_length=150)
    ref: GitRef | None = None
    depth: TraceDepth = "issue"

    @model_validator(mode="after")
    def _place(self) -> TraceLineQuery:
        if (self.owner is None) != (self.repo is None):
            raise ValueError("give owner and repo together (a remote file), or neither (local)")
        if self.startLine is None:
            raise ValueError("give startLine (and endLine)")
        return self


class PullRef(BaseModel):
    """A pull (merge) request as a host lists it for a commit."""

    number: int
    title: str
    state: str
    url: str
    body: str = ""
    repository: str = Field(description="owner/repo.")


class IssueRef(BaseModel):
    """An issue a pull request closes or references."""

    repository: str
    number: int
    title: str | None = None
    state: str | None = None
    url: str | None = None
    body: str | None = None
    closes: bool = Field(default=False, description="Named with a closing keyword.")
    bodyHandle: BudgetHandle = None


class TracedPull(BaseModel):
    """A pull request that brought a commit in, and its issues."""

    number: int
    title: str
    state: str
    url: str
    body: str | None = None
    bodyHandle: BudgetHandle = None
    issues: list[IssueRef] | None = None


class TracedCommit(BaseModel):
    """One commit that last changed some of the lines, and what brought it in."""

    sha: str
    lines: list[int] = Field(description="First and last line it changed.")
    author: str
    date: str
    message: str
    patch: str | None = Field(default=None, description="This file's diff in the commit.")
    patchHandle: BudgetHandle = None
    pullRequests: list[TracedPull] | None = None
    stoppedBecause: str | None = None


class TraceLineResult(ToolResult):
    """traceLine's answer."""

    items_field: ClassVar[str] = "commits"

    path: str
    repository: str | None = Field(default=None, description="owner/repo the chain used.")
    commits: list[TracedCommit]
    tokens: TokenInfo | None = None
