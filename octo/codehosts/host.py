"""What a code host does for the five tools: its API calls, answering in host-neutral shapes.

GitHub (:mod:`octo.codehosts.github.backend`) and GitLab (:mod:`octo.codehosts.gitlab.backend`) differ
only here: in the requests they send, the parsing of the answers and their policies. The
tool modules (search_code, file_content, repo_structure, repositories, pull_requests)
page, shape, hint and decorate errors once, for both.
"""

from __future__ import annotations

from abc import ABC
from abc import abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar
from typing import TypeVar

import httpx

from octo.codehosts.history_models import SearchCommitsQuery
from octo.codehosts.history_models import SearchIssuesQuery
from octo.codehosts.history_shapes import CommitDetail
from octo.codehosts.history_shapes import CommitPage
from octo.codehosts.history_shapes import IssuePage
from octo.codehosts.models import FileContentQuery
from octo.codehosts.models import PullRequestComment
from octo.codehosts.models import PullRequestCommit
from octo.codehosts.models import PullRequestFile
from octo.codehosts.models import RepoStructureQuery
from octo.codehosts.models import SearchCodeQuery
from octo.codehosts.models import SearchPullRequestsQuery
from octo.codehosts.models import SearchRepositoriesQuery
from octo.codehosts.settings import CodeHostSettings
from octo.codehosts.shapes import FULL_BODY_CHARS
from octo.codehosts.shapes import CodeSearchPage
from octo.codehosts.shapes import FileBlob
from octo.codehosts.shapes import Listing
from octo.codehosts.shapes import PullRequestPage
from octo.codehosts.shapes import Reply
from octo.codehosts.shapes import RepositoryPage
from octo.codehosts.shapes import RepoTree
from octo.transports.http_client import Fetched
from octo.transports.http_client import RemoteClient
from octo.transports.http_policy import HostPolicy

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

T = TypeVar("T")

#: The first page of a pull request's discussion, or of its commits; its changed files.
CommentPage = Fetched[Listing[PullRequestComment]]
PullCommitPage = Fetched[Listing[PullRequestCommit]]
FileList = Fetched[Listing[PullRequestFile]]


