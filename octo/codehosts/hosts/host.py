"""What a code host does for the code-host tools: its API calls, answering in host-neutral
shapes.

GitHub (:mod:`octo.codehosts.hosts.github.backend`) and GitLab
(:mod:`octo.codehosts.hosts.gitlab.backend`) differ only here: in the requests they send,
the parsing of the answers and their policies. The calls alike on both are written once
in :class:`CodeHost`, each host giving what differs (:class:`HistoryApi`, :class:`CiApi`).
The tool modules (the pipelines ``code``, ``history``, ``ci``, ``clone``) page, shape, hint
and decorate errors once, for both.
"""

from __future__ import annotations

from abc import ABC
from abc import abstractmethod
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar
from typing import Protocol
from typing import TypeVar

import httpx

from octo.codehosts.hosts.hosts_file import HostEntry
from octo.codehosts.hosts.hosts_file import TokenSource
from octo.codehosts.models.ci import SearchWorkflowRunsQuery
from octo.codehosts.models.code import FileContentQuery
from octo.codehosts.models.code import RepoStructureQuery
from octo.codehosts.models.code import SearchCodeQuery
from octo.codehosts.models.code import SearchRepositoriesQuery
from octo.codehosts.models.history import PullRequestComment
from octo.codehosts.models.history import PullRequestCommit
from octo.codehosts.models.history import PullRequestFile
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.models.history import SearchIssuesQuery
from octo.codehosts.models.history import SearchPullRequestsQuery
from octo.codehosts.models.lines import BlameRange
from octo.codehosts.models.lines import IssueRef
from octo.codehosts.models.lines import PullRef
from octo.codehosts.models.url_segments import segment
from octo.codehosts.settings import CodeHostSettings
from octo.codehosts.shapes.ci import CiJob
from octo.codehosts.shapes.ci import RunPage
from octo.codehosts.shapes.code import CodeSearchPage
from octo.codehosts.shapes.code import FileBlob
from octo.codehosts.shapes.code import Listing
from octo.codehosts.shapes.code import Reply
from octo.codehosts.shapes.code import RepositoryPage
from octo.codehosts.shapes.code import RepoTree
from octo.codehosts.shapes.code import read_listing
from octo.codehosts.shapes.history import FULL_BODY_CHARS
from octo.codehosts.shapes.history import CommitDetail
from octo.codehosts.shapes.history import CommitPage
from octo.codehosts.shapes.history import IssuePage
from octo.codehosts.shapes.history import PullRequestPage
from octo.codehosts.shapes.history import history_params
from octo.core.errors import InvalidResponseError
from octo.core.errors import NotFoundError
from octo.transports.http.body import BodySink
from octo.transports.http.client import Fetched
from octo.transports.http.client import RemoteClient
from octo.transports.http.policy import HostPolicy
from octo.transports.http.redirects import redirect_notes

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

T = TypeVar("T")
#: How an answer of the host is read.
Parser = Callable[[httpx.Response], T]

#: An owner's repositories are read up to this many pages of 100 (a wildcard of ``repos``).
MAX_OWNER_PAGES = 10

#: The first page of a pull request's discussion, or of its commits; its changed files.
CommentPage = Fetched[Listing[PullRequestComment]]
PullCommitPage = Fetched[Listing[PullRequestCommit]]
FileList = Fetched[Listing[PullRequestFile]]


def owner_page(body: Any, key: str, host: str, next_page: str | None) -> Listing[str]:
    """A page of an owner's repositories as either host lists them: the full name each item
    keeps under ``key``, and the ``next_page``; an answer that is no list names ``host``."""
    if not isinstance(body, list):
        raise InvalidResponseError(f"{host} answered a repository list with no list")
    names = [
        item[key] for item in body if isinstance(item, dict) and isinstance(item.get(key), str)
    ]
    return Listing[str](items=names, next=next_page)


@dataclass(frozen=True)
class Discussion:
    """How a host lists an issue's (or a pull request's) discussion."""

    #: The path below the issue or pull request: "comments", "notes".
    path: str
    #: The cache's kind: an issue's discussion is stored as a pull request's.
    kind: str
    parse: Parser[Listing[PullRequestComment]]
    #: The parameters that ask for the oldest first, where that is not the host's default.
    order: Mapping[str, str] = field(default_factory=dict)


class HistoryParsers(Protocol):
    """The parsers every host's ``history_parse`` module names alike (the module is one)."""

    def parse_issue(self, response: httpx.Response, /) -> IssuePage:
        """One issue."""

    def parse_history(
        self, response: httpx.Response, page: int, per_page: int, repository: str, /
    ) -> CommitPage:
        """A page of a repository's history (the page, per page, "owner/repo")."""

    def parse_sha(self, response: httpx.Response, /) -> str:
        """The sha a ref points at."""


