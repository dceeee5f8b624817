"""GitHub: the REST calls behind the history tools (issues, commits, comparisons) and the
clone's archive. :class:`~octo.codehosts.hosts.github.backend.GitHubBackend` inherits them."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import TypeVar

import httpx

from octo.codehosts.hosts.github import history_parse as parse
from octo.codehosts.hosts.github.line_parse import BLAME_QUERY
from octo.codehosts.hosts.github.line_parse import CLOSING_ISSUES_QUERY
from octo.codehosts.hosts.github.line_parse import graphql_url
from octo.codehosts.hosts.github.line_parse import parse_blame
from octo.codehosts.hosts.github.line_parse import parse_closing_issues
from octo.codehosts.hosts.github.line_parse import parse_commit_pulls
from octo.codehosts.hosts.github.parse import parse_comments
from octo.codehosts.hosts.github.policy import AUTH_HINTS
from octo.codehosts.hosts.github.policy import GitHubPolicy
from octo.codehosts.hosts.github.query import commit_terms
from octo.codehosts.hosts.github.query import issue_terms
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.host import Discussion
from octo.codehosts.hosts.host import HistoryWords
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.models.history import SearchIssuesQuery
from octo.codehosts.models.lines import BlameRange
from octo.codehosts.models.lines import IssueRef
from octo.codehosts.models.lines import PullRef
from octo.codehosts.models.url_segments import segment
from octo.codehosts.shapes.code import Reply
from octo.codehosts.shapes.history import CommitDetail
from octo.codehosts.shapes.history import CommitPage
from octo.codehosts.shapes.history import IssuePage
from octo.codehosts.shapes.history import given
from octo.core.errors import AuthenticationError
from octo.core.formats import compact_json
from octo.transports.http_body import BodySink
from octo.transports.http_client import Fetched

T = TypeVar("T")


def repo_path(owner: str, repo: str) -> str:
    """The API path of a repository: ``/repos/{owner}/{repo}``."""
    return f"/repos/{segment(owner, 'owner')}/{segment(repo, 'repo')}"


class GitHubHistory(CodeHost):
    """GitHub's issues, commits, comparisons and archives."""

    history_words = HistoryWords(
        kind_prefix="",
        parse_issue=parse.parse_issue,
        comments=Discussion("comments", "pull-comments", parse_comments),
        parse_history=parse.parse_history,
        ref_param="sha",
        parse_sha=parse.parse_sha,
        sha_headers={"Accept": "application/vnd.github.sha"},
    )

    def project_path(self, owner: str, repo: str) -> str:
        return repo_path(owner, repo)

    async def search(
        self,
        what: str,
        terms: str,
        paging: tuple[int, int],
        parse_page: Callable[[httpx.Response, int, int], T],
        *,
        extra: Mapping[str, str | None] | None = None,
        **options: Any,
    ) -> Fetched[T]:
        """Page ``paging`` (number, size) of GitHub's search API ``/search/{what}`` for
        ``terms``; ``extra`` parameters beside them (those set), ``options`` (kind, ttl,
        headers) as :meth:`RemoteClient.fetch` takes them."""
        page, per_page = paging
        params = {"q": terms, "per_page": per_page, "page": page, **given(**(extra or {}))}
        return await self.remote.fetch(
            f"/search/{what}",
            params=params,
            parse=lambda r: parse_page(r, page, per_page),
            **options,
        )

    async def search_issues(self, query: SearchIssuesQuery) -> Reply[IssuePage]:
        fetched = await self.search(
            "issues",
            issue_terms(query),
            (query.page, query.limit),
            parse.parse_issue_search,
            extra={"order": query.order, "sort": query.sort},
            kind="issue-search",
            ttl=self.settings.ttl_issues,
        )
        return self.replied(fetched)

    async def search_commits(self, query: SearchCommitsQuery) -> Reply[CommitPage]:
        fetched = await self.search(
            "commits",
            commit_terms(query),
            (query.page, query.limit),
            parse.parse_commit_search,
            kind="commit-search",
            ttl=self.settings.ttl_commits,
        )
        return self.replied(fetched)

    async def commit(self, owner: str, repo: str, sha: str) -> Reply[CommitDetail]:
        return await self.fetch_reply(
            f"{repo_path(owner, repo)}/commits/{segment(sha, 'sha')}",
            "commit",
            self.settings.ttl_commits,
            parse.parse_commit,
        )

    async def compare(self, owner: str, repo: str, base: str, head: str) -> Reply[CommitDetail]:
        spec = f"{segment(base, 'base')}...{segment(head, 'head')}"
        return await self.fetch_reply(
            f"{repo_path(owner, repo)}/compare/{spec}",
            "compare",
            self.settings.ttl_commits,
            parse.parse_compare,
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
        # GitHub answers with a redirect to its archive host, a short-lived token in the URL;
        # RemoteClient follows it without octo's credentials. GitHub cannot cut a sub-path:
        # the extractor keeps only sparse_path.
        await self.remote.send(
            f"{repo_path(owner, repo)}/tarball/{segment(sha, 'ref')}",
            max_bytes=max_bytes,
            sink=into,
        )

    async def check_blame(self) -> None:
        """GitHub's blame is GraphQL only (no REST one), which needs a token."""
        policy = self.remote.policy
        assert isinstance(policy, GitHubPolicy)
        if not await policy.auth.token():
            raise AuthenticationError(
                "GitHub's blame is a GraphQL API, which needs a token: set GITHUB_TOKEN",
                hints=list(AUTH_HINTS),
            )

    async def graphql(
        self,
        kind: str,
        query: str,
        variables: Mapping[str, Any],
        parse: Callable[[httpx.Response], T],
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
            return parse(response)

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
        policy = self.remote.policy
        assert isinstance(policy, GitHubPolicy)
        if not await policy.auth.token():
            return Reply([], cached=True)
        variables = {"owner": owner, "repo": repo, "number": number}
        return await self.graphql(
            "closing-issues",
            CLOSING_ISSUES_QUERY,
            variables,
            parse_closing_issues,
            self.settings.ttl_issues,
        )

    async def commit_pulls(self, owner: str, repo: str, sha: str) -> Reply[list[PullRef]]:
        return await self.history_reply(
            f"{repo_path(owner, repo)}/commits/{segment(sha, 'sha')}/pulls",
            "commit-pulls",
            self.settings.ttl_pull_requests,
            parse_commit_pulls,
        )
