"""GitHub: the REST calls behind the history tools (issues, commits, comparisons) and the
clone's archive. :class:`~octo.codehosts.github.backend.GitHubBackend` inherits them."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import TypeVar

import httpx

from octo.codehosts.github import history_parse as parse
from octo.codehosts.github.parse import parse_comments
from octo.codehosts.github.query import commit_terms
from octo.codehosts.github.query import issue_terms
from octo.codehosts.history_models import SearchCommitsQuery
from octo.codehosts.history_models import SearchIssuesQuery
from octo.codehosts.history_shapes import CommitDetail
from octo.codehosts.history_shapes import CommitPage
from octo.codehosts.history_shapes import IssuePage
from octo.codehosts.history_shapes import given
from octo.codehosts.host import CodeHost
from octo.codehosts.host import Discussion
from octo.codehosts.host import HistoryWords
from octo.codehosts.shapes import Reply
from octo.codehosts.url_segments import segment
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
