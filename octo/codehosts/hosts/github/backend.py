"""GitHub: the REST (and GraphQL) API calls behind the code-host tools.

Requests, what the cache keeps, and GitHub's own notes on an answer live here; the
policy and token in :mod:`octo.codehosts.hosts.github.policy`, the search syntax in
:mod:`octo.codehosts.hosts.github.query`, the parsing in :mod:`octo.codehosts.hosts.github.parse`.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol
from typing import TypeVar

import httpx

from octo.codehosts.hosts.file_limits import download_limit
from octo.codehosts.hosts.file_limits import file_too_large
from octo.codehosts.hosts.github import ci_parse
from octo.codehosts.hosts.github import history_parse
from octo.codehosts.hosts.github import parse
from octo.codehosts.hosts.github.line_parse import BLAME_QUERY
from octo.codehosts.hosts.github.line_parse import CLOSING_ISSUES_QUERY
from octo.codehosts.hosts.github.line_parse import graphql_url
from octo.codehosts.hosts.github.line_parse import parse_blame
from octo.codehosts.hosts.github.line_parse import parse_closing_issues
from octo.codehosts.hosts.github.line_parse import parse_commit_pulls
from octo.codehosts.hosts.github.policy import AUTH_HINTS
from octo.codehosts.hosts.github.policy import GitHubAuth
from octo.codehosts.hosts.github.policy import GitHubPolicy
from octo.codehosts.hosts.github.policy import api_url
from octo.codehosts.hosts.github.query import code_search_terms
from octo.codehosts.hosts.github.query import commit_terms
from octo.codehosts.hosts.github.query import issue_terms
from octo.codehosts.hosts.github.query import pull_request_terms
from octo.codehosts.hosts.github.query import repository_terms
from octo.codehosts.hosts.host import CiApi
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.host import CommentPage
from octo.codehosts.hosts.host import Discussion
from octo.codehosts.hosts.host import FileList
from octo.codehosts.hosts.host import HistoryApi
from octo.codehosts.hosts.host import PullCommitPage
from octo.codehosts.hosts.hosts_file import TokenSource
from octo.codehosts.models.ci import SearchWorkflowRunsQuery
from octo.codehosts.models.code import FileContentQuery
from octo.codehosts.models.code import RepoStructureQuery
from octo.codehosts.models.code import SearchCodeQuery
from octo.codehosts.models.code import SearchRepositoriesQuery
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.models.history import SearchIssuesQuery
from octo.codehosts.models.history import SearchPullRequestsQuery
from octo.codehosts.models.lines import BlameRange
from octo.codehosts.models.lines import IssueRef
from octo.codehosts.models.url_segments import file_path
from octo.codehosts.models.url_segments import segment
from octo.codehosts.shapes.ci import RunPage
from octo.codehosts.shapes.code import CodeSearchPage
from octo.codehosts.shapes.code import FileBlob
from octo.codehosts.shapes.code import Listing
from octo.codehosts.shapes.code import Reply
from octo.codehosts.shapes.code import RepositoryPage
from octo.codehosts.shapes.code import RepoTree
from octo.codehosts.shapes.code import read_listing
from octo.codehosts.shapes.history import CommitDetail
from octo.codehosts.shapes.history import CommitPage
from octo.codehosts.shapes.history import IssuePage
from octo.codehosts.shapes.history import PullRequestPage
from octo.codehosts.shapes.history import body_limit
from octo.codehosts.shapes.history import given
from octo.codehosts.shapes.shared_kinds import GITHUB_SHAPES
from octo.core.errors import AuthenticationError
from octo.core.errors import NotFoundError
from octo.core.formats import compact_json
from octo.transports.http.body import BodySink
from octo.transports.http.client import Fetched

if TYPE_CHECKING:
    pass

T = TypeVar("T")


class Paged(Protocol):
    """A query that asks for one page of a search: its number and size."""

    page: int
    limit: int


ItemT = TypeVar("ItemT")


def repo_path(owner: str, repo: str) -> str:
    """The API path of a repository: ``/repos/{owner}/{repo}``."""
    return f"/repos/{segment(owner, 'owner')}/{segment(repo, 'repo')}"


class GitHubBackend(CodeHost):
    """GitHub or GitHub Enterprise (GITHUB_API_URL)."""

    provider = "github"
    shared_shapes = GITHUB_SHAPES
    pull_kind = "pull"
    nothing_found = (
        "Code search covers default branches and files under 384 KB only.",
        "Try fewer keywords or filters; path is a directory prefix, filename an exact name.",
    )

    history_api = HistoryApi(
        parsers=history_parse,
        comments=Discussion("comments", "pull-comments", history_parse.parse_comments),
        ref_param="sha",
        pulls="pulls",
        parse_pull=history_parse.parse_pull,
        parse_commit_pulls=parse_commit_pulls,
        sha_headers={"Accept": "application/vnd.github.sha"},
    )
    ci_api = CiApi(
        jobs_path="actions/runs/{run}/jobs",
        job_path="actions/jobs/{job}",
        log_path="actions/jobs/{job}/logs",
        parsers=ci_parse,
        jobs_params={"filter": "latest"},
    )

    def connection(
        self, env: Mapping[str, str], source: TokenSource | None
    ) -> tuple[str, GitHubPolicy]:
        url = api_url(env) if self.entry is None else self.entry.api_url
        self.auth = GitHubAuth(env, url, source=source)
        return url, GitHubPolicy(self.auth)

    def project_path(self, owner: str, repo: str) -> str:
        return repo_path(owner, repo)

    async def search(
        self,
        what: str,
        terms: str,
        paging: Paged,
        parse_page: Callable[[httpx.Response, int, int], T],
        *,
        extra: Mapping[str, str | None] | None = None,
        notes: Iterable[str] = (),
        **options: Any,
    ) -> Reply[T]:
        """The page ``paging`` asks for (``page``, ``limit``) of GitHub's search API
        ``/search/{what}`` for ``terms``, as a tool's reply with ``notes``; ``extra`` parameters
        beside them (those set), ``options`` (kind, ttl, headers) as
        :meth:`RemoteClient.fetch` takes them."""
        page, per_page = paging.page, paging.limit
        params = {"q": terms, "per_page": per_page, "page": page, **given(**(extra or {}))}
        fetched = await self.remote.fetch(
            f"/search/{what}",
            params=params,
            parse=lambda r: parse_page(r, page, per_page),
            **options,
        )
        return self.replied(fetched, *notes)

    async def search_code(self, query: SearchCodeQuery) -> Reply[CodeSearchPage]:
        q, rewrites = code_search_terms(query)
        if not await self.auth.token():
            raise AuthenticationError(
                "GitHub code search needs a token",
                hints=[*AUTH_HINTS, "githubSearchRepositories works without a token."],
            )
        return await self.search(
            "code",
            q,
            query,
            parse.parse_code_search,
            kind="code-search",
            ttl=self.settings.ttl_code_search,
            headers={"Accept": "application/vnd.github.text-match+json"},
            cacheable=lambda page: not page.incomplete,
            notes=[f"Query rewritten: {note}." for note in rewrites],
        )

    async def file(self, query: FileContentQuery) -> Reply[FileBlob]:
        repo = repo_path(query.owner, query.repo)
        fetched = await self.remote.fetch(
            f"{repo}/contents/{file_path(query.path)}",
            kind="file",
            ttl=self.settings.ttl_file_content,
            params={"ref": query.branch} if query.branch else None,
            parse=parse.parse_contents,
        )
        if fetched.value.needs_blob:
            size = fetched.value.size
            if size > download_limit(query):
                raise file_too_large(query, size)  # before downloading it
            # Blobs are immutable: their SHA is the key, so the long TTL is safe.
            fetched = await self.remote.fetch(
                f"{repo}/git/blobs/{segment(fetched.value.sha, 'sha')}",
                kind="blob",
                ttl=self.settings.ttl_file_content,
                parse=parse.parse_blob,
                # base64 (4 bytes for 3, with line breaks) in a small JSON object.
                max_bytes=size * 3 // 2 + 64 * 1024,
            )
        return self.replied(fetched)

    async def tree(self, query: RepoStructureQuery) -> Reply[RepoTree]:
        fetched = await self.remote.fetch(
            f"{repo_path(query.owner, query.repo)}/git/trees/{segment(query.branch, 'branch')}",
            kind="tree",
            ttl=self.settings.ttl_tree,
            params={"recursive": "1"},
            parse=parse.parse_tree,
        )
        notes = []
        if fetched.value.truncated:
            notes.append(
                "GitHub truncated this tree (over 100,000 entries): some entries are missing; "
                "view a narrower path."
            )
        return self.replied(fetched, *notes)

    async def search_repositories(self, query: SearchRepositoriesQuery) -> Reply[RepositoryPage]:
        # best-match is GitHub's own order: asked by leaving sort out.
        sort = query.sort if query.sort != "best-match" else None
        return await self.search(
            "repositories",
            repository_terms(query),
            query,
            parse.parse_repositories,
            extra={"sort": sort},
            kind="repo-search",
            ttl=self.settings.ttl_repo_search,
        )

    owner_kind = "owner-repos"

    def owner_paths(self, owner: str) -> tuple[str, str]:
        owner = segment(owner, "owner")
        return f"/orgs/{owner}/repos", f"/users/{owner}/repos"

    parse_owner_page = staticmethod(parse.parse_owner_page)

    async def search_pull_requests(self, query: SearchPullRequestsQuery) -> Reply[PullRequestPage]:
        limit = body_limit(query)
        return await self.search(
            "issues",
            pull_request_terms(query),
            query,
            lambda r, page, per_page: history_parse.parse_pull_search(r, page, per_page, limit),
            kind="pull-search",
            ttl=self.settings.ttl_pull_requests,
        )

    async def comments(self, project: str, number: int) -> CommentPage:
        return await self.discussion(
            f"/repos/{file_path(project, 'repository')}/issues/{number}",
            self.settings.ttl_pull_requests,
        )

    async def commits(self, project: str, number: int) -> PullCommitPage:
        return await self._pull_page(
            project, f"pulls/{number}/commits", 100, history_parse.parse_commits
        )

    async def files(self, project: str, number: int, max_pages: int) -> FileList:
        return await read_listing(
            lambda cursor: self._pull_page(
                project, f"pulls/{number}/files", 100, history_parse.parse_files, cursor
            ),
            max_pages,
        )

    async def _pull_page(
        self,
        project: str,
        path: str,
        per_page: int,
        parse_page: Callable[[httpx.Response], Listing[ItemT]],
        cursor: str | None = None,
    ) -> Fetched[Listing[ItemT]]:
        """One page of a pull request's part: ``path`` below the repository, or the ``link``
        URL of a later page."""
        return await self.remote.fetch(
            cursor or f"/repos/{file_path(project, 'repository')}/{path}",
            kind=f"pull-{path.rsplit('/', 1)[-1]}",
            ttl=self.settings.ttl_pull_requests,
            params=None if cursor else {"per_page": per_page},
            parse=parse_page,
        )

    # history: issues, commits, comparisons, line history and the clone's archive

    async def search_issues(self, query: SearchIssuesQuery) -> Reply[IssuePage]:
        return await self.search(
            "issues",
            issue_terms(query),
            query,
            history_parse.parse_issue_search,
            extra={"order": query.order, "sort": query.sort},
            kind="issue-search",
            ttl=self.settings.ttl_issues,
        )

    async def search_commits(self, query: SearchCommitsQuery) -> Reply[CommitPage]:
        return await self.search(
            "commits",
            commit_terms(query),
            query,
            history_parse.parse_commit_search,
            kind="commit-search",
            ttl=self.settings.ttl_commits,
        )

    async def commit(self, owner: str, repo: str, sha: str) -> Reply[CommitDetail]:
        return await self.fetch_reply(
            f"{repo_path(owner, repo)}/commits/{segment(sha, 'sha')}",
            "commit",
            self.settings.ttl_commits,
            history_parse.parse_commit,
        )

    async def compare(self, owner: str, repo: str, base: str, head: str) -> Reply[CommitDetail]:
        spec = f"{segment(base, 'base')}...{segment(head, 'head')}"
        return await self.fetch_reply(
            f"{repo_path(owner, repo)}/compare/{spec}",
            "compare",
            self.settings.ttl_commits,
            history_parse.parse_compare,
        )

    def archive_request(
        self, owner: str, repo: str, sha: str, sparse_path: str | None
    ) -> tuple[str, dict[str, str]]:
        # GitHub answers with a redirect to its archive host, a short-lived token in the URL;
        # RemoteClient follows it without octo's credentials. GitHub cannot cut a sub-path:
        # the extractor keeps only sparse_path.
        return f"{repo_path(owner, repo)}/tarball/{segment(sha, 'ref')}", {}

    async def check_blame(self) -> None:
        """GitHub's blame is GraphQL only (no REST one), which needs a token."""
        if not await self.auth.token():
            raise AuthenticationError(
                "GitHub's blame is a GraphQL API, which needs a token: set GITHUB_TOKEN",
                hints=list(AUTH_HINTS),
            )

    async def graphql(
        self,
        kind: str,
        query: str,
        variables: Mapping[str, Any],
        parse_answer: Callable[[httpx.Response], T],
        ttl: float,
    ) -> Reply[T]:
        """One GraphQL query (a POST, so the cache is kept here: by its variables)."""
        url = graphql_url(self.remote.base_url)
        key = self.remote.cache_key(kind, url, variables)

        async def load() -> T:
            body = compact_json({"query": query, "variables": variables}).encode()
            response = await self.remote.send(
                url, method="POST", content=body, headers={"Content-Type": "application/json"}
            )
            return parse_answer(response)

        value, cached = await self.remote.cache.get_or_load(key, ttl, load)
        return Reply(value, cached)

    async def blame(self, owner: str, repo: str, path: str, sha: str) -> Reply[list[BlameRange]]:
        await self.check_blame()
        variables = {"owner": owner, "repo": repo, "sha": sha, "path": path}
        # A commit's blame never changes: kept as long as the commits' answers.
        return await self.graphql(
            "blame", BLAME_QUERY, variables, parse_blame, self.settings.ttl_commits
        )

    async def closing_issues(self, owner: str, repo: str, number: int) -> Reply[list[IssueRef]]:
        """The issues GitHub links to the pull request as closed by it (a closing keyword
        or the sidebar), through GraphQL; none without a token (the body's keywords remain)."""
        if not await self.auth.token():
            return Reply([], cached=True)
        variables = {"owner": owner, "repo": repo, "number": number}
        return await self.graphql(
            "closing-issues",
            CLOSING_ISSUES_QUERY,
            variables,
            parse_closing_issues,
            self.settings.ttl_issues,
        )

    # CI: GitHub Actions

    async def workflow_runs(self, query: SearchWorkflowRunsQuery) -> Reply[RunPage]:
        repo = repo_path(query.owner, query.repo)
        runs = f"{repo}/actions/runs"
        ttl = self.settings.ttl_pull_requests
        if query.workflow:
            found = await self.remote.fetch(
                f"{repo}/actions/workflows",
                kind="ci-workflows",
                ttl=ttl,
                params={"per_page": 100},
                parse=ci_parse.parse_workflows,
            )
            workflow = found.value.get(query.workflow.casefold())
            if workflow is None:
                raise NotFoundError(
                    f"no workflow named {query.workflow!r} in {query.owner}/{query.repo}"
                )
            runs = f"{repo}/actions/workflows/{workflow}/runs"
        head = query.headSha
        if query.prNumber is not None:
            pull = await self.remote.fetch(
                f"{repo}/pulls/{query.prNumber}",
                kind="ci-pull-head",
                ttl=ttl,
                parse=ci_parse.parse_head_sha,
            )
            head = pull.value
        per_page = 10
        params = {
            "branch": query.branch,
            "event": query.event,
            # GitHub's status parameter takes a conclusion as well.
            "status": query.conclusion or query.status,
            "head_sha": head,
            "created": query.created,
            "per_page": per_page,
            "page": query.page,
        }
        return await self.fetch_reply(
            runs,
            "ci-runs",
            ttl,
            lambda r: ci_parse.parse_runs(r, query.page, per_page),
            params={k: v for k, v in params.items() if v is not None},
        )

    async def run_log_archive(
        self, owner: str, repo: str, run_id: int, sink: BodySink
    ) -> Reply[None]:
        """Stream a run's zip archive of logs (a folder per job, a file per step) to
        ``sink``."""
        return await self.stream(f"{repo_path(owner, repo)}/actions/runs/{run_id}/logs", sink)
