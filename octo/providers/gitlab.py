"""GitLab: the five code-host tools over the REST API v4, on the shared remote transport.

gitlab.com or a self-managed instance (``GITLAB_HOST``, a relative root such as
``https://host/gitlab`` allowed); ``GITLAB_TOKEN`` or ``GL_TOKEN`` is sent as
``PRIVATE-TOKEN``, and public projects answer without one. Owners may be nested
group paths. Answers are shaped by the functions GitHub's use too
(:mod:`octo.providers.codehost`); where GitLab cannot do what a parameter asks,
the answer says so.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import httpx
from pydantic import BaseModel

from octo.codehosts.models import (
    CodeSearchHit,
    FileContentQuery,
    FileContentResult,
    PullRequest,
    PullRequestComment,
    PullRequestCommit,
    PullRequestFile,
    Repository,
    RepoStructureQuery,
    RepoStructureResult,
    SearchCodeQuery,
    SearchCodeResult,
    SearchPagination,
    SearchPullRequestsQuery,
    SearchPullRequestsResult,
    SearchRepositoriesQuery,
    SearchRepositoriesResult,
    TextMatch,
    TextMatchSpan,
)
from octo.core.errors import InvalidQueryError, NotFoundError
from octo.core.redaction import redact
from octo.legacy import HostAnswer
from octo.providers import codehost
from octo.providers.github import GitHubSettings
from octo.transports.http_client import Fetched, RemoteClient
from octo.transports.http_policy import HostPolicy, RateLimit, rate_limit_from_headers

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

DEFAULT_HOST = "https://gitlab.com"
#: A tree listing stops after this many pages of 100 entries (and says it was cut).
MAX_TREE_PAGES = 30
#: Files per page of merge-request diffs.
DIFF_PAGE_SIZE = 50

_AUTH_HINTS = [
    "Set GITLAB_TOKEN (or GL_TOKEN) to a token with the read_api scope.",
    "For a self-managed instance set GITLAB_HOST (e.g. https://gitlab.example.com).",
]
_PROVIDER_HINT = 'Follow-up tools need provider="gitlab" as well.'


def gitlab_token(env: Mapping[str, str]) -> str | None:
    return env.get("GITLAB_TOKEN") or env.get("GL_TOKEN") or None


def gitlab_is_default(env: Mapping[str, str]) -> bool:
    """True when GitLab is configured and GitHub is not: queries without provider go to GitLab."""
    gitlab = bool(gitlab_token(env) or env.get("GITLAB_HOST"))
    github = bool(env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or env.get("GITHUB_API_URL"))
    return gitlab and not github


def web_root(env: Mapping[str, str]) -> str:
    """The instance's web root, relative root included: GITLAB_HOST or gitlab.com."""
    host = (env.get("GITLAB_HOST") or DEFAULT_HOST).strip().rstrip("/")
    if "://" not in host:
        host = f"https://{host}"
    return host.removesuffix("/api/v4")


def project_id(owner: str, repo: str) -> str:
    """A project's id in API paths: its full path, group levels included, URL-encoded."""
    return quote(f"{owner.strip('/')}/{repo.strip('/')}", safe="")


def git_blob_sha(raw: bytes) -> str:
    """The git object id of a file's bytes (what GitLab calls its blob id)."""
    return hashlib.sha1(b"blob %d\0" % len(raw) + raw, usedforsecurity=False).hexdigest()


