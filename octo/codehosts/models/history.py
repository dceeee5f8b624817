"""Query and result models of the history tools: githubSearchPullRequests,
githubSearchIssues, githubSearchCommits and githubGetCommit (GitHub; GitLab with provider
"gitlab"), and the pull requests, issues and commits they answer with.

Every rule lives in a validator, so a bad query fails alone with a VALIDATION_ERROR naming
the field while the call's other queries run.
"""

from __future__ import annotations

from typing import ClassVar
from typing import Literal

from pydantic import BaseModel
from pydantic import Field
from pydantic import model_validator

from octo.codehosts.models.code import RemoteQuery
from octo.codehosts.models.code import SearchPagination
from octo.codehosts.models.patterns import GitRef
from octo.codehosts.models.repo_names import RepoName
from octo.codehosts.models.repo_names import check_repos
from octo.codehosts.models.repo_names import check_scope
from octo.codehosts.models.repo_names import repos_field
from octo.contract.places import AggregationMode
from octo.contract.places import PlacedItem
from octo.contract.places import PlacesPart
from octo.contract.places import ResponseFormat
from octo.contract.places import aggregation_field
from octo.contract.places import format_field
from octo.contract.places import groups_field
from octo.core.budget import TokenInfo
from octo.core.queries import PageFields
from octo.core.queries import ToolResult
from octo.core.queries import optional

_OWNER = Field(min_length=1, max_length=200, description="Repository owner (user, org or group).")
_REPO = Field(min_length=1, max_length=150, description="Repository name.")


# githubSearchPullRequests


class PartialContentFile(BaseModel):
    file: str = Field(min_length=1, description="Path of a changed file whose diff to return.")


class SearchPullRequestsQuery(RemoteQuery):
    """One githubSearchPullRequests query."""

    owner: str | None = Field(default=None, min_length=1, max_length=200)
    repo: str | None = Field(default=None, min_length=1, max_length=150)
    prNumber: int | None = optional("One pull request (other filters ignored).", ge=1)
    query: str | None = Field(default=None, min_length=1, max_length=256)
    state: Literal["open", "closed"] | None = None
    author: str | None = Field(default=None, min_length=1)
    assignee: str | None = Field(default=None, min_length=1)
    label: str | list[str] | None = None
    merged: bool | None = None
    draft: bool | None = None
    created: str | None = optional('e.g. "2024-01-01..2024-12-31".')
    updated: str | None = None
    type: Literal["metadata", "fullContent", "partialContent"] = "metadata"
    partialContentMetadata: list[PartialContentFile] | None = optional(
        "Files whose diffs partialContent returns.", min_length=1
    )
    withComments: bool = False
    withCommits: bool = False
    limit: int = Field(default=5, ge=1, le=10)
    page: int = Field(default=1, ge=1, le=10)
    repos: list[RepoName] | None = repos_field()
    aggregationMode: AggregationMode = aggregation_field()
    responseFormat: ResponseFormat = format_field()

    @model_validator(mode="after")
    def _check(self) -> SearchPullRequestsQuery:
        check_scope(self.owner, self.repo, self.prNumber, "prNumber")
        check_repos(self)
        if self.type == "partialContent" and not self.partialContentMetadata:
            raise ValueError("type partialContent needs partialContentMetadata ([{file: path}])")
        return self


class PullRequestComment(BaseModel):
    author: str
    body: str
    created_at: str


class PullRequestCommit(BaseModel):
    sha: str
    message: str
    author: str


class PullRequestFile(BaseModel):
    filename: str
    status: str = Field(description="added, removed, modified, renamed, copied, changed")
    additions: int
    deletions: int
    previous_filename: str | None = None
    patch: str | None = None
    patchTruncated: bool | None = None
    contentHandle: str | None = optional("The diff was cut: getCachedContent gives all of it.")


class Thread(BaseModel):
    """What an issue and a pull request both are: a numbered discussion of a repository."""

    number: int
    title: str
    state: Literal["open", "closed"]
    author: str
    repository: str
    created_at: str
    updated_at: str
    html_url: str
    labels: list[str] = Field(default_factory=list)


class PullRequest(Thread, PlacedItem):
    merged: bool
    draft: bool | None = None
    merged_at: str | None = None
    head: str | None = None
    base: str | None = None
    body: str | None = None
    comments: list[PullRequestComment] | None = None
    commits: list[PullRequestCommit] | None = None
    files: list[PullRequestFile] | None = None


class SearchPullRequestsResult(PlacesPart):
    items_field: ClassVar[str] = "pullRequests"
    page_fields: ClassVar[PageFields | None] = PageFields("page", "limit")

    pullRequests: list[PullRequest]
    totalCount: int
    pagination: SearchPagination | None = None
    tokens: TokenInfo | None = None
    groups: list[SearchPullRequestsResult] | None = groups_field("repository")

    def cut_lists(self) -> tuple[str, ...]:
        # One pull request is not cut whole: its files, commits and comments are.
        if self.groups or len(self.pullRequests) > 1:
            return super().cut_lists()
        return ("pullRequests.files", "pullRequests.commits", "pullRequests.comments")


# githubSearchIssues