class CiParsers(Protocol):
    """The parsers every host's ``ci_parse`` module names alike (the module is one)."""

    def parse_jobs(self, response: httpx.Response, /) -> list[CiJob]:
        """A run's jobs."""

    def parse_job(self, response: httpx.Response, /) -> CiJob:
        """One job."""


@dataclass(frozen=True)
class HistoryApi:
    """What differs between hosts in the history calls :class:`CodeHost` makes alike for
    every host: the parsers, a parameter's name, headers."""

    parsers: HistoryParsers
    comments: Discussion
    #: The host's name of the ref a repository's history starts from.
    ref_param: str
    #: The host's path word of pull requests, below a project and below a commit ("pulls",
    #: "merge_requests"); one pull request read (response, characters of its description);
    #: the pull requests of a commit.
    pulls: str
    parse_pull: Callable[[httpx.Response, int], PullRequestPage]
    parse_commit_pulls: Parser[list[PullRef]]
    #: The headers that ask for the sha a ref points at.
    sha_headers: Mapping[str, str] | None = None


@dataclass(frozen=True)
class CiApi:
    """What differs between hosts in the CI calls :class:`CodeHost` makes alike for every
    host: where a run's jobs, a job and a job's log are below the project ("{run}" and "{job}"
    stand for their ids), and the parsers."""

    jobs_path: str
    job_path: str
    log_path: str
    parsers: CiParsers
    #: The parameters of a run's jobs beside the page size (GitHub: its latest attempt's).
    jobs_params: Mapping[str, str] = field(default_factory=dict)


