"""GitLab: the REST API v4 calls behind the code-host tools.

Owners may be nested group paths. Where GitLab cannot do what a parameter asks (filters
its basic search lacks, orders it does not know) this applies it to the page or says
so in a note. Policy and token: :mod:`octo.codehosts.hosts.gitlab.policy`; parameters:
:mod:`octo.codehosts.hosts.gitlab.query`; parsing: :mod:`octo.codehosts.hosts.gitlab.parse`.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any
from typing import TypeVar

import httpx

from octo.codehosts.hosts.file_limits import download_limit
from octo.codehosts.hosts.file_limits import file_too_large
from octo.codehosts.hosts.gitlab import ci_parse
from octo.codehosts.hosts.gitlab import history_parse
from octo.codehosts.hosts.gitlab import parse
from octo.codehosts.hosts.gitlab.line_parse import parse_blame
from octo.codehosts.hosts.gitlab.line_parse import parse_closes_issues
from octo.codehosts.hosts.gitlab.line_parse import parse_commit_merge_requests
from octo.codehosts.hosts.gitlab.policy import GitLabPolicy
from octo.codehosts.hosts.gitlab.policy import blob_url
from octo.codehosts.hosts.gitlab.policy import gitlab_token
from octo.codehosts.hosts.gitlab.policy import namespace_id
from octo.codehosts.hosts.gitlab.policy import project_id
from octo.codehosts.hosts.gitlab.policy import web_root
from octo.codehosts.hosts.gitlab.query import in_range
from octo.codehosts.hosts.gitlab.query import issue_params
from octo.codehosts.hosts.gitlab.query import matching_paths
from octo.codehosts.hosts.gitlab.query import merge_request_params
from octo.codehosts.hosts.gitlab.query import path_filter
from octo.codehosts.hosts.gitlab.query import project_params
from octo.codehosts.hosts.gitlab.query import scope_path
from octo.codehosts.hosts.host import CiApi
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.host import CommentPage
from octo.codehosts.hosts.host import Discussion
from octo.codehosts.hosts.host import FileList
from octo.codehosts.hosts.host import HistoryApi
from octo.codehosts.hosts.host import PullCommitPage
from octo.codehosts.hosts.hosts_file import TokenSource
from octo.codehosts.models.ci import SearchWorkflowRunsQuery
from octo.codehosts.models.code import CodeSearchHit
from octo.codehosts.models.code import FileContentQuery
from octo.codehosts.models.code import RepoStructureQuery
from octo.codehosts.models.code import SearchCodeQuery
from octo.codehosts.models.code import SearchRepositoriesQuery
from octo.codehosts.models.history import PullRequestFile
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.models.history import SearchIssuesQuery
from octo.codehosts.models.history import SearchPullRequestsQuery
from octo.codehosts.models.lines import BlameRange
from octo.codehosts.models.lines import IssueRef
from octo.codehosts.models.url_segments import segment
from octo.codehosts.shapes.ci import RunPage
from octo.codehosts.shapes.code import CodeSearchPage
from octo.codehosts.shapes.code import FileBlob
from octo.codehosts.shapes.code import Listing
from octo.codehosts.shapes.code import Reply
from octo.codehosts.shapes.code import RepositoryPage
from octo.codehosts.shapes.code import RepoTree
from octo.codehosts.shapes.code import TreeRow
from octo.codehosts.shapes.code import read_listing
from octo.codehosts.shapes.history import CommitDetail
from octo.codehosts.shapes.history import CommitPage
from octo.codehosts.shapes.history import IssuePage
from octo.codehosts.shapes.history import PullRequestPage
from octo.codehosts.shapes.history import body_limit
from octo.codehosts.shapes.shared_kinds import GITLAB_SHAPES
from octo.core.errors import InvalidQueryError
from octo.core.errors import NotFoundError
from octo.transports.http.body import BodyTooLargeError
from octo.transports.http.client import Fetched

if TYPE_CHECKING:
    pass

ItemT = TypeVar("ItemT")

#: The kinds of the pages this backend still filters (besides the host-neutral ones).
GITLAB_PAGES: Mapping[str, Any] = {
    "gitlab-blob-search": parse.Page[parse.Blob],
    "gitlab-projects": parse.Page[parse.Project],
}
#: A tree listing stops after this many pages of 100 entries (and says it was cut).
MAX_TREE_PAGES = 30
#: Files per page of merge-request diffs.
DIFF_PAGE_SIZE = 50
#: Pages of 100 changed files read for one commit.
COMMIT_DIFF_PAGES = 3


class GitLabBackend(CodeHost):
    """gitlab.com or a self-managed instance (GITLAB_HOST)."""

    provider = "gitlab"
    shared_shapes = {**GITLAB_SHAPES, **GITLAB_PAGES}
    pull_kind = "gitlab-mr"
    pulls_noun = "merge requests"
    number_word = "IID"
    number_hint = "prNumber is the merge request's IID (the !N shown in GitLab)."
    owner_note = " (owner may be a group path such as group/subgroup)"
    nothing_found = ("Nothing found: GitLab searches the default branch; try fewer keywords.",)

    kind_prefix = "gitlab-"
    history_api = HistoryApi(
        parsers=history_parse,
        comments=Discussion(
            "notes",
            "gitlab-mr-notes",
            history_parse.parse_notes,
            {"sort": "asc", "order_by": "created_at"},
        ),
        ref_param="ref_name",
        pulls="merge_requests",
        parse_pull=history_parse.parse_merge_request,
        parse_commit_pulls=parse_commit_merge_requests,
    )
    ci_api = CiApi(
        jobs_path="pipelines/{run}/jobs",
        job_path="jobs/{job}",
        log_path="jobs/{job}/trace",
        parsers=ci_parse,
    )

    def connection(
        self, env: Mapping[str, str], source: TokenSource | None
    ) -> tuple[str, GitLabPolicy]:
        if self.entry is None:
            self.web_root = web_root(env)
            self.token = gitlab_token(env)
        else:
            self.web_root = self.entry.api_url.removesuffix("/api/v4")
            self.token = None
        return f"{self.web_root}/api/v4", GitLabPolicy(self.token, source=source)

    def not_found_hints(self, what: str) -> list[str]:
        hints = super().not_found_hints(what)
        if not self.token and self.entry is None:
            hints.append(
                "GitLab answers 404 for private projects without a token: set GITLAB_TOKEN."
            )
        return hints

    def project_path(self, owner: str, repo: str) -> str:
        return f"/projects/{project_id(owner, repo)}"

    def code_path(self, owner: str, repo: str) -> str:
        return f"{self.project_path(owner, repo)}/repository"

    async def _page(
        self,
        path: str,
        params: Mapping[str, Any],
        cursor: str | None,
        *,
        kind: str,
        ttl: float,
        parse_page: Callable[[httpx.Response], Listing[ItemT]],
    ) -> Fetched[Listing[ItemT]]:
        """One page of a listing: the first (no cursor), a page number, or a Link URL."""
        if cursor is not None and not cursor.isdigit():
            path, params = cursor, {}
        elif cursor is not None:
            params = {**params, "page": int(cursor)}
        return await self.remote.fetch(
            path, kind=kind, ttl=ttl, params=params or None, parse=parse_page
        )

    # code search

    async def search_code(self, query: SearchCodeQuery) -> Reply[CodeSearchPage]:
        if query.match == "path":
            return await self._search_paths(query)
        phrase = " ".join(k.strip() for k in query.keywordsToSearch)
        try:
            fetched = await self.remote.fetch(
                scope_path(query.owner, query.repo, "search"),
                kind="gitlab-blob-search",
                ttl=self.settings.ttl_code_search,
                params={
                    "scope": "blobs",
                    "search": phrase,
                    "per_page": query.limit,
                    "page": query.page,
                },
                parse=lambda r: parse.parse_blob_search(r, query.page, query.limit),
            )
        except InvalidQueryError as exc:
            if query.repo:
                raise
            where = f"group {query.owner}" if query.owner else "the whole instance"
            raise InvalidQueryError(
                f"GitLab cannot search code across {where} here: {exc.message}",
                hints=[
                    "Group and instance-wide code search need GitLab advanced search (or exact "
                    "code search); give owner and repo to search one project.",
                    "Find the project first with githubSearchRepositories (provider gitlab).",
                ],
            ) from None
        page = fetched.value
        keep = path_filter(query)
        blobs = [b for b in page.items if keep is None or keep(b.path)]
        notes = []
        if len(query.keywordsToSearch) > 1:
            notes.append(
                f'GitLab\'s basic search matches "{phrase}" as one phrase (advanced search '
                "matches each word): for files holding each keyword anywhere, search them one "
                "per query."
            )
        if keep is not None:
            notes.append(
                "GitLab's basic search has no extension/filename/path filters: they were applied "
                f"here to this page ({len(blobs)} of {len(page.items)} results kept); later pages "
                "may hold more."
            )
        found = CodeSearchPage(
            hits=[parse.code_hit(self.web_root, query, blob) for blob in blobs],
            total=page.total,
            has_more=page.has_next,
            first_line=blobs[0].startline if blobs else None,
        )
        return self.reply(found, fetched, *notes)

    async def _search_paths(self, query: SearchCodeQuery) -> Reply[CodeSearchPage]:
        """match="path": GitLab's blob search reads contents only, so walk the tree instead."""
        if not (query.owner and query.repo):
            raise InvalidQueryError(
                'match="path" on GitLab needs owner and repo: paths are matched in the '
                "project's file tree",
                hints=["Give owner and repo, or search contents (match unset)."],
            )
        fetched = await self._tree_rows(query.owner, query.repo, "HEAD", "", recursive=True)
        matching = matching_paths(fetched.value.items, query)
        repository = f"{query.owner}/{query.repo}"
        shown = matching[(query.page - 1) * query.limit : query.page * query.limit]
        found = CodeSearchPage(
            hits=[
                CodeSearchHit(
                    file=path,
                    repository=repository,
                    matches=0,
                    url=blob_url(self.web_root, repository, "HEAD", path),
                )
                for path in shown
            ],
            total=len(matching),
            has_more=query.page * query.limit < len(matching),
        )
        notes = ["Paths were matched in the default branch's file tree."]
        if fetched.value.next is not None:
            notes.append("The tree was too large to list completely: some paths were not seen.")
        return self.reply(found, fetched, *notes)

    # files and trees

    async def file(self, query: FileContentQuery) -> Reply[FileBlob]:
        file_path = segment(query.path, "path")
        try:
            fetched = await self.remote.fetch(
                f"/projects/{project_id(query.owner, query.repo)}/repository/files/{file_path}/raw",
                kind="gitlab-file",
                ttl=self.settings.ttl_file_content,
                params={"ref": query.branch or "HEAD"},
                parse=parse.parse_raw_file,
                max_bytes=download_limit(query),
            )
        except BodyTooLargeError as exc:
            raise file_too_large(query, exc.size) from None
        return self.replied(fetched)

    async def _tree_rows(
        self, owner: str, repo: str, ref: str, path: str, *, recursive: bool
    ) -> Fetched[Listing[TreeRow]]:
        """A tree listing, every page followed up to MAX_TREE_PAGES (``next`` set beyond)."""
        url = f"/projects/{project_id(owner, repo)}/repository/tree"
        params: dict[str, Any] = {
            "ref": ref,
            "per_page": 100,
            "pagination": "keyset",
            **({"path": path} if path else {}),
            **({"recursive": "true"} if recursive else {}),
        }
        return await read_listing(
            lambda cursor: self._page(
                url,
                params,
                cursor,
                kind="gitlab-tree",
                ttl=self.settings.ttl_tree,
                parse_page=parse.parse_tree_page,
            ),
            MAX_TREE_PAGES,
        )

    async def tree(self, query: RepoStructureQuery) -> Reply[RepoTree]:
        prefix = query.path.strip("/")
        fetched = await self._tree_rows(
            query.owner, query.repo, query.branch, prefix, recursive=query.depth > 1
        )
        entries = list(fetched.value.items)
        if prefix:
            # GitLab lists what is below a path (404 when it does not exist), not the path itself.
            entries.append((prefix, "dir", None, None))
        truncated = fetched.value.next is not None
        notes = []
        if truncated:
            notes.append(
                f"The listing stopped after {MAX_TREE_PAGES * 100} entries: some are missing; "
                "view a narrower path or depth=1."
            )
        notes.append("GitLab's tree API gives no file sizes.")
        return self.reply(RepoTree(truncated=truncated, entries=entries), fetched, *notes)

    # projects

    async def search_repositories(self, query: SearchRepositoriesQuery) -> Reply[RepositoryPage]:
        params, notes = project_params(query)
        fetched = await self._projects(query, params)
        page = fetched.value
        projects = page.items
        if query.stars:
            projects = [p for p in projects if in_range(p.repository.stars, query.stars, int)]
        if query.created:
            projects = [
                p for p in projects if in_range((p.created_at or "")[:10], query.created, str)
            ]
        if query.stars or query.created:
            notes.append(
                "GitLab has no stars/created filters: they were applied here to this page "
                f"({len(projects)} of {len(page.items)} kept); later pages may hold more."
            )
        found = RepositoryPage(
            repositories=[p.repository for p in projects], total=page.total, has_more=page.has_next
        )
        return self.reply(found, fetched, *notes)

    async def _projects(
        self, query: SearchRepositoriesQuery, params: dict[str, Any]
    ) -> Fetched[parse.Page[parse.Project]]:
        """Projects of a group (subgroups included), of a user, or of the whole instance."""

        async def listing(path: str, **extra: str) -> Fetched[parse.Page[parse.Project]]:
            return await self.remote.fetch(
                path,
                kind="gitlab-projects",
                ttl=self.settings.ttl_repo_search,
                params={**params, **extra},
                parse=lambda r: parse.parse_projects(r, query.page, query.limit),
            )

        if not query.owner:
            return await listing("/projects")
        namespace = namespace_id(query.owner)
        try:
            return await listing(f"/groups/{namespace}/projects", include_subgroups="true")
        except NotFoundError:
            pass  # not a group: a user's namespace
        return await listing(f"/users/{namespace}/projects")

    owner_kind = "gitlab-owner-repos"

    def owner_paths(self, owner: str) -> tuple[str, str]:
        namespace = namespace_id(owner)
        return f"/groups/{namespace}/projects", f"/users/{namespace}/projects"

    parse_owner_page = staticmethod(parse.parse_owner_page)

    # merge requests

    async def search_pull_requests(self, query: SearchPullRequestsQuery) -> Reply[PullRequestPage]:
        params, notes = merge_request_params(query)
        limit = body_limit(query)
        fetched = await self.remote.fetch(
            scope_path(query.owner, query.repo, "merge_requests"),
            kind="gitlab-mrs",
            ttl=self.settings.ttl_pull_requests,
            params=params,
            parse=lambda r: history_parse.parse_merge_requests(r, query.page, query.limit, limit),
        )
        page = fetched.value
        if query.merged is False:
            # "Not merged" is no state of GitLab's: the merged ones are dropped here.
            kept = [i for i, pull in enumerate(page.pulls) if not pull.merged]
            page = page.model_copy(
                update={
                    "pulls": [page.pulls[i] for i in kept],
                    "projects": [page.projects[i] for i in kept],
                }
            )
        return self.reply(page, fetched, *notes)

    async def comments(self, project: str, number: int) -> CommentPage:
        path = f"/projects/{project}/merge_requests/{number}"
        return await self.discussion(path, self.settings.ttl_pull_requests)

    async def commits(self, project: str, number: int) -> PullCommitPage:
        return await self.remote.fetch(
            f"/projects/{project}/merge_requests/{number}/commits",
            kind="gitlab-mr-commits",
            ttl=self.settings.ttl_pull_requests,
            params={"per_page": 100},
            parse=history_parse.parse_commits,
        )

    async def files(self, project: str, number: int, max_pages: int) -> FileList:
        base = f"/projects/{project}/merge_requests/{number}"
        return await read_listing(lambda cursor: self._diff_page(base, cursor), max_pages)

    async def _diff_page(self, base: str, cursor: str | None) -> FileList:
        """A page of a merge request's file diffs (``/changes``, unpaged, on old instances)."""
        ttl = self.settings.ttl_pull_requests
        try:
            return await self._page(
                f"{base}/diffs",
                {"per_page": DIFF_PAGE_SIZE, "page": 1},
                cursor,
                kind="gitlab-mr-diffs",
                ttl=ttl,
                parse_page=history_parse.parse_diffs,
            )
        except NotFoundError:
            if cursor is not None:
                raise
        return await self.remote.fetch(
            f"{base}/changes", kind="gitlab-mr-changes", ttl=ttl, parse=history_parse.parse_diffs
        )

    # history: issues, commits, comparisons, line history and the clone's archive

    async def search_issues(self, query: SearchIssuesQuery) -> Reply[IssuePage]:
        params, notes = issue_params(query)
        fetched = await self.remote.fetch(
            scope_path(query.owner, query.repo, "issues"),
            kind="gitlab-issues",
            ttl=self.settings.ttl_issues,
            params=params,
            parse=lambda r: history_parse.parse_issues(r, query.page, query.limit),
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
            lambda r: history_parse.parse_commit_page(
                r, query.page, query.limit, repository, counted=True
            ),
            params={**params, "page": query.page},
        )

    async def commit(self, owner: str, repo: str, sha: str) -> Reply[CommitDetail]:
        base = f"{self.code_path(owner, repo)}/commits/{segment(sha, 'sha')}"
        repository = f"{owner}/{repo}"
        fetched = await self.remote.fetch(
            base,
            kind="gitlab-commit",
            ttl=self.settings.ttl_commits,
            parse=lambda r: history_parse.parse_commit(r, repository),
        )

        async def diff_page(cursor: str | None) -> Fetched[Listing[PullRequestFile]]:
            return await self.remote.fetch(
                f"{base}/diff",
                kind="gitlab-mr-diffs",
                ttl=self.settings.ttl_commits,
                params={"per_page": 100, "page": int(cursor or 1)},
                parse=history_parse.parse_diffs,
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
            history_parse.parse_compare,
            params={"from": base, "to": head},
        )

    def archive_request(
        self, owner: str, repo: str, sha: str, sparse_path: str | None
    ) -> tuple[str, dict[str, str]]:
        params = {"sha": sha, **({"path": sparse_path} if sparse_path else {})}
        return f"{self.code_path(owner, repo)}/archive.tar.gz", params

    async def blame(self, owner: str, repo: str, path: str, sha: str) -> Reply[list[BlameRange]]:
        file_path = segment(path, "path")
        return await self.prefixed_reply(
            f"{self.code_path(owner, repo)}/files/{file_path}/blame",
            "blame",
            self.settings.ttl_commits,
            parse_blame,
            params={"ref": sha},
        )

    async def closing_issues(self, owner: str, repo: str, number: int) -> Reply[list[IssueRef]]:
        return await self.prefixed_reply(
            f"{self.pull_request_path(owner, repo, number)}/closes_issues",
            "closes-issues",
            self.settings.ttl_issues,
            parse_closes_issues,
        )

    # CI: pipelines

    async def workflow_runs(self, query: SearchWorkflowRunsQuery) -> Reply[RunPage]:
        project = project_id(query.owner, query.repo)
        path = f"/projects/{project}/pipelines"
        if query.prNumber is not None:
            path = f"/projects/{project}/merge_requests/{query.prNumber}/pipelines"
        after, before = ci_parse.created_range(query.created)
        per_page = 10
        status = ci_parse.FINISHED.get(query.conclusion or "") or ci_parse.STATUSES.get(
            query.status or ""
        )
        params = {
            "ref": query.branch,
            "sha": query.headSha,
            "source": query.event,
            "status": status,
            "name": query.workflow,
            "created_after": after,
            "created_before": before,
            "per_page": per_page,
            "page": query.page,
        }
        return await self.fetch_reply(
            path,
            "gitlab-pipelines",
            self.settings.ttl_pull_requests,
            lambda r: ci_parse.parse_pipelines(r, query.page, per_page),
            params={k: v for k, v in params.items() if v is not None},
        )
