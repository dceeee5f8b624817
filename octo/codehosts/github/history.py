"""GitHub: the REST calls behind the history tools (issues, commits, comparisons) and the
clone's archive. :class:`~octo.codehosts.github.backend.GitHubBackend` inherits them."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from octo.codehosts.github import history_parse as parse
from octo.codehosts.github.parse import parse_comments
from octo.codehosts.github.query import commit_terms
from octo.codehosts.github.query import issue_terms
from octo.codehosts.history_models import SearchCommitsQuery
from octo.codehosts.history_models import SearchIssuesQuery
from octo.codehosts.history_shapes import CommitDetail
from octo.codehosts.history_shapes import CommitPage
from octo.codehosts.history_shapes import IssuePage
from octo.codehosts.history_shapes import history_params
from octo.codehosts.host import CodeHost
from octo.codehosts.host import CommentPage
from octo.codehosts.shapes import Reply


def repo_path(owner: str, repo: str) -> str:
    """The API path of a repository: ``/repos/{owner}/{repo}``."""
    return f"/repos/{quote(owner)}/{quote(repo)}"


class GitHubHistory(CodeHost):
    """GitHub's issues, commits, comparisons and archives."""

    async def search_issues(self, query: SearchIssuesQuery) -> Reply[IssuePage]:
        params: dict[str, Any] = {
            "q": issue_terms(query),
            "per_page": query.limit,
            "page": query.page,
            "order": query.order,
        }
        if query.sort:
            params["sort"] = query.sort
        return self.replied(
            await self.remote.fetch(
                "/search/issues",
                kind="issue-search",
                ttl=self.settings.ttl_issues,
                params=params,
                parse=lambda r: parse.parse_issue_search(r, query.page, query.limit),
            )
        )

    async def issue(self, owner: str, repo: str, number: int) -> Reply[IssuePage]:
        return self.replied(
            await self.remote.fetch(
                f"{repo_path(owner, repo)}/issues/{number}",
                kind="issue",
                ttl=self.settings.ttl_issues,
                parse=parse.parse_issue,
            )
        )

    async def issue_comments(self, owner: str, repo: str, number: int, page: int) -> CommentPage:
        return await self.remote.fetch(
            f"{repo_path(owner, repo)}/issues/{number}/comments",
            kind="pull-comments",
            ttl=self.settings.ttl_issues,
            params={"per_page": 30, "page": page},
            parse=parse_comments,
        )

    async def search_commits(self, query: SearchCommitsQuery) -> Reply[CommitPage]:
        return self.replied(
            await self.remote.fetch(
                "/search/commits",
                kind="commit-search",
                ttl=self.settings.ttl_commits,
                params={"q": commit_terms(query), "per_page": query.limit, "page": query.page},
                parse=lambda r: parse.parse_commit_search(r, query.page, query.limit),
            )
        )

    async def history(self, query: SearchCommitsQuery) -> Reply[CommitPage]:
        assert query.owner and query.repo
        repository = f"{query.owner}/{query.repo}"
        return self.replied(
            await self.remote.fetch(
                f"{repo_path(query.owner, query.repo)}/commits",
                kind="commit-history",
                ttl=self.settings.ttl_commits,
                params=history_params(query, "sha"),
                parse=lambda r: parse.parse_history(r, repository),
            )
        )

    async def commit(self, owner: str, repo: str, sha: str) -> Reply[CommitDetail]:
        return self.replied(
            await self.remote.fetch(
                f"{repo_path(owner, repo)}/commits/{quote(sha, safe='')}",
                kind="commit",
                ttl=self.settings.ttl_commits,
                parse=parse.parse_commit,
            )
        )

    async def compare(self, owner: str, repo: str, base: str, head: str) -> Reply[CommitDetail]:
        spec = f"{quote(base, safe='')}...{quote(head, safe='')}"
        return self.replied(
            await self.remote.fetch(
                f"{repo_path(owner, repo)}/compare/{spec}",
                kind="compare",
                ttl=self.settings.ttl_commits,
                parse=parse.parse_compare,
            )
        )

    async def resolve_commit(self, owner: str, repo: str, ref: str | None) -> Reply[str]:
        return self.replied(
            await self.remote.fetch(
                f"{repo_path(owner, repo)}/commits/{quote(ref or 'HEAD', safe='')}",
                kind="commit-sha",
                ttl=self.settings.ttl_refs,
                headers={"Accept": "application/vnd.github.sha"},
                parse=parse.parse_sha,
            )
        )

    async def archive(
        self, owner: str, repo: str, sha: str, sparse_path: str | None, max_bytes: int
    ) -> bytes:
        # GitHub answers with a redirect to its archive host, a short-lived token in the URL;
        # RemoteClient follows it without octo's credentials. GitHub cannot cut a sub-path:
        # the extractor keeps only sparse_path.
        response = await self.remote.send(
            f"{repo_path(owner, repo)}/tarball/{sha}", max_bytes=max_bytes
        )
        return response.content