class SearchIssuesQuery(RemoteQuery):
    """One githubSearchIssues query."""

    owner: str | None = Field(default=None, min_length=1, max_length=200)
    repo: str | None = Field(default=None, min_length=1, max_length=150)
    issueNumber: int | None = optional(
        "One issue with its body and comments (filters ignored).", ge=1
    )
    query: str | None = optional("Free text.", min_length=1, max_length=256)
    state: Literal["open", "closed"] | None = None
    labels: list[str] | None = Field(default=None, min_length=1, max_length=10)
    author: str | None = Field(default=None, min_length=1, max_length=100)
    assignee: str | None = Field(default=None, min_length=1, max_length=100)
    mentions: str | None = Field(default=None, min_length=1, max_length=100)
    created: str | None = optional('e.g. ">2024-01-01" or "A..B".')
    updated: str | None = optional('e.g. "<2025-06-01".')
    comments: str | None = optional('Comment count range, e.g. ">10".')
    sort: Literal["created", "updated", "comments"] | None = None
    order: Literal["asc", "desc"] = "desc"
    limit: int = Field(default=10, ge=1, le=30, description="Issues per page.")
    page: int = Field(default=1, ge=1, le=10)
    commentPage: int = Field(
        default=1, ge=1, le=100, description="With issueNumber: page of 30 comments."
    )

    @model_validator(mode="after")
    def _check(self) -> SearchIssuesQuery:
        check_scope(self.owner, self.repo, self.issueNumber, "issueNumber")
        if self.issueNumber is None and not (self.query or self.owner):
            raise ValueError("give query, owner/repo or issueNumber")
        return self


class Issue(Thread):
    closed_at: str | None = None
    assignees: list[str] = Field(default_factory=list)
    commentCount: int = 0
    body: str | None = None
    bodyTruncated: bool | None = None
    comments: list[PullRequestComment] | None = None


class SearchIssuesResult(ToolResult):
    items_field: ClassVar[str] = "issues"

    issues: list[Issue]
    totalCount: int
    pagination: SearchPagination | None = None
    commentPagination: SearchPagination | None = optional(
        "With issueNumber: the page of comments shown."
    )
    tokens: TokenInfo | None = None
    contentHandle: str | None = optional(
        "The issue's body was cut: getCachedContent gives all of it."
    )


# githubSearchCommits


class SearchCommitsQuery(RemoteQuery):
    """One githubSearchCommits query."""

    owner: str | None = Field(default=None, min_length=1, max_length=200)
    repo: str | None = Field(default=None, min_length=1, max_length=150)
    query: str | None = optional(
        "Keywords of the commit message (the commit search API).", min_length=1, max_length=256
    )
    path: str | None = optional("Only commits touching it.", min_length=1)
    ref: GitRef | None = optional("Branch, tag or sha; default branch.")
    author: str | None = Field(default=None, min_length=1, max_length=100)
    since: str | None = optional("ISO date, e.g. 2024-01-01.")
    until: str | None = optional("ISO date, e.g. 2024-12-31.")
    withFiles: bool = Field(default=False, description="The files each commit changed.")
    limit: int = Field(default=10, ge=1, le=30, description="Commits per page.")
    page: int = Field(default=1, ge=1, le=10)

    @model_validator(mode="after")
    def _check(self) -> SearchCommitsQuery:
        check_scope(self.owner, self.repo)
        if not self.query and not (self.owner and self.repo):
            raise ValueError("give query (message keywords) or owner and repo (history)")
        if self.query and (self.path or self.ref):
            raise ValueError("path and ref filter a repository's history: use them without query")
        if self.withFiles and self.limit > 10:
            raise ValueError("withFiles reads each commit: limit at most 10")
        return self


class CommitFile(BaseModel):
    filename: str
    status: str
    additions: int = 0
    deletions: int = 0


class CommitSummary(BaseModel):
    sha: str
    message: str = Field(description="The first line of the message.")
    author: str
    date: str
    repository: str
    html_url: str
    files: list[CommitFile] | None = None


class SearchCommitsResult(ToolResult):
    items_field: ClassVar[str] = "commits"

    commits: list[CommitSummary]
    totalCount: int | None = None
    pagination: SearchPagination
    tokens: TokenInfo | None = None


# githubGetCommit


class GetCommitQuery(RemoteQuery):
    """One githubGetCommit query."""

    owner: str = _OWNER
    repo: str = _REPO
    sha: GitRef | None = optional("One commit (sha, branch or tag).")
    base: GitRef | None = optional("Comparison: base...head.")
    head: GitRef | None = None
    includePatch: bool = Field(default=False, description="Per-file patches.")
    filePaths: list[str] | None = optional("Only these files.", min_length=1, max_length=50)

    @model_validator(mode="after")
    def _check(self) -> GetCommitQuery:
        if self.sha and (self.base or self.head):
            raise ValueError("give sha, or base and head, not both")
        if not self.sha and not (self.base and self.head):
            raise ValueError("give sha, or base and head (a comparison)")
        return self


class CommitStats(BaseModel):
    additions: int
    deletions: int
    total: int


class CommitFacts(BaseModel):
    """What a host tells of one commit (or comparison) and githubGetCommit answers with."""

    sha: str | None = None
    message: str | None = None
    author: str | None = None
    date: str | None = None
    html_url: str | None = None
    stats: CommitStats | None = None
    status: str | None = optional("Comparison: ahead, behind, diverged.")
    aheadBy: int | None = None
    behindBy: int | None = None
    commits: list[PullRequestCommit] | None = optional("Comparison: the commits from base to head.")


class CommitDetailResult(CommitFacts, ToolResult):
    #: Over the budget, a comparison's commits are cut first, then its files.
    budget_items: ClassVar[tuple[str, ...] | None] = ("files", "commits")

    owner: str
    repo: str
    base: str | None = None
    head: str | None = None
    files: list[PullRequestFile]
    filesTruncated: bool | None = optional("The host listed only part of the changed files.")
    tokens: TokenInfo | None = None

    def is_empty(self) -> bool:
        return not self.files and not self.message
