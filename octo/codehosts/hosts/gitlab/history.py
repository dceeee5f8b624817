"""GitLab: the REST v4 calls behind the history tools (issues, commits, comparisons) and the
clone's archive. :class:`~octo.codehosts.hosts.gitlab.backend.GitLabBackend` inherits them."""

from __future__ import annotations

from octo.codehosts.hosts.gitlab import history_parse as parse
from octo.codehosts.hosts.gitlab.line_parse import parse_blame
from octo.codehosts.hosts.gitlab.line_parse import parse_closes_issues
from octo.codehosts.hosts.gitlab.line_parse import parse_commit_merge_requests
from octo.codehosts.hosts.gitlab.parse import parse_diffs
from octo.codehosts.hosts.gitlab.parse import parse_notes
from octo.codehosts.hosts.gitlab.policy import project_id
from octo.codehosts.hosts.gitlab.query import in_range
from octo.codehosts.hosts.gitlab.query import issue_params
from octo.codehosts.hosts.gitlab.query import scope_path
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.host import Discussion
from octo.codehosts.hosts.host import HistoryWords
from octo.codehosts.models.code import PullRequestFile
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.models.history import SearchIssuesQuery
from octo.codehosts.models.lines import BlameRange
from octo.codehosts.models.lines import IssueRef
from octo.codehosts.models.lines import PullRef
from octo.codehosts.models.url_segments import segment
from octo.codehosts.shapes.code import Listing
from octo.codehosts.shapes.code import Reply
from octo.codehosts.shapes.code import read_listing
from octo.codehosts.shapes.history import CommitDetail
from octo.codehosts.shapes.history import CommitPage
from octo.codehosts.shapes.history import IssuePage
from octo.transports.http_body import BodySink
from octo.transports.http_client import Fetched

#: Pages of 100 changed files read for one commit.
COMMIT_DIFF_PAGES = 3


class GitLabHistory(CodeHost):
    """GitLab's issues, commits, comparisons and archives."""

    history_words = HistoryWords(
        kind_prefix="gitlab-",
        parse_issue=parse.parse_issue,
        comments=Discussion(
            "notes", "gitlab-mr-notes", parse_notes, {"sort": "asc", "order_by": "created_at"}
        ),
        parse_history=parse.parse_history,
        ref_param="ref_name",
        parse_sha=parse.parse_sha,
    )

    def project_path(self, owner: str, repo: str) -> str:
        return f"/projects/{project_id(owner, repo)}"

    def code_path(self, owner: str, repo: str) -> str:
        return f"{self.project_path(owner, repo)}/repository"

    async def search_issues(self, query: SearchIssuesQuery) -> Reply[IssuePage]:
        params, notes = issue_params(query)
        fetched = await self.remote.fetch(
            scope_path(query.owner, query.repo, "issues"),
            kind="gitlab-issues",
            ttl=self.settings.ttl_issues,
            params=params,
            parse=lambda r: parse.parse_issues(r, query.page, query.limit),
        )
        page = fetched.value
        if query.comments:
            kept = [i for i in page.issues if in_range(i.commentCount, query.comments, int)]
            notes.append(
                "GitLab has no comments filter: it was applied here to this page "
                f"({len(kept)} of {len(page.issues)} kept); later pages may hold more."
            )
            page = page.model_copy(update={"issues": kept})
        return self.reply(page, fetched, *notes)

    async def search_commits(self, query: SearchCommitsQuery) -> Reply[CommitPage]:
        repository = f"{query.owner}/{query.repo}" if query.owner and query.repo else ""
        params = {"scope": "commits", "search": query.query, "per_page": query.limit}
        return await self.fetch_reply(
            scope_path(query.owner, query.repo, "search"),
            "gitlab-commit-search",
            self.settings.ttl_commits,
            lambda r: parse.parse_commit_page(r, query.page, query.limit, repository, counted=True),
            params={**params, "page": query.page},
        )

    async def commit(self, owner: str, repo: str, sha: str) -> Reply[CommitDetail]:
        base = f"{self.code_path(owner, repo)}/commits/{segment(sha, 'sha')}"
        repository = f"{owner}/{repo}"
        fetched = await self.remote.fetch(
            base,
            kind="gitlab-commit",
            ttl=self.settings.ttl_commits,
            parse=lambda r: parse.parse_commit(r, repository),
        )

        async def diff_page(cursor: str | None) -> Fetched[Listing[PullRequestFile]]:
            return await self.remote.fetch(
                f"{base}/diff",
                kind="gitlab-mr-diffs",
                ttl=self.settings.ttl_commits,
                params={"per_page": 100, "page": int(cursor or 1)},
                parse=parse_diffs,
            )

        diffs = await read_listing(diff_page, COMMIT_DIFF_PAGES)
        detail = fetched.value.model_copy(
            update={"files": diffs.value.items, "files_truncated": diffs.value.next is not None}
        )
        return Reply(detail, fetched.cached and diffs.cached, self.remote.hints(fetched))

    async def compare(self, owner: str, repo: str, base: str, head: str) -> Reply[CommitDetail]:
        return await self.fetch_reply(
            f"{self.code_path(owner, repo)}/compare",
            "gitlab-compare",
            self.settings.ttl_commits,
            parse.parse_compare,
            params={"from": base, "to": head},
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
        params = {"sha": sha, **({"path": sparse_path} if sparse_path else {})}
        await self.remote.send(
            f"{self.code_path(owner, repo)}/archive.tar.gz",
            params=params,
            max_bytes=max_bytes,
            sink=into,
        )

    async def blame(self, owner: str, repo: str, path: str, sha: str) -> Reply[list[BlameRange]]:
        file_path = segment(path, "path")
        return await self.history_reply(
            f"{self.code_path(owner, repo)}/files/{file_path}/blame",
            "blame",
            self.settings.ttl_commits,
            parse_blame,
            params={"ref": sha},
        )

    async def commit_pulls(self, owner: str, repo: str, sha: str) -> Reply[list[PullRef]]:
        return await self.history_reply(
            f"{self.code_path(owner, repo)}/commits/{segment(sha, 'sha')}/merge_requests",
            "commit-pulls",
            self.settings.ttl_pull_requests,
            parse_commit_merge_requests,
        )

    async def closing_issues(self, owner: str, repo: str, number: int) -> Reply[list[IssueRef]]:
        return await self.history_reply(
            f"{self.project_path(owner, repo)}/merge_requests/{number}/closes_issues",
            "closes-issues",
            self.settings.ttl_issues,
            parse_closes_issues,
        )
