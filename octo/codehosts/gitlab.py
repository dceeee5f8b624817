"""GitLab: the REST API v4 calls behind the five code-host tools.

Owners may be nested group paths. Where GitLab cannot do what a parameter asks (filters
its basic search lacks, orders it does not know) this applies it to the page or says
so in a note. Policy and token: :mod:`octo.codehosts.gitlab_policy`; parameters:
:mod:`octo.codehosts.gitlab_query`; parsing: :mod:`octo.codehosts.gitlab_parse`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

import httpx

from octo.codehosts import gitlab_parse as parse
from octo.codehosts.gitlab_policy import (
    GitLabPolicy,
    gitlab_token,
    namespace_id,
    project_id,
    web_root,
)
from octo.codehosts.gitlab_query import (
    in_range,
    merge_request_params,
    path_filter,
    project_params,
    spans,
)
from octo.codehosts.host import CodeHost
from octo.codehosts.models import (
    CodeSearchHit,
    FileContentQuery,
    PullRequestComment,
    PullRequestCommit,
    PullRequestFile,
    RepoStructureQuery,
    SearchCodeQuery,
    SearchPullRequestsQuery,
    SearchRepositoriesQuery,
    TextMatch,
)
from octo.codehosts.shapes import (
    CodeSearchPage,
    FileBlob,
    Listing,
    PullRequestPage,
    Reply,
    RepositoryPage,
    RepoTree,
    TreeRow,
    read_listing,
)
from octo.core.errors import InvalidQueryError, NotFoundError
from octo.core.redaction import redact
from octo.transports.http_client import Fetched

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

ItemT = TypeVar("ItemT")

#: A tree listing stops after this many pages of 100 entries (and says it was cut).
MAX_TREE_PAGES = 30
#: Files per page of merge-request diffs.
DIFF_PAGE_SIZE = 50


class GitLabBackend(CodeHost):
    """gitlab.com or a self-managed instance (GITLAB_HOST)."""

    name = "GitLab"
    provider = "gitlab"
    pulls_noun = "merge requests"
    number_word = "IID"
    number_hint = "prNumber is the merge request's IID (the !N shown in GitLab)."
    owner_note = " (owner may be a group path such as group/subgroup)"
    nothing_found = ("Nothing found: GitLab searches the default branch; try fewer keywords.",)

    def __init__(self, runtime: Runtime) -> None:
        self.web_root = web_root(runtime.config.env)
        self.token = gitlab_token(runtime.config.env)
        super().__init__(runtime, f"{self.web_root}/api/v4", GitLabPolicy(self.token))

    def not_found_hints(self, what: str) -> list[str]:
        hints = super().not_found_hints(what)
        if not self.token:
            hints.append(
                "GitLab answers 404 for private projects without a token: set GITLAB_TOKEN."
            )
        return hints

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
        keywords = [k.strip() for k in query.keywordsToSearch]
        phrase = " ".join(keywords)
        params = {"scope": "blobs", "search": phrase, "per_page": query.limit, "page": query.page}
        if query.owner and query.repo:
            path = f"/projects/{project_id(query.owner, query.repo)}/search"
        elif query.owner:
            path = f"/groups/{namespace_id(query.owner)}/search"
        else:
            path = "/search"
        try:
            fetched = await self.remote.fetch(
                path,
                kind="gitlab-blob-search",
                ttl=self.settings.ttl_code_search,
                params=params,
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
        blobs = [b for b in page.blobs if keep is None or keep(b.path)]
        notes = []
        if len(keywords) > 1:
            notes.append(
                f'GitLab\'s basic search matches "{phrase}" as one phrase (advanced search '
                "matches each word): for files holding each keyword anywhere, search them one "
                "per query."
            )
        if keep is not None:
            notes.append(
                "GitLab's basic search has no extension/filename/path filters: they were applied "
                f"here to this page ({len(blobs)} of {len(page.blobs)} results kept); later pages "
                "may hold more."
            )
        found = CodeSearchPage(
            hits=[self._hit(query, blob, keywords) for blob in blobs],
            total=page.total,
            has_more=page.has_next,
            first_line=blobs[0].startline if blobs else None,
        )
        return self.reply(found, fetched, *notes)

    def _hit(self, query: SearchCodeQuery, blob: parse.Blob, keywords: list[str]) -> CodeSearchHit:
        repository = (
            f"{query.owner}/{query.repo}" if query.owner and query.repo else f"{blob.project_id}"
        )
        fragment = redact(blob.data)
        found = spans(fragment, keywords)
        return CodeSearchHit(
            file=blob.path,
            repository=repository,
            matches=len(found),
            url=f"{self._blob_url(repository, blob.ref, blob.path)}#L{blob.startline}",
            text_matches=[TextMatch(fragment=fragment, matches=found)],
        )

    def _blob_url(self, repository: str, ref: str, path: str) -> str:
        return f"{self.web_root}/{repository}/-/blob/{quote(ref)}/{quote(path)}"

    async def _search_paths(self, query: SearchCodeQuery) -> Reply[CodeSearchPage]:
        """match="path": GitLab's blob search reads contents only, so walk the tree instead."""
        if not (query.owner and query.repo):
            raise InvalidQueryError(
                'match="path" on GitLab needs owner and repo: paths are matched in the '
                "project's file tree",
                hints=["Give owner and repo, or search contents (match unset)."],
            )
        fetched = await self._tree_rows(query.owner, query.repo, "HEAD", "", recursive=True)
        needles = [k.strip().lower() for k in query.keywordsToSearch]
        keep = path_filter(query)
        matching = [
            p
            for p, kind, _ in fetched.value.items
            if kind == "file" and all(n in p.lower() for n in needles) and (keep is None or keep(p))
        ]
        shown = matching[(query.page - 1) * query.limit : query.page * query.limit]
        repository = f"{query.owner}/{query.repo}"
        found = CodeSearchPage(
            hits=[
                CodeSearchHit(
                    file=p,
                    repository=repository,
                    matches=0,
                    url=self._blob_url(repository, "HEAD", p),
                )
                for p in shown
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
        file_path = quote(query.path.strip("/"), safe="")
        fetched = await self.remote.fetch(
            f"/projects/{project_id(query.owner, query.repo)}/repository/files/{file_path}/raw",
            kind="gitlab-file",
            ttl=self.settings.ttl_file_content,
            params={"ref": query.branch or "HEAD"},
            parse=parse.parse_raw_file,
        )
        return self.reply(fetched.value, fetched)

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
            entries.append((prefix, "dir", None))
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
        fetched = await self._projects(query.owner, params, query)
        page = fetched.value
        projects = page.projects
        if query.stars:
            projects = [p for p in projects if in_range(p.repository.stars, query.stars, int)]
        if query.created:
            projects = [
                p for p in projects if in_range((p.created_at or "")[:10], query.created, str)
            ]
        if query.stars or query.created:
            notes.append(
                "GitLab has no stars/created filters: they were applied here to this page "
                f"({len(projects)} of {len(page.projects)} kept); later pages may hold more."
            )
        found = RepositoryPage(
            repositories=[p.repository for p in projects], total=page.total, has_more=page.has_next
        )
        return self.reply(found, fetched, *notes)

    async def _projects(
        self, owner: str | None, params: dict[str, Any], query: SearchRepositoriesQuery
    ) -> Fetched[parse.ProjectPage]:
        """Projects of a group (subgroups included), of a user, or of the whole instance."""

        async def listing(path: str, extra: Mapping[str, str]) -> Fetched[parse.ProjectPage]:
            return await self.remote.fetch(
                path,
                kind="gitlab-projects",
                ttl=self.settings.ttl_repo_search,
                params={**params, **extra},
                parse=lambda r: parse.parse_projects(r, query.page, query.limit),
            )

        if not owner:
            return await listing("/projects", {})
        try:
            return await listing(
                f"/groups/{namespace_id(owner)}/projects", {"include_subgroups": "true"}
            )
        except NotFoundError:
            pass  # not a group: a user's namespace
        return await listing(f"/users/{namespace_id(owner)}/projects", {})

    # merge requests

    async def pull_request(self, query: SearchPullRequestsQuery) -> Reply[PullRequestPage]:
        assert query.owner and query.repo and query.prNumber is not None
        fetched = await self.remote.fetch(
            f"/projects/{project_id(query.owner, query.repo)}/merge_requests/{query.prNumber}",
            kind="gitlab-mr",
            ttl=self.settings.ttl_pull_requests,
            parse=lambda r: parse.parse_merge_request(r, 4000),
        )
        return self.reply(fetched.value, fetched)

    async def search_pull_requests(self, query: SearchPullRequestsQuery) -> Reply[PullRequestPage]:
        params, notes = merge_request_params(query)
        if query.owner and query.repo:
            path = f"/projects/{project_id(query.owner, query.repo)}/merge_requests"
        elif query.owner:
            path = f"/groups/{namespace_id(query.owner)}/merge_requests"
        else:
            path = "/merge_requests"
        body_limit = 600 if query.type == "metadata" else 4000
        fetched = await self.remote.fetch(
            path,
            kind="gitlab-mrs",
            ttl=self.settings.ttl_pull_requests,
            params=params,
            parse=lambda r: parse.parse_merge_requests(r, query.page, query.limit, body_limit),
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

    def _merge_request(self, project: str, number: int) -> str:
        return f"/projects/{project}/merge_requests/{number}"

    async def comments(self, project: str, number: int) -> Fetched[Listing[PullRequestComment]]:
        return await self.remote.fetch(
            f"{self._merge_request(project, number)}/notes",
            kind="gitlab-mr-notes",
            ttl=self.settings.ttl_pull_requests,
            params={"sort": "asc", "order_by": "created_at", "per_page": 30},
            parse=parse.parse_notes,
        )

    async def commits(self, project: str, number: int) -> Fetched[Listing[PullRequestCommit]]:
        return await self.remote.fetch(
            f"{self._merge_request(project, number)}/commits",
            kind="gitlab-mr-commits",
            ttl=self.settings.ttl_pull_requests,
            params={"per_page": 100},
            parse=parse.parse_commits,
        )

    async def files(
        self, project: str, number: int, max_pages: int
    ) -> Fetched[Listing[PullRequestFile]]:
        base = self._merge_request(project, number)
        return await read_listing(lambda cursor: self._diff_page(base, cursor), max_pages)

    async def _diff_page(self, base: str, cursor: str | None) -> Fetched[Listing[PullRequestFile]]:
        """A page of a merge request's file diffs (``/changes``, unpaged, on old instances)."""
        ttl = self.settings.ttl_pull_requests
        try:
            return await self._page(
                f"{base}/diffs",
                {"per_page": DIFF_PAGE_SIZE, "page": 1},
                cursor,
                kind="gitlab-mr-diffs",
                ttl=ttl,
                parse_page=parse.parse_diffs,
            )
        except NotFoundError:
            if cursor is not None:
                raise
        return await self.remote.fetch(
            f"{base}/changes", kind="gitlab-mr-changes", ttl=ttl, parse=parse.parse_diffs
        )