class CodeHost(ABC):
    """One code host, built once per runtime; it shares the runtime's HTTP client and cache.

    Its class attributes describe the host to the shared code: its words in hints, its
    cache kinds, its history API.
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
    #: The start of the cache's kinds of the answers to the calls every host makes alike
    #: (history, CI): "" (GitHub), "gitlab-".
    kind_prefix: ClassVar[str] = ""
    #: Hints when a code search found nothing.
    nothing_found: ClassVar[tuple[str, ...]] = ()
    #: The type of each kind of answer a team's replicas share (see RemoteClient).
    shared_shapes: ClassVar[Mapping[str, Any]] = {}
    #: How the host's API answers the shared history calls: issues, their discussions,
    #: a repository's history and a ref's sha.
    history_api: ClassVar[HistoryApi]
    #: How the host's API answers the shared CI calls: a run's jobs, a job, its log.
    ci_api: ClassVar[CiApi]
    #: The hosts file entry this host is (None: the environment's host of its kind).
    entry: HostEntry | None = None

    def __init__(
        self, runtime: Runtime, entry: HostEntry | None = None, token: TokenSource | None = None
    ) -> None:
        env = runtime.config.env
        self.entry = entry
        # An entry's token comes from its source (the host set's, else the entry's own).
        source = None if entry is None else token or (lambda: entry.token(env))
        api_url, policy = self.connection(env, source)
        self.settings = CodeHostSettings.from_env(env)
        self.remote = RemoteClient(
            runtime.http,
            runtime.cache,
            api_url,
            policy,
            max_wait=runtime.config.query_timeout,
            shared=runtime.shared,
            meters=runtime.meters,
            shapes=self.shared_shapes,
            account=self.entry.name if self.entry else "",
        )

    @abstractmethod
    def connection(
        self, env: Mapping[str, str], source: TokenSource | None
    ) -> tuple[str, HostPolicy]:
        """The API's URL and the policy that authenticates to it, for :attr:`entry` (None:
        the environment's host); ``source`` is the entry's token source."""

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

    async def fetch_reply(
        self, path: str, kind: str, ttl: float, parse: Parser[T], **options: Any
    ) -> Reply[T]:
        """GET ``path`` through the cache as a tool's reply; ``options`` (params, headers)
        as :meth:`RemoteClient.fetch` takes them."""
        fetched = await self.remote.fetch(path, kind=kind, ttl=ttl, parse=parse, **options)
        return self.replied(fetched)

    async def prefixed_reply(
        self, path: str, kind: str, ttl: float, parse: Parser[T], **options: Any
    ) -> Reply[T]:
        """:meth:`fetch_reply` of a call every host makes alike: ``kind`` is the cache's kind
        after the host's :attr:`kind_prefix`."""
        kind = f"{self.kind_prefix}{kind}"
        return await self.fetch_reply(path, kind, ttl, parse, **options)

    @abstractmethod
    def project_path(self, owner: str, repo: str) -> str:
        """The API path of a repository: its issues and pull requests are below it."""

    def code_path(self, owner: str, repo: str) -> str:
        """The API path its commits and archives are below (GitHub: the project's)."""
        return self.project_path(owner, repo)

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

    async def owner_repositories(self, owner: str) -> Reply[Listing[str]]:
        """The full names of ``owner``'s repositories, an organisation's (a group's), else a
        user's, as far as MAX_OWNER_PAGES pages of 100 go (``next`` set beyond)."""

        async def listing(path: str) -> Fetched[Listing[str]]:
            def page(cursor: str | None) -> Awaitable[Fetched[Listing[str]]]:
                return self.remote.fetch(
                    path,
                    kind=self.owner_kind,
                    ttl=self.settings.ttl_repo_search,
                    params={"per_page": 100, "page": int(cursor or 1)},
                    parse=self.parse_owner_page,
                )

            return await read_listing(page, MAX_OWNER_PAGES)

        group, user = self.owner_paths(owner)
        try:
            fetched = await listing(group)
        except NotFoundError:
            fetched = await listing(user)  # not an organisation: a user
        return self.replied(fetched)

    #: The cache's kind of a page of an owner's repositories.
    owner_kind: ClassVar[str]

    @abstractmethod
    def owner_paths(self, owner: str) -> tuple[str, str]:
        """The API paths of an organisation's (a group's) repositories, and of a user's."""

    @abstractmethod
    def parse_owner_page(self, response: httpx.Response) -> Listing[str]:
        """One page of an owner's repositories: their full names, and the next page's
        number."""

    async def pull_request(self, query: SearchPullRequestsQuery) -> Reply[PullRequestPage]:
        """The one pull request ``query.prNumber`` names."""
        assert query.owner and query.repo and query.prNumber is not None
        return await self.fetch_reply(
            self.pull_request_path(query.owner, query.repo, query.prNumber),
            self.pull_kind,
            self.settings.ttl_pull_requests,
            lambda r: self.history_api.parse_pull(r, FULL_BODY_CHARS),
        )

    def pull_request_path(self, owner: str, repo: str, number: int) -> str:
        """The API path of one pull request."""
        return f"{self.project_path(owner, repo)}/{self.history_api.pulls}/{number}"

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

    async def issue(self, owner: str, repo: str, number: int) -> Reply[IssuePage]:
        """The one issue ``number`` names, its body whole."""
        path = f"{self.project_path(owner, repo)}/issues/{number}"
        parse = self.history_api.parsers.parse_issue
        return await self.prefixed_reply(path, "issue", self.settings.ttl_issues, parse)

    async def issue_comments(self, owner: str, repo: str, number: int, page: int) -> CommentPage:
        """Page ``page`` (30 a page, oldest first) of an issue's discussion."""
        path = f"{self.project_path(owner, repo)}/issues/{number}"
        return await self.discussion(path, self.settings.ttl_issues, page)

    async def discussion(self, path: str, ttl: float, page: int | None = None) -> CommentPage:
        """Page ``page`` (30 a page, oldest first; without a page parameter when None) of
        the discussion of the issue or pull request at API path ``path``."""
        comments = self.history_api.comments
        return await self.remote.fetch(
            f"{path}/{comments.path}",
            kind=comments.kind,
            ttl=ttl,
            params={
                **comments.order,
                "per_page": 30,
                **({"page": page} if page is not None else {}),
            },
            parse=comments.parse,
        )

    @abstractmethod
    async def search_commits(self, query: SearchCommitsQuery) -> Reply[CommitPage]:
        """One page of commits whose messages match ``query.query``."""

    async def history(self, query: SearchCommitsQuery) -> Reply[CommitPage]:
        """One page of a repository's history, filtered by path, ref, author and dates."""
        assert query.owner and query.repo
        repository = f"{query.owner}/{query.repo}"
        api = self.history_api
        return await self.prefixed_reply(
            f"{self.code_path(query.owner, query.repo)}/commits",
            "commit-history",
            self.settings.ttl_commits,
            lambda r: api.parsers.parse_history(r, query.page, query.limit, repository),
            params=history_params(query, api.ref_param),
        )

    @abstractmethod
    async def commit(self, owner: str, repo: str, sha: str) -> Reply[CommitDetail]:
        """One commit with its changed files and their patches."""

    @abstractmethod
    async def compare(self, owner: str, repo: str, base: str, head: str) -> Reply[CommitDetail]:
        """What changed from ``base`` to ``head``: commits, files and patches."""

    # line history (githubGetFileBlame, traceLine)

    async def check_blame(self) -> None:
        """Raise what keeps this host from blaming (GitHub: no token), before any request;
        a host that blames without a token has nothing to check."""
        return None

    @abstractmethod
    async def blame(self, owner: str, repo: str, path: str, sha: str) -> Reply[list[BlameRange]]:
        """Who last changed each line of ``path`` at commit ``sha``, whole file."""

    async def commit_pulls(self, owner: str, repo: str, sha: str) -> Reply[list[PullRef]]:
        """The pull (merge) requests that brought commit ``sha`` in."""
        api = self.history_api
        return await self.prefixed_reply(
            f"{self.code_path(owner, repo)}/commits/{segment(sha, 'sha')}/{api.pulls}",
            "commit-pulls",
            self.settings.ttl_pull_requests,
            api.parse_commit_pulls,
        )

    async def closing_issues(self, owner: str, repo: str, number: int) -> Reply[list[IssueRef]]:
        """The issues the host itself says a pull request closes (none where only its body
        says so: the caller reads the body's closing keywords)."""
        return Reply([], cached=True)

    # clone

    async def resolve_commit(self, owner: str, repo: str, ref: str | None) -> Reply[str]:
        """The full sha ``ref`` (the default branch when None) points at."""
        api = self.history_api
        path = f"{self.code_path(owner, repo)}/commits/{segment(ref or 'HEAD', 'ref')}"
        return await self.prefixed_reply(
            path,
            "commit-sha",
            self.settings.ttl_refs,
            api.parsers.parse_sha,
            headers=api.sha_headers,
        )

    async def archive(
        self,
        owner: str,
        repo: str,
        sha: str,
        sparse_path: str | None,
        max_bytes: int,
        into: BodySink,
    ) -> None:
        """The gzipped tar archive of the repository at ``sha`` (only ``sparse_path`` where
        the host can cut it), at most ``max_bytes`` of it, streamed ``into`` a sink (a file:
        never held in memory); never cached."""
        path, params = self.archive_request(owner, repo, sha, sparse_path)
        await self.remote.send(path, params=params or None, max_bytes=max_bytes, sink=into)

    @abstractmethod
    def archive_request(
        self, owner: str, repo: str, sha: str, sparse_path: str | None
    ) -> tuple[str, dict[str, str]]:
        """The API path and parameters of the archive :meth:`archive` streams."""

    # CI: workflow runs (pipelines), their jobs and logs

    @property
    def web_host(self) -> str:
        """The host its repositories' web URLs are on (with a port other than the default):
        the API's host, less an ``api.`` prefix."""
        url = httpx.URL(self.remote.base_url)
        host = url.host.removeprefix("api.")
        return host if url.port is None else f"{host}:{url.port}"

    @property
    def host_names(self) -> frozenset[str]:
        """The names a query's ``host`` (or a repository URL's host) may give this host:
        its API's host name, its web host's, its provider, its hosts file entry's names."""
        url = httpx.URL(self.remote.base_url)
        api = url.host if url.port is None else f"{url.host}:{url.port}"
        named = self.entry.names if self.entry else frozenset()
        return frozenset({url.host, api, self.web_host, self.provider, *named})

    @abstractmethod
    async def workflow_runs(self, query: SearchWorkflowRunsQuery) -> Reply[RunPage]:
        """One page of a repository's runs (pipelines) matching the query's filters."""

    async def run_jobs(self, owner: str, repo: str, run_id: int) -> Reply[list[CiJob]]:
        """The jobs of a run (the latest attempt's), with their steps where listed."""
        ci = self.ci_api
        return await self.prefixed_reply(
            self.ci_path(owner, repo, ci.jobs_path, run=run_id),
            "ci-jobs",
            self.settings.ttl_pull_requests,
            ci.parsers.parse_jobs,
            params={**ci.jobs_params, "per_page": 100},
        )

    async def ci_job(self, owner: str, repo: str, job_id: int) -> Reply[CiJob]:
        """One job."""
        path = self.ci_path(owner, repo, self.ci_api.job_path, job=job_id)
        parse = self.ci_api.parsers.parse_job
        return await self.prefixed_reply(path, "ci-job", self.settings.ttl_pull_requests, parse)

    async def job_log(self, owner: str, repo: str, job_id: int, sink: BodySink) -> Reply[None]:
        """Stream one job's log to ``sink``; never cached."""
        return await self.stream(self.ci_path(owner, repo, self.ci_api.log_path, job=job_id), sink)

    def ci_path(self, owner: str, repo: str, path: str, **ids: int) -> str:
        """The API path of a CI answer: ``path`` (one of :attr:`ci_api`'s) below the
        project, with the ``ids`` it names ("{run}", "{job}") filled in."""
        return f"{self.project_path(owner, repo)}/{path.format(**ids)}"

    async def stream(self, path: str, sink: BodySink) -> Reply[None]:
        """Stream the answer at API path ``path`` to ``sink``, never cached. A host may
        redirect to its storage (GitHub: a signed URL), followed without octo's token: the
        reply notes where."""
        response = await self.remote.send(path, sink=sink, max_bytes=None)
        return Reply(None, notes=list(redirect_notes(response)))
