"""Query and result models of the code tools (githubSearchCode, githubGetFileContent,
githubViewRepoStructure, githubSearchRepositories), and :class:`RemoteQuery`, the fields
every code-host query shares.

Every rule lives in a validator, so a bad query fails alone with a VALIDATION_ERROR naming
the field. The models speak of owners, repositories and
branches rather than GitHub objects, so another code host (``provider="gitlab"``)
can answer the same queries (:class:`octo.codehosts.hosts.host.CodeHost`).
"""

from __future__ import annotations

from typing import Any
from typing import ClassVar
from typing import Literal

from pydantic import BaseModel
from pydantic import Field
from pydantic import model_validator

from octo.codehosts.models.patterns import HostName
from octo.codehosts.models.repo_names import RepoName
from octo.codehosts.models.repo_names import check_repos
from octo.codehosts.models.repo_names import check_scope
from octo.codehosts.models.repo_names import names_from_urls
from octo.codehosts.models.repo_names import repos_field
from octo.codehosts.models.url_segments import PATH_FIELDS
from octo.codehosts.models.url_segments import checked_name
from octo.codehosts.models.url_segments import checked_parts
from octo.contract.places import AggregationMode
from octo.contract.places import PlacedItem
from octo.contract.places import PlacesPart
from octo.contract.places import ResponseFormat
from octo.contract.places import aggregation_field
from octo.contract.places import format_field
from octo.contract.places import groups_field
from octo.core.budget import CharPagination
from octo.core.budget import Pagination
from octo.core.budget import TokenInfo
from octo.core.errors import QueryValidationError
from octo.core.queries import BudgetHandle
from octo.core.queries import FileSize
from octo.core.queries import PageFields
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import optional

CodeHostName = Literal["github", "gitlab"]

_OWNER = Field(min_length=1, max_length=200, description="Repository owner (user, org or group).")
_REPO = Field(min_length=1, max_length=150, description="Repository name.")


class RemoteQuery(ToolQuery):
    """Fields every remote code-host query shares: the host answering, by its kind
    (``provider``) or its name, and (in owner, repo, repos) repository URLs as names."""

    provider: CodeHostName = Field(
        default="github",
        description="gitlab: owner may be a group path. Unset: gitlab if only it is set up.",
    )
    host: HostName | None = optional("Configured host; or give repo as its URL.")

    @model_validator(mode="before")
    @classmethod
    def _urls_as_names(cls, data: Any) -> Any:
        """A repository URL (``https://HOST/owner/repo``) in owner, repo or repos is the
        owner and repository it names, on ``host`` HOST (:mod:`octo.codehosts.models.repo_names`)."""
        if not isinstance(data, dict):
            return data
        return names_from_urls(data, "repo" in cls.model_fields)

    @model_validator(mode="after")
    def _safe_segments(self) -> RemoteQuery:
        """Owner, repository, paths and refs go into API paths: none may climb out of its
        segment (``..``), whatever tool or host (:mod:`octo.codehosts.models.url_segments`)."""
        for name in PATH_FIELDS:
            value = getattr(self, name, None)
            if isinstance(value, str) and value.strip("/"):
                try:
                    if name in ("owner", "repo"):
                        checked_name(value, name)
                    else:
                        checked_parts(value, name)
                except QueryValidationError as exc:
                    raise ValueError(exc.message) from None
        return self


class SearchPagination(BaseModel):
    currentPage: int
    hasMore: bool


# githubSearchCode


class SearchCodeQuery(RemoteQuery):
    """One githubSearchCode query."""

    keywordsToSearch: list[str] = Field(
        min_length=1, max_length=5, description="1-5 keywords, all of which must match."
    )
    owner: str | None = Field(default=None, min_length=1, max_length=200)
    repo: str | None = Field(default=None, min_length=1, max_length=150)
    extension: str | None = optional('File extension, e.g. "ts".', min_length=1)
    filename: str | None = optional("File name.", min_length=1)
    path: str | None = optional("Directory prefix, e.g. src/auth.", min_length=1)
    match: Literal["file", "path"] | None = optional(
        "Match keywords in file content or in the path."
    )
    limit: int = Field(default=10, ge=1, le=100, description="Results per page.")
    page: int = Field(default=1, ge=1, le=10)
    repos: list[RepoName] | None = repos_field()
    aggregationMode: AggregationMode = aggregation_field()
    responseFormat: ResponseFormat = format_field()

    @model_validator(mode="after")
    def _check(self) -> SearchCodeQuery:
        if any(not k.strip() for k in self.keywordsToSearch):
            raise ValueError("keywordsToSearch: keywords must not be blank")
        check_scope(self.owner, self.repo)
        check_repos(self)
        return self

    def filters(self) -> tuple[str | None, str | None, str | None]:
        """``(extension, filename, path)`` as a search takes them: no leading "*." on the
        extension, no slashes around the path."""
        return (
            self.extension.strip().lstrip("*").lstrip(".") if self.extension else None,
            self.filename.strip() if self.filename else None,
            self.path.strip().strip("/") if self.path else None,
        )


class TextMatchSpan(BaseModel):
    text: str
    indices: tuple[int, int] = Field(description="Start and end of the match in the fragment.")


class TextMatch(BaseModel):
    fragment: str
    matches: list[TextMatchSpan]


class CodeSearchHit(PlacedItem):
    file: str = Field(description="Path in the repository.")
    repository: str = Field(description="owner/repo")
    matches: int = Field(description="Matches in the returned fragments.")
    url: str
    text_matches: list[TextMatch] | None = None