class GitLabPolicy(HostPolicy):
    """GitLab's token header, ``RateLimit-*`` headers and search resource."""

    name = "GitLab"

    def __init__(self, token: str | None) -> None:
        self._token = token

    async def headers(self) -> dict[str, str]:
        return {"PRIVATE-TOKEN": self._token} if self._token else {}

    def secrets(self) -> tuple[str, ...]:
        return (self._token,) if self._token else ()

    def resource_for(self, path: str) -> str:
        return "search" if path.rstrip("/").endswith("/search") else "core"

    def concurrency(self, resource: str) -> int:
        return 3 if resource == "search" else 8

    def rate_limit(self, response: httpx.Response) -> RateLimit | None:
        return rate_limit_from_headers(
            response.headers, "ratelimit-", self.resource_for(response.request.url.path)
        )

    def error_message(self, response: httpx.Response) -> str:
        try:
            body = response.json()
        except ValueError:
            return super().error_message(response)
        # Validation errors come as {"message": {"field": ["problem"]}}.
        if isinstance(body, Mapping) and isinstance(body.get("message"), Mapping):
            return "; ".join(f"{k}: {v}" for k, v in body["message"].items())[:500]
        return super().error_message(response)

    def auth_hints(self) -> list[str]:
        return list(_AUTH_HINTS)

    def rate_limit_hints(self) -> list[str]:
        return [
            "Narrow the query (owner/repo, a path) so fewer calls are needed.",
            "Answers are cached: repeating a query costs no quota.",
        ]


# Parsing: the trimmed shapes the cache holds.


def _next_page(response: httpx.Response) -> int | None:
    raw = response.headers.get("x-next-page", "")
    return int(raw) if raw.isdigit() else None


def _total(response: httpx.Response) -> int | None:
    # Omitted above 10,000 records: then the caller estimates from the pages seen.
    raw = response.headers.get("x-total", "")
    return int(raw) if raw.isdigit() else None


class _Blob(BaseModel):
    path: str
    ref: str
    startline: int
    data: str
    project_id: int | None = None


class _BlobPage(BaseModel):
    total: int | None
    has_next: bool
    blobs: list[_Blob]


def _parse_blob_search(response: httpx.Response) -> _BlobPage:
    return _BlobPage(
        total=_total(response),
        has_next=_next_page(response) is not None,
        blobs=[
            _Blob(
                path=item.get("path") or item.get("filename") or "",
                ref=item.get("ref") or "HEAD",
                startline=int(item.get("startline") or 1),
                data=item.get("data") or "",
                project_id=item.get("project_id"),
            )
            for item in response.json()
        ],
    )


class _TreePage(BaseModel):
    entries: list[codehost.TreeRow]
    next_url: str | None = None
    next_page: int | None = None


def _parse_tree_page(response: httpx.Response) -> _TreePage:
    entries: list[codehost.TreeRow] = [
        (str(e["path"]), "file" if e.get("type") == "blob" else "dir", None)
        for e in response.json()
    ]
    # Keyset pagination answers with a Link header; older instances with page numbers.
    next_link = response.links.get("next", {}).get("url")
    return _TreePage(entries=entries, next_url=next_link, next_page=_next_page(response))


def _parse_raw_file(response: httpx.Response) -> codehost.FileBlob:
    raw = response.content
    sha = response.headers.get("x-gitlab-blob-id") or git_blob_sha(raw)
    size = response.headers.get("x-gitlab-size", "")
    return codehost.blob_from_bytes(raw, sha, int(size) if size.isdigit() else len(raw))


class _Project(BaseModel):
    repository: Repository
    created_at: str | None = None


class _ProjectPage(BaseModel):
    total: int | None
    has_next: bool
    projects: list[_Project]


def _parse_projects(response: httpx.Response) -> _ProjectPage:
    projects = []
    for item in response.json():
        projects.append(
            _Project(
                repository=Repository(
                    name=item.get("path") or item.get("name", ""),
                    full_name=item.get("path_with_namespace", ""),
                    description=item.get("description"),
                    stars=int(item.get("star_count") or 0),
                    forks=int(item.get("forks_count") or 0),
                    topics=list(item.get("topics") or item.get("tag_list") or []),
                    default_branch=item.get("default_branch"),
                    updated_at=item.get("last_activity_at"),
                    archived=item.get("archived"),
                    html_url=item.get("web_url", ""),
                ),
                created_at=item.get("created_at"),
            )
        )
    return _ProjectPage(
        total=_total(response), has_next=_next_page(response) is not None, projects=projects
    )


def _project_path(item: Mapping[str, Any]) -> str:
    full = (item.get("references") or {}).get("full") or ""
    if "!" in full:
        return str(full.split("!", 1)[0])
    path = urlsplit(str(item.get("web_url", ""))).path
    return path.split("/-/", 1)[0].strip("/")