class CodeHost(ABC):
    """One code host, built once per runtime; it shares the runtime's HTTP client and cache.

    The class attributes are the host's words, which the shared hints use.
    """

    #: The value of the queries' ``provider`` field that picks this host.
    provider: ClassVar[str]
    #: What the host calls pull requests, and their numbers.
    pulls_noun: ClassVar[str] = "pull requests"
    number_word: ClassVar[str] = "N"
    #: What to check when prNumber names nothing.
    number_hint: ClassVar[str] = "Check the number; search without prNumber to find it."
    #: What a not-found error adds to "Check owner and repo".
    owner_note: ClassVar[str] = ""
    #: The cache's kind of a single pull request.
    pull_kind: ClassVar[str]
    #: Hints when a code search found nothing.
    nothing_found: ClassVar[tuple[str, ...]] = ()
    #: The type of each kind of answer a team's replicas share (see RemoteClient).
    shared_shapes: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, runtime: Runtime, api_url: str, policy: HostPolicy) -> None:
        self.settings = CodeHostSettings.from_env(runtime.config.env)
        self.remote = RemoteClient(
            runtime.http,
            runtime.cache,
            api_url,
            policy,
            max_wait=runtime.config.query_timeout,
            shared=runtime.shared,
            meters=runtime.meters,
            shapes=self.shared_shapes,
        )

    @property
    def name(self) -> str:
        """The host's name in messages: "GitHub"."""
        return self.remote.policy.name

    def reply(self, value: T, fetched: Fetched[Any], *notes: str) -> Reply[T]:
        """``value`` as a tool's reply: ``notes``, then the transport's (a redirect to another
        origin, a quota running low)."""
        return Reply(value, fetched.cached, [*notes, *self.remote.hints(fetched)])

    def replied(self, fetched: Fetched[T], *notes: str) -> Reply[T]:
        """What ``fetched`` holds as a tool's reply (see :meth:`reply`)."""
        return self.reply(fetched.value, fetched, *notes)

    def not_found_hints(self, what: str) -> list[str]:
        """What to check when ``what`` ("owner and repo") names nothing on this host."""
        return [f"Check {what}{self.owner_note}."]

    @abstractmethod
    async def search_code(self, query: SearchCodeQuery) -> Reply[CodeSearchPage]:
        """One page of code-search hits."""

    @abstractmethod
    async def file(self, query: FileContentQuery) -> Reply[FileBlob]:
        """The file a query names, whole."""

    @abstractmethod
    async def tree(self, query: RepoStructureQuery) -> Reply[RepoTree]:
        """The tree below the query's path (all of it, or as much as the host lists)."""

    @abstractmethod
    async def search_repositories(self, query: SearchRepositoriesQuery) -> Reply[RepositoryPage]:
        """One page of repositories."""

    async def pull_request(self, query: SearchPullRequestsQuery) -> Reply[PullRequestPage]:
        """The one pull request ``query.prNumber`` names."""
        assert query.owner and query.repo and query.prNumber is not None
        return self.replied(
            await self.remote.fetch(
                self.pull_request_path(query.owner, query.repo, query.prNumber),
                kind=self.pull_kind,
                ttl=self.settings.ttl_pull_requests,
                parse=lambda r: self.parse_pull(r, FULL_BODY_CHARS),
            )
        )

    @abstractmethod
    def pull_request_path(self, owner: str, repo: str, number: int) -> str:
        """The API path of one pull request."""

    @abstractmethod
    def parse_pull(self, response: httpx.Response, body_limit: int) -> PullRequestPage:
        """The pull request an answer of :meth:`pull_request_path` holds."""

    @abstractmethod
    async def search_pull_requests(self, query: SearchPullRequestsQuery) -> Reply[PullRequestPage]:
        """One page of pull requests matching the query's filters."""

    @abstractmethod
    async def comments(self, project: str, number: int) -> CommentPage:
        """The first page of a pull request's discussion."""

    @abstractmethod
    async def commits(self, project: str, number: int) -> PullCommitPage:
        """The first page of a pull request's commits."""

    @abstractmethod
    async def files(self, project: str, number: int, max_pages: int) -> FileList:
        """A pull request's changed files with their diffs, up to ``max_pages`` pages."""

    # history: issues and commits

    @abstractmethod
    async def search_issues(self, query: SearchIssuesQuery) -> Reply[IssuePage]:
        """One page of issues (never pull requests) matching the query's filters."""

    @abstractmethod
    async def issue(self, owner: str, repo: str, number: int) -> Reply[IssuePage]:
        """The one issue ``number`` names, its body whole."""

    @abstractmethod
    async def issue_comments(self, owner: str, repo: str, number: int, page: int) -> CommentPage:
        """Page ``page`` (30 a page, oldest first) of an issue's discussion."""

    @abstractmethod
    async def search_commits(self, query: SearchCommitsQuery) -> Reply[CommitPage]:
        """One page of commits whose messages match ``query.query``."""

    @abstractmethod
    async def history(self, query: SearchCommitsQuery) -> Reply[CommitPage]:
        """One page of a repository's history, filtered by path, ref, author and dates."""

    @abstractmethod
    async def commit(self, owner: str, repo: str, sha: str) -> Reply[CommitDetail]:
        """One commit with its changed files and their patches."""

    @abstractmethod
    async def compare(self, owner: str, repo: str, base: str, head: str) -> Reply[CommitDetail]:
        """What changed from ``base`` to ``head``: commits, files and patches."""

    # clone

    @abstractmethod
    async def resolve_commit(self, owner: str, repo: str, ref: str | None) -> Reply[str]:
        """The full sha ``ref`` (the default branch when None) points at."""

    @abstractmethod
    async def archive(
        self, owner: str, repo: str, sha: str, sparse_path: str | None, max_bytes: int
    ) -> bytes:
        """The gzipped tar archive of the repository at ``sha`` (only ``sparse_path`` where
        the host can cut it), at most ``max_bytes`` of it; never cached."""