class SearchCodeResult(PlacesPart):
    items_field: ClassVar[str] = "results"
    page_fields: ClassVar[PageFields | None] = PageFields("page", "limit")

    results: list[CodeSearchHit]
    totalCount: int
    pagination: SearchPagination
    incompleteResults: bool | None = optional(
        "True when the host timed out and the results are partial."
    )
    tokens: TokenInfo | None = None
    groups: list[SearchCodeResult] | None = groups_field("repository")


# githubGetFileContent


class FileContentQuery(RemoteQuery):
    """One githubGetFileContent query."""

    owner: str = _OWNER
    repo: str = _REPO
    path: str = Field(min_length=1, description="File path in the repository.")
    branch: str | None = optional(
        "Branch, tag or SHA; default branch.", min_length=1, max_length=255
    )
    fullContent: bool = Field(default=False, description="The whole file.")
    startLine: int | None = optional("1-based.", ge=1)
    endLine: int | None = optional("1-based, inclusive.", ge=1)
    matchString: str | None = optional("The lines around each occurrence.", min_length=1)
    matchStringContextLines: int = Field(default=5, ge=1, le=50)
    charOffset: int = Field(default=0, ge=0)
    charLength: int | None = optional("Characters to return.", ge=50, le=50_000)

    @model_validator(mode="after")
    def _check(self) -> FileContentQuery:
        has_range = self.startLine is not None or self.endLine is not None
        modes = [
            name
            for name, used in (
                ("fullContent", self.fullContent),
                ("startLine/endLine", has_range),
                ("matchString", self.matchString is not None),
            )
            if used
        ]
        if len(modes) > 1:
            raise ValueError(f"{' and '.join(modes)} are mutually exclusive: use one")
        if has_range and (self.startLine is None or self.endLine is None):
            raise ValueError("startLine and endLine must be used together")
        if (
            self.startLine is not None
            and self.endLine is not None
            and self.startLine > self.endLine
        ):
            raise ValueError(f"startLine ({self.startLine}) must be <= endLine ({self.endLine})")
        return self


class FileContentResult(ToolResult):
    owner: str
    repo: str
    path: str
    branch: str | None = None
    content: str
    encoding: Literal["utf-8", "base64"] = "utf-8"
    size: FileSize
    sha: str
    startLine: int | None = optional("First line of content.")
    endLine: int | None = optional("Last line of content.")
    totalLines: int | None = None
    matchCount: int | None = optional("Occurrences of matchString.")
    pagination: CharPagination | None = None
    tokens: TokenInfo | None = None
    contentHandle: BudgetHandle = None

    def is_empty(self) -> bool:
        return self.matchCount == 0


# githubViewRepoStructure


class RepoStructureQuery(RemoteQuery):
    """One githubViewRepoStructure query."""

    owner: str = _OWNER
    repo: str = _REPO
    branch: str = Field(min_length=1, max_length=255, description="Branch, tag or SHA.")
    path: str = Field(default="", description="Directory to view; empty for the root.")
    depth: int = Field(default=1, ge=1, le=2, description="Levels below path.")
    entriesPerPage: int = Field(default=50, ge=1, le=200)
    entryPageNumber: int = Field(default=1, ge=1)


class TreeEntry(BaseModel):
    type: Literal["file", "dir"]
    size: int | None = None
    sha: str | None = optional("The git object id (GitLab's id).")


class StructureSummary(BaseModel):
    totalFiles: int
    totalFolders: int
    truncated: bool = Field(description="True when the host cut the tree listing short.")


class RepoStructureResult(ToolResult):
    items_field: ClassVar[str] = "structure"

    owner: str
    repo: str
    branch: str
    path: str
    structure: dict[str, TreeEntry] = Field(description="Entries by path relative to path.")
    summary: StructureSummary
    pagination: Pagination | None = None
    tokens: TokenInfo | None = None


# githubSearchRepositories


class SearchRepositoriesQuery(RemoteQuery):
    """One githubSearchRepositories query."""

    keywordsToSearch: list[str] | None = Field(default=None, min_length=1, max_length=10)
    topicsToSearch: list[str] | None = Field(default=None, min_length=1, max_length=10)
    owner: str | None = Field(default=None, min_length=1, max_length=200)
    stars: str | None = optional('e.g. ">1000" or "100..500".')
    size: str | None = optional('Size in KB, e.g. "<1000".')
    created: str | None = optional('e.g. ">2024-01-01".')
    updated: str | None = optional("Last push, e.g. >2024-06-01.")
    match: list[Literal["name", "description", "readme"]] | None = Field(default=None, min_length=1)
    sort: Literal["forks", "stars", "updated", "best-match"] | None = None
    limit: int = Field(default=10, ge=1, le=100)
    page: int = Field(default=1, ge=1, le=10)

    @model_validator(mode="after")
    def _check(self) -> SearchRepositoriesQuery:
        if not self.keywordsToSearch and not self.topicsToSearch:
            raise ValueError("give keywordsToSearch or topicsToSearch (at least one)")
        return self


class Repository(BaseModel):
    name: str
    full_name: str
    description: str | None = None
    stars: int
    forks: int
    language: str | None = None
    topics: list[str] = Field(default_factory=list)
    default_branch: str | None = None
    updated_at: str | None = optional("Last push.")
    archived: bool | None = None
    html_url: str


class SearchRepositoriesResult(ToolResult):
    items_field: ClassVar[str] = "repositories"

    repositories: list[Repository]
    totalCount: int
    pagination: SearchPagination
    tokens: TokenInfo | None = None