def _merge_request(item: Mapping[str, Any], body_limit: int) -> PullRequest:
    state = item.get("state")
    labels = [
        label if isinstance(label, str) else str(label.get("name", ""))
        for label in item.get("labels") or []
    ]
    return PullRequest(
        number=int(item["iid"]),
        title=item.get("title", ""),
        state="open" if state in ("opened", "locked") else "closed",
        merged=state == "merged",
        draft=item.get("draft", item.get("work_in_progress")),
        author=(item.get("author") or {}).get("username", ""),
        repository=_project_path(item),
        created_at=item.get("created_at", ""),
        updated_at=item.get("updated_at", ""),
        merged_at=item.get("merged_at"),
        html_url=item.get("web_url", ""),
        labels=labels,
        head=item.get("source_branch"),
        base=item.get("target_branch"),
        body=codehost.short_body(item.get("description"), body_limit),
    )


class _MergeRequestPage(BaseModel):
    total: int | None
    has_next: bool
    pulls: list[PullRequest]
    project_ids: list[int]


def _parse_merge_requests(response: httpx.Response, body_limit: int) -> _MergeRequestPage:
    items = response.json()
    return _MergeRequestPage(
        total=_total(response),
        has_next=_next_page(response) is not None,
        pulls=[_merge_request(i, body_limit) for i in items],
        project_ids=[int(i["project_id"]) for i in items],
    )


def _next_page_cursor(response: httpx.Response) -> str | None:
    page = _next_page(response)
    return str(page) if page is not None else None


def _parse_notes(response: httpx.Response) -> codehost.Listing[PullRequestComment]:
    notes = [
        PullRequestComment(
            author=(n.get("author") or {}).get("username", ""),
            body=codehost.short_body(n.get("body"), 2000) or "",
            created_at=n.get("created_at", ""),
        )
        for n in response.json()
        if not n.get("system")  # "added 1 commit", "changed the description": not discussion
    ]
    return codehost.Listing(items=notes, next=_next_page_cursor(response))


def _parse_mr_commits(response: httpx.Response) -> codehost.Listing[PullRequestCommit]:
    commits = [
        PullRequestCommit(
            sha=c["id"],
            message=c.get("message") or c.get("title", ""),
            author=c.get("author_name", ""),
        )
        for c in response.json()
    ]
    return codehost.Listing(items=commits, next=_next_page_cursor(response))


def _diff_file(d: Mapping[str, Any]) -> PullRequestFile:
    diff = d.get("diff") or ""
    lines = diff.splitlines()
    status = (
        "added"
        if d.get("new_file")
        else "removed"
        if d.get("deleted_file")
        else "renamed"
        if d.get("renamed_file")
        else "modified"
    )
    return PullRequestFile(
        filename=d.get("new_path") or d.get("old_path", ""),
        status=status,
        additions=sum(1 for line in lines if line.startswith("+") and not line.startswith("+++")),
        deletions=sum(1 for line in lines if line.startswith("-") and not line.startswith("---")),
        previous_filename=d.get("old_path") if d.get("renamed_file") else None,
        patch=diff or None,
    )


def _parse_diffs(response: httpx.Response) -> codehost.Listing[PullRequestFile]:
    body = response.json()
    # /diffs (GitLab 15.7+) is a list; the older /changes wraps it in {"changes": [...]}.
    items = body.get("changes", []) if isinstance(body, Mapping) else body
    return codehost.Listing(items=[_diff_file(d) for d in items], next=_next_page_cursor(response))


# Query translation


_RANGE = re.compile(r"^\s*(>=|<=|>|<)?\s*([^.<>=\s][^<>=]*?)\s*(?:\.\.\s*(\S+))?\s*$")


def _bounds(expression: str) -> tuple[str | None, str | None]:
    """``(low, high)`` of a GitHub-style range: ">x", ">=x", "<x", "x..y" or "x"."""
    match = _RANGE.match(expression)
    if match is None:
        raise InvalidQueryError(
            f"'{expression}' is not a range",
            hints=['Use ">VALUE", "<VALUE" or "LOW..HIGH", e.g. ">2024-01-01".'],
        )
    operator, first, second = match.groups()
    if second is not None:
        return first, second
    if operator in (">", ">="):
        return first, None
    if operator in ("<", "<="):
        return None, first
    return first, first


def _in_range(value: int | str | None, expression: str, convert: Callable[[str], Any]) -> bool:
    if value is None:
        return False
    low, high = _bounds(expression)
    try:
        return (low is None or value >= convert(low)) and (high is None or value <= convert(high))
    except ValueError:
        raise InvalidQueryError(f"'{expression}' is not a valid range for this field") from None


def _date_params(expression: str | None, field: str) -> dict[str, str]:
    """``{field}_after`` / ``{field}_before`` parameters of a date range."""
    if not expression:
        return {}
    low, high = _bounds(expression)
    params = {}
    if low:
        params[f"{field}_after"] = low
    if high:
        params[f"{field}_before"] = high if "T" in high else f"{high}T23:59:59Z"
    return params


def _spans(fragment: str, keywords: list[str]) -> list[TextMatchSpan]:
    spans = []
    lowered = fragment.lower()
    for keyword in keywords:
        needle = keyword.strip().lower()
        start = lowered.find(needle) if needle else -1
        while start >= 0:
            end = start + len(needle)
            spans.append(TextMatchSpan(text=fragment[start:end], indices=(start, end)))
            start = lowered.find(needle, end)
    return sorted(spans, key=lambda s: s.indices)


def _path_filter(query: SearchCodeQuery) -> Callable[[str], bool] | None:
    """The extension / filename / path filters, applied by us: basic search has none."""
    extension = query.extension.strip().lstrip("*").lstrip(".") if query.extension else None
    filename = query.filename.strip() if query.filename else None
    prefix = query.path.strip().strip("/") if query.path else None
    if not (extension or filename or prefix):
        return None

    def keep(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        return (
            (not extension or name.endswith(f".{extension}"))
            and (not filename or name == filename)
            and (not prefix or path == prefix or path.startswith(f"{prefix}/"))
        )

    return keep


class GitLabProvider:
    """The GitLab code host: one per runtime, sharing its HTTP client and cache."""

    def __init__(self, runtime: Runtime) -> None:
        env = runtime.config.env
        self.runtime = runtime
        self.settings = GitHubSettings.from_env(env)  # the remote tools' cache lifetimes
        self.web_root = web_root(env)
        self.token = gitlab_token(env)
        self.remote = RemoteClient(
            runtime.http,
            runtime.cache,
            f"{self.web_root}/api/v4",
            GitLabPolicy(self.token),
            max_wait=runtime.config.query_timeout,
        )

    def _not_found_hints(self, what: str) -> list[str]:
        hints = [f"Check {what} (owner may be a group path such as group/subgroup)."]
        if not self.token:
            hints.append(
                "GitLab answers 404 for private projects without a token: set GITLAB_TOKEN."
            )
        return hints

    # code search

    async def search_code(self, query: SearchCodeQuery) -> HostAnswer[SearchCodeResult]:
        if query.match == "path":
            return await self._search_paths(query)
        keywords = [k.strip() for k in query.keywordsToSearch]
        params = {
            "scope": "blobs",
            "search": " ".join(keywords),
            "per_page": query.limit,
            "page": query.page,
        }
        if query.owner and query.repo:
            path = f"/projects/{project_id(query.owner, query.repo)}/search"
        elif query.owner:
            path = f"/groups/{quote(query.owner.strip('/'), safe='')}/search"
        else:
            path = "/search"
        try:
            fetched = await self.remote.fetch(
                path,
                kind="gitlab-blob-search",
                ttl=self.settings.ttl_code_search,
                params=params,
                parse=_parse_blob_search,
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
        except NotFoundError as exc:
            exc.hints += self._not_found_hints("owner and repo")
            raise
        page = fetched.value
        keep = _path_filter(query)
        blobs = [b for b in page.blobs if keep is None or keep(b.path)]
        hits = [self._hit(query, blob, keywords) for blob in blobs]
        seen = (query.page - 1) * query.limit + len(page.blobs)
        result = SearchCodeResult(
            results=hits,
            totalCount=page.total if page.total is not None else seen + int(page.has_next),
            pagination=SearchPagination(currentPage=query.page, hasMore=page.has_next),
        )
        hints = self.remote.quota_hints(fetched)
        if len(keywords) > 1:
            hints.append(
                f'GitLab\'s basic search matches "{params["search"]}" as one phrase (advanced '
                "search matches each word): for files holding each keyword anywhere, search "
                "them one per query."
            )
        if keep is not None:
            hints.append(
                "GitLab's basic search has no extension/filename/path filters: they were applied "
                f"here to this page ({len(blobs)} of {len(page.blobs)} results kept); later pages "
                "may hold more."
            )
        if hits:
            top, blob = hits[0], blobs[0]
            owner, _, repo = top.repository.rpartition("/")
            hints.append(
                "Read a hit with githubGetFileContent (provider gitlab, "
                f'owner="{owner}", repo="{repo}", path="{top.file}", '
                f"startLine={blob.startline}, endLine={blob.startline + 30})."
            )
            if page.has_next:
                hints.append(f"More results: page={query.page + 1}.")
        else:
            hints.append("Nothing found: GitLab searches the default branch; try fewer keywords.")
        return HostAnswer(result, hints, fetched.cached)

    def _hit(self, query: SearchCodeQuery, blob: _Blob, keywords: list[str]) -> CodeSearchHit:
        repository = (
            f"{query.owner}/{query.repo}" if query.owner and query.repo else f"{blob.project_id}"
        )
        fragment = redact(blob.data)
        spans = _spans(fragment, keywords)
        url = (
            f"{self.web_root}/{repository}/-/blob/{quote(blob.ref)}/{quote(blob.path)}"
            f"#L{blob.startline}"
        )
        return CodeSearchHit(
            file=blob.path,
            repository=repository,
            matches=len(spans),
            url=url,
            text_matches=[TextMatch(fragment=fragment, matches=spans)],
        )

    async def _search_paths(self, query: SearchCodeQuery) -> HostAnswer[SearchCodeResult]:
        """match="path": GitLab's blob search reads contents only, so walk the tree instead."""
        if not (query.owner and query.repo):
            raise InvalidQueryError(
                'match="path" on GitLab needs owner and repo: paths are matched in the '
                "project's file tree",
                hints=["Give owner and repo, or search contents (match unset)."],
            )
        entries, truncated, cached = await self._tree(query.owner, query.repo, "HEAD", "", True)
        needles = [k.strip().lower() for k in query.keywordsToSearch]
        keep = _path_filter(query)
        matching = [
            p
            for p, kind, _ in entries
            if kind == "file" and all(n in p.lower() for n in needles) and (keep is None or keep(p))
        ]
        shown = matching[(query.page - 1) * query.limit : query.page * query.limit]
        repository = f"{query.owner}/{query.repo}"
        hits = [
            CodeSearchHit(
                file=p,
                repository=repository,
                matches=0,
                url=f"{self.web_root}/{repository}/-/blob/HEAD/{quote(p)}",
            )
            for p in shown
        ]
        has_more = query.page * query.limit < len(matching)
        result = SearchCodeResult(
            results=hits,
            totalCount=len(matching),
            pagination=SearchPagination(currentPage=query.page, hasMore=has_more),
        )
        hints = ["Paths were matched in the default branch's file tree."]
        if truncated:
            hints.append("The tree was too large to list completely: some paths were not seen.")
        if has_more:
            hints.append(f"More results: page={query.page + 1}.")
        return HostAnswer(result, [*hints, _PROVIDER_HINT], cached)

    # files and trees

    async def get_file_content(self, query: FileContentQuery) -> HostAnswer[FileContentResult]:
        file_path = quote(query.path.strip("/"), safe="")
        try:
            fetched = await self.remote.fetch(
                f"/projects/{project_id(query.owner, query.repo)}/repository/files/{file_path}/raw",
                kind="gitlab-file",
                ttl=self.settings.ttl_file_content,
                params={"ref": query.branch or "HEAD"},
                parse=_parse_raw_file,
            )
        except NotFoundError as exc:
            exc.hints += [
                *self._not_found_hints("owner, repo, path and branch (paths are case-sensitive)"),
                "Find the path with githubViewRepoStructure (provider gitlab).",
            ]
            raise
        result, hints = codehost.file_content_answer(self.runtime.config, query, fetched.value)
        return HostAnswer(result, hints + self.remote.quota_hints(fetched), fetched.cached)

    async def _tree(
        self, owner: str, repo: str, ref: str, path: str, recursive: bool
    ) -> tuple[list[codehost.TreeRow], bool, bool]:
        """``(entries, truncated, cached)`` of a tree listing, every page followed."""
        url = f"/projects/{project_id(owner, repo)}/repository/tree"
        params: dict[str, Any] | None = {
            "ref": ref,
            "per_page": 100,
            "pagination": "keyset",
            **({"path": path} if path else {}),
            **({"recursive": "true"} if recursive else {}),
        }
        entries: list[codehost.TreeRow] = []
        cached = True
        for _ in range(MAX_TREE_PAGES):
            try:
                fetched = await self.remote.fetch(
                    url,
                    kind="gitlab-tree",
                    ttl=self.settings.ttl_tree,
                    params=params,
                    parse=_parse_tree_page,
                )
            except NotFoundError as exc:
                exc.hints += self._not_found_hints("owner, repo, branch and path")
                raise
            cached = cached and fetched.cached
            page = fetched.value
            entries.extend(page.entries)
            if page.next_url:
                url, params = page.next_url, None
            elif page.next_page and params is not None:
                params = {**params, "page": page.next_page}
            else:
                return entries, False, cached
        return entries, True, cached

    async def view_repo_structure(
        self, query: RepoStructureQuery
    ) -> HostAnswer[RepoStructureResult]:
        prefix = query.path.strip("/")
        entries, truncated, cached = await self._tree(
            query.owner, query.repo, query.branch, prefix, recursive=query.depth > 1
        )
        if prefix:
            # GitLab lists what is below a path (404 when it does not exist), not the path itself.
            entries.append((prefix, "dir", None))
        result, hints = codehost.repo_structure_answer(
            query, codehost.RepoTree(truncated=truncated, entries=entries)
        )
        if truncated:
            hints.insert(
                0,
                f"The listing stopped after {MAX_TREE_PAGES * 100} entries: some are missing; "
                "view a narrower path or depth=1.",
            )
        hints.append("GitLab's tree API gives no file sizes.")
        return HostAnswer(result, [*hints, _PROVIDER_HINT], cached)

    # repositories

    async def search_repositories(
        self, query: SearchRepositoriesQuery
    ) -> HostAnswer[SearchRepositoriesResult]:
        hints: list[str] = []
        params: dict[str, Any] = {"per_page": query.limit, "page": query.page}
        if query.keywordsToSearch:
            params["search"] = " ".join(query.keywordsToSearch)
        if query.topicsToSearch:
            params["topic"] = ",".join(query.topicsToSearch)
        order = {"stars": "star_count", "updated": "last_activity_at"}.get(query.sort or "")
        if query.sort == "forks":
            hints.append("GitLab cannot order projects by forks: ordered by stars instead.")
            order = "star_count"
        if order is None:
            order = "similarity" if query.keywordsToSearch else "star_count"
        params.update(order_by=order, sort="desc")
        params.update(_date_params(query.updated, "last_activity"))
        if query.size:
            hints.append("GitLab cannot filter projects by size: size was not applied.")
        if query.match and set(query.match) != {"name", "description"}:
            hints.append("GitLab searches project names, paths and descriptions, never READMEs.")
        fetched = await self._projects(query.owner, params)
        page = fetched.value
        projects = page.projects
        if query.stars:
            projects = [p for p in projects if _in_range(p.repository.stars, query.stars, int)]
        if query.created:
            projects = [
                p for p in projects if _in_range((p.created_at or "")[:10], query.created, str)
            ]
        if query.stars or query.created:
            hints.append(
                "GitLab has no stars/created filters: they were applied here to this page "
                f"({len(projects)} of {len(page.projects)} kept); later pages may hold more."
            )
        seen = (query.page - 1) * query.limit + len(page.projects)
        result = SearchRepositoriesResult(
            repositories=[p.repository for p in projects],
            totalCount=page.total if page.total is not None else seen + int(page.has_next),
            pagination=SearchPagination(currentPage=query.page, hasMore=page.has_next),
        )
        hints += self.remote.quota_hints(fetched)
        if projects:
            top = projects[0].repository
            owner, _, repo = top.full_name.rpartition("/")
            hints.append(
                "Explore one: githubViewRepoStructure (provider gitlab, "
                f'owner="{owner}", repo="{repo}", branch="{top.default_branch or "main"}").'
            )
            if page.has_next:
                hints.append(f"More results: page={query.page + 1}.")
        else:
            hints.append("Nothing found: drop a filter or use topicsToSearch instead of keywords.")
        return HostAnswer(result, hints, fetched.cached)

    async def _projects(self, owner: str | None, params: dict[str, Any]) -> Fetched[_ProjectPage]:
        """Projects of a group (subgroups included), of a user, or of the whole instance."""
        ttl = self.settings.ttl_repo_search
        if not owner:
            return await self.remote.fetch(
                "/projects", kind="gitlab-projects", ttl=ttl, params=params, parse=_parse_projects
            )
        namespace = quote(owner.strip("/"), safe="")
        try:
            return await self.remote.fetch(
                f"/groups/{namespace}/projects",
                kind="gitlab-projects",
                ttl=ttl,
                params={**params, "include_subgroups": "true"},
                parse=_parse_projects,
            )
        except NotFoundError:
            pass  # not a group: a user's namespace
        try:
            return await self.remote.fetch(
                f"/users/{namespace}/projects",
                kind="gitlab-projects",
                ttl=ttl,
                params=params,
                parse=_parse_projects,
            )
        except NotFoundError as exc:
            exc.hints += self._not_found_hints("the owner (a group path or a username)")
            raise

    # merge requests

    def _merge_request_params(
        self, query: SearchPullRequestsQuery, hints: list[str]
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"per_page": query.limit, "page": query.page}
        if query.merged:
            params["state"] = "merged"
            if query.state == "open":
                hints.append("merged=true with state=open matches nothing: listed merged ones.")
        elif query.state == "open":
            params["state"] = "opened"
        elif query.state == "closed":
            params["state"] = "closed"
            if query.merged is None:
                hints.append(
                    "GitLab keeps merged apart from closed: these are closed without merging; "
                    "merged=true lists the merged ones."
                )
        else:
            params["state"] = "all"
        if query.author:
            params["author_username"] = query.author
        if query.assignee:
            params["assignee_username"] = query.assignee
        labels = [query.label] if isinstance(query.label, str) else query.label or []
        if labels:
            params["labels"] = ",".join(labels)
        if query.query:
            params["search"] = query.query
        if query.draft is not None:
            params["wip"] = "yes" if query.draft else "no"
        params.update(_date_params(query.created, "created"))
        params.update(_date_params(query.updated, "updated"))
        if not (query.owner or query.repo):
            params["scope"] = "all"
        return params

    async def search_pull_requests(
        self, query: SearchPullRequestsQuery
    ) -> HostAnswer[SearchPullRequestsResult]:
        body_limit = 600 if query.type == "metadata" else 4000
        ttl = self.settings.ttl_pull_requests
        hints: list[str] = []
        if query.prNumber is not None:
            assert query.owner and query.repo
            try:
                detail = await self.remote.fetch(
                    f"/projects/{project_id(query.owner, query.repo)}/merge_requests/"
                    f"{query.prNumber}",
                    kind="gitlab-mr",
                    ttl=ttl,
                    parse=lambda r: _parse_merge_requests_one(r, 4000),
                )
            except NotFoundError as exc:
                exc.hints += [
                    "prNumber is the merge request's IID (the !N shown in GitLab).",
                    *self._not_found_hints("owner and repo"),
                ]
                raise
            fetched: Fetched[_MergeRequestPage] = detail
            pagination = None
        else:
            params = self._merge_request_params(query, hints)
            if query.merged is False and query.state is None:
                hints.append("merged=false on GitLab lists open and closed-unmerged requests.")
            if query.owner and query.repo:
                path = f"/projects/{project_id(query.owner, query.repo)}/merge_requests"
            elif query.owner:
                path = f"/groups/{quote(query.owner.strip('/'), safe='')}/merge_requests"
            else:
                path = "/merge_requests"
            try:
                fetched = await self.remote.fetch(
                    path,
                    kind="gitlab-mrs",
                    ttl=ttl,
                    params=params,
                    parse=lambda r: _parse_merge_requests(r, body_limit),
                )
            except NotFoundError as exc:
                exc.hints += self._not_found_hints("owner and repo")
                raise
            pagination = SearchPagination(currentPage=query.page, hasMore=fetched.value.has_next)
        page = fetched.value
        pulls = list(page.pulls)
        if query.merged is False and query.prNumber is None:
            pulls = [p for p in pulls if not p.merged]
        hints += self.remote.quota_hints(fetched)
        projects = {
            (pull.repository, pull.number): project
            for pull, project in zip(page.pulls, page.project_ids, strict=True)
        }
        detailed = await codehost.detail_pull_requests(
            pulls, query, self._merge_request_parts(projects), self.runtime.config
        )
        hints += codehost.pull_request_hints(
            query,
            detailed,
            bool(pagination and pagination.hasMore),
            noun="merge requests",
            number="IID",
        )
        seen = (query.page - 1) * query.limit + len(page.pulls)
        total = page.total if page.total is not None else seen + int(page.has_next)
        result = SearchPullRequestsResult(
            pullRequests=detailed.pulls, totalCount=total, pagination=pagination
        )
        return HostAnswer(result, [*hints, _PROVIDER_HINT], fetched.cached and detailed.cached)

    def _merge_request_parts(
        self, projects: Mapping[tuple[str, int], int]
    ) -> codehost.PullRequestParts:
        """Notes, commits and diffs of merge requests, by their project's numeric id."""
        ttl = self.settings.ttl_pull_requests

        def base(pull: PullRequest) -> str:
            return (
                f"/projects/{projects[pull.repository, pull.number]}/merge_requests/{pull.number}"
            )

        async def notes(pull: PullRequest) -> Fetched[codehost.Listing[PullRequestComment]]:
            return await self.remote.fetch(
                f"{base(pull)}/notes",
                kind="gitlab-mr-notes",
                ttl=ttl,
                params={"sort": "asc", "order_by": "created_at", "per_page": 30},
                parse=_parse_notes,
            )

        async def commits(pull: PullRequest) -> Fetched[codehost.Listing[PullRequestCommit]]:
            return await self.remote.fetch(
                f"{base(pull)}/commits",
                kind="gitlab-mr-commits",
                ttl=ttl,
                params={"per_page": 100},
                parse=_parse_mr_commits,
            )

        async def diffs(
            pull: PullRequest, max_pages: int
        ) -> Fetched[codehost.Listing[PullRequestFile]]:
            return await codehost.read_listing(
                lambda cursor: self._diff_page(base(pull), cursor), max_pages
            )

        return codehost.PullRequestParts(comments=notes, commits=commits, files=diffs)

    async def _diff_page(
        self, base: str, cursor: str | None
    ) -> Fetched[codehost.Listing[PullRequestFile]]:
        """A page of a merge request's file diffs (``/changes``, unpaged, on old instances)."""
        ttl = self.settings.ttl_pull_requests
        try:
            return await self.remote.fetch(
                f"{base}/diffs",
                kind="gitlab-mr-diffs",
                ttl=ttl,
                params={"per_page": DIFF_PAGE_SIZE, "page": int(cursor or 1)},
                parse=_parse_diffs,
            )
        except NotFoundError:
            if cursor is not None:
                raise
        return await self.remote.fetch(
            f"{base}/changes", kind="gitlab-mr-changes", ttl=ttl, parse=_parse_diffs
        )


def _parse_merge_requests_one(response: httpx.Response, body_limit: int) -> _MergeRequestPage:
    item = response.json()
    return _MergeRequestPage(
        total=1,
        has_next=False,
        pulls=[_merge_request(item, body_limit)],
        project_ids=[int(item["project_id"])],
    )
