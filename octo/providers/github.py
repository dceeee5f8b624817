"""GitHub: the five code-host tools over the REST API, on the shared remote transport.

What is GitHub's own lives here: token discovery, the ``x-ratelimit-*`` headers
and secondary-limit wording (:class:`GitHubPolicy`), search-syntax rewriting, and
the shaping of API answers into the compact results of :mod:`octo.tools.github`.
"""

from __future__ import annotations

import base64
import binascii
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlparse

import anyio
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
from octo.core.config import env_seconds
from octo.core.errors import AuthenticationError, InvalidQueryError, NotFoundError
from octo.core.redaction import redact
from octo.legacy import HostAnswer
from octo.providers.codehost import (
    FileBlob,
    ItemT,
    Listing,
    PullRequestParts,
    RepoTree,
    blob_from_bytes,
    detail_pull_requests,
    file_content_answer,
    pull_request_hints,
    read_listing,
    repo_structure_answer,
    short_body,
)
from octo.transports.http_client import Fetched, RemoteClient
from octo.transports.http_policy import Backoff, HostPolicy, RateLimit, rate_limit_from_headers

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
#: Code search: at most this many results per query, whatever the paging.
MAX_SEARCH_RESULTS = 1000
_GH_TIMEOUT = 5.0

_AUTH_HINTS = [
    "Set GITHUB_TOKEN (or GH_TOKEN) in the environment, or run `gh auth login`.",
    "A fine-grained token needs read access to the repository's contents and pull requests.",
]


@dataclass(frozen=True)
class GitHubSettings:
    """Where GitHub is and how long its answers stay cached (seconds)."""

    api_url: str = DEFAULT_API_URL
    ttl_code_search: float = 3600.0
    ttl_file_content: float = 3600.0
    ttl_repo_search: float = 7200.0
    ttl_pull_requests: float = 1800.0
    ttl_tree: float = 3600.0

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> GitHubSettings:
        """``GITHUB_API_URL`` and ``OCTO_GITHUB_TTL_{CODE_SEARCH,FILE_CONTENT,REPO_SEARCH,
        PULL_REQUESTS,TREE}`` (seconds)."""

        def ttl(name: str, default: float) -> float:
            return env_seconds(env, f"OCTO_GITHUB_TTL_{name}", default, zero_ok=True)

        return cls(
            api_url=(env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
            ttl_code_search=ttl("CODE_SEARCH", cls.ttl_code_search),
            ttl_file_content=ttl("FILE_CONTENT", cls.ttl_file_content),
            ttl_repo_search=ttl("REPO_SEARCH", cls.ttl_repo_search),
            ttl_pull_requests=ttl("PULL_REQUESTS", cls.ttl_pull_requests),
            ttl_tree=ttl("TREE", cls.ttl_tree),
        )


def web_host(api_url: str) -> str:
    """The host ``gh`` knows an API URL by: api.github.com -> github.com, HOST/api/v3 -> HOST."""
    host = urlparse(api_url).hostname or "github.com"
    return host.removeprefix("api.")


class GitHubAuth:
    """The token: GITHUB_TOKEN, then GH_TOKEN, then `gh auth token`; looked up once."""

    def __init__(self, env: Mapping[str, str], api_url: str) -> None:
        self._env = env
        self._host = web_host(api_url)
        self._token: str | None = None
        self._resolved = False
        self._lock = anyio.Lock()

    async def token(self) -> str | None:
        if not self._resolved:
            async with self._lock:
                if not self._resolved:
                    self._token = (
                        self._env.get("GITHUB_TOKEN")
                        or self._env.get("GH_TOKEN")
                        or await self._gh_token()
                    )
                    self._resolved = True
        return self._token

    @property
    def known_token(self) -> str | None:
        """The token if it was already looked up (for scrubbing; never triggers a lookup)."""
        return self._token

    async def _gh_token(self) -> str | None:
        gh = shutil.which("gh", path=self._env.get("PATH"))
        if gh is None:
            return None
        args = [gh, "auth", "token"]
        if self._host != "github.com":
            args += ["--hostname", self._host]
        try:
            with anyio.fail_after(_GH_TIMEOUT):
                done = await anyio.run_process(args, check=False, env=dict(self._env) or None)
        except (TimeoutError, OSError):
            return None
        if done.returncode != 0:
            return None
        return done.stdout.decode(errors="replace").strip() or None


class GitHubPolicy(HostPolicy):
    """GitHub's headers, rate-limit resources and secondary-limit wording."""

    name = "GitHub"
    # GitHub asks for at least a minute after a secondary limit; retrying sooner risks a ban.
    secondary_backoff = Backoff(first=60.0, maximum=300.0, attempts=4, jitter=5.0)

    def __init__(self, auth: GitHubAuth) -> None:
        self.auth = auth

    async def headers(self) -> dict[str, str]:
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
        }
        token = await self.auth.token()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return headers

    def secrets(self) -> tuple[str, ...]:
        token = self.auth.known_token
        return (token,) if token else ()

    def resource_for(self, path: str) -> str:
        path = path.rstrip("/")
        if path.endswith("/search/code"):
            return "code_search"
        if "/search/" in path:
            return "search"
        return "core"

    def concurrency(self, resource: str) -> int:
        # Code search is 10/min with a strict secondary limit: one bulk (3 queries) at a time.
        return {"code_search": 3, "search": 4}.get(resource, 8)

    def rate_limit(self, response: httpx.Response) -> RateLimit | None:
        resource = response.headers.get("x-ratelimit-resource")
        return rate_limit_from_headers(
            response.headers,
            "x-ratelimit-",
            resource or self.resource_for(response.request.url.path),
        )

    def is_secondary_limit(self, response: httpx.Response) -> bool:
        text = response.text.lower()
        if "secondary rate limit" in text or "abuse detection" in text:
            return True
        return super().is_secondary_limit(response)

    def auth_hints(self) -> list[str]:
        return list(_AUTH_HINTS)

    def rate_limit_hints(self) -> list[str]:
        return [
            "Narrow the query (owner/repo, a path or extension) so fewer calls are needed.",
            "Use the local tools (localSearchCode) on a clone as an alternative.",
            "Answers are cached: repeating a query costs no quota.",
        ]


# Code-search syntax: models write the web's new search syntax; the REST API speaks the legacy one.

_REGEX_KEYWORD = re.compile(r"^/(.+)/[a-z]*$")
_GLOB_EXTENSION = re.compile(r"^(?:\*\*/)?\*\.([A-Za-z0-9_+-]+)$")
_FILE_NAME = re.compile(r"^[^.*/][^/]*\.[A-Za-z0-9_+-]{1,10}$")
_BOOLEAN = re.compile(r"\b(AND|OR|NOT)\b")


def code_search_terms(query: SearchCodeQuery) -> tuple[str, list[str]]:
    """The ``q`` of a code search, and notes on every rewrite it needed."""
    notes: list[str] = []
    terms: list[str] = []
    for raw in query.keywordsToSearch:
        keyword = raw.strip()
        regex = _REGEX_KEYWORD.match(keyword)
        if regex:
            keyword = regex.group(1)
            notes.append(f"regex /{keyword}/ is not supported by code search: searched literally")
        if keyword.lower().startswith("symbol:"):
            keyword = keyword[len("symbol:") :]
            notes.append("symbol: is not supported by code search: searched as a keyword")
        if "(" in keyword and ")" in keyword and _BOOLEAN.search(keyword):
            keyword = keyword.replace("(", " ").replace(")", " ")
            notes.append("parenthesised boolean groups are not supported: parentheses dropped")
        keyword = " ".join(keyword.split())
        terms.append(f'"{keyword}"' if " " in keyword and not _BOOLEAN.search(keyword) else keyword)
    text = " ".join(terms)
    if len(text) > 256:
        raise InvalidQueryError(
            f"keywordsToSearch is {len(text)} characters; code search allows 256",
            hints=["Use fewer or shorter keywords."],
        )
    if len(_BOOLEAN.findall(text)) > 5:
        raise InvalidQueryError(
            "code search allows at most 5 AND/OR/NOT operators",
            hints=["Split the query into several queries of one bulk call."],
        )

    extension = query.extension.strip().lstrip("*").lstrip(".") if query.extension else None
    filename = query.filename.strip() if query.filename else None
    path = query.path.strip().strip("/") if query.path else None
    if filename and "*" in filename:
        glob = _GLOB_EXTENSION.match(filename)
        if glob and not extension:
            extension, filename = glob.group(1), None
            notes.append(f"filename glob became extension:{extension}")
        else:
            filename = filename.replace("*", "") or None
            notes.append("globs are not supported in filename: the * was dropped")
    if path and "*" in path:
        head, _, last = path.rpartition("/")
        glob = _GLOB_EXTENSION.match(last)
        if glob and not extension:
            extension = glob.group(1)
        path = "/".join(part for part in head.split("/") if part and "*" not in part) or None
        notes.append(
            "globs are not supported in path: (a directory prefix): "
            f"searched path:{path or '/'}" + (f" extension:{extension}" if extension else "")
        )
    elif path and not filename:
        head, _, last = path.rpartition("/")
        if _FILE_NAME.match(last):
            filename, path = last, head or None
            notes.append(
                f"path: takes a directory prefix, so '{last}' is searched as filename:{last}"
            )
    filters = [f for f in (extension, filename, path) if f]
    if len(filters) > 2:
        notes.append("more than 2 of extension/filename/path often finds nothing: drop one")

    parts = [text]
    if query.owner and query.repo:
        parts.append(f"repo:{query.owner}/{query.repo}")
    elif query.owner:
        parts.append(f"user:{query.owner}")
    if extension:
        parts.append(f"extension:{extension}")
    if filename:
        parts.append(f"filename:{filename}")
    if path:
        parts.append(f"path:{path}")
    if query.match:
        parts.append(f"in:{query.match}")
    return " ".join(parts), notes


# Cached shapes: the trimmed form of an API answer that the cache holds.


class _CodeSearchPage(BaseModel):
    total: int
    incomplete: bool
    hits: list[CodeSearchHit]


class _RepoPage(BaseModel):
    total: int
    repositories: list[Repository]


class _PullRequestPage(BaseModel):
    total: int
    pulls: list[PullRequest]


def _decode_base64(content: str) -> bytes:
    try:
        return base64.b64decode("".join(content.split()), validate=True)
    except binascii.Error as exc:
        raise InvalidQueryError(f"GitHub sent undecodable base64 content: {exc}") from None


def _parse_contents(response: httpx.Response) -> FileBlob:
    body = response.json()
    if isinstance(body, list):
        raise InvalidQueryError(
            "the path is a directory", hints=["List it with githubViewRepoStructure."]
        )
    kind = body.get("type")
    if kind == "submodule":
        raise InvalidQueryError(
            f"the path is a submodule of {body.get('submodule_git_url')}",
            hints=["Read the file in the submodule's own repository."],
        )
    if kind != "file":
        raise InvalidQueryError(f"the path is a {kind}, not a file")
    sha, size = str(body["sha"]), int(body.get("size") or 0)
    content = body.get("content") or ""
    if body.get("encoding") == "none" or (not content and size):
        return FileBlob(sha=sha, size=size, needs_blob=True, html_url=body.get("html_url"))
    return blob_from_bytes(_decode_base64(content), sha, size, body.get("html_url"))


def _parse_blob(response: httpx.Response) -> FileBlob:
    body = response.json()
    raw = _decode_base64(body.get("content") or "")
    return blob_from_bytes(raw, str(body["sha"]), int(body.get("size") or len(raw)))


def _text_matches(item: Mapping[str, Any]) -> list[TextMatch]:
    return [
        TextMatch(
            fragment=tm.get("fragment", ""),
            matches=[
                TextMatchSpan(text=m.get("text", ""), indices=tuple(m.get("indices", (0, 0))))
                for m in tm.get("matches") or []
            ],
        )
        for tm in item.get("text_matches") or []
        if tm.get("property", "content") == "content"
    ]


def _parse_code_search(response: httpx.Response) -> _CodeSearchPage:
    body = response.json()
    hits = []
    for item in body.get("items") or []:
        matches = _text_matches(item)
        hits.append(
            CodeSearchHit(
                file=item["path"],
                repository=item["repository"]["full_name"],
                matches=sum(len(tm.matches) for tm in matches),
                url=item.get("html_url", ""),
                text_matches=[
                    tm.model_copy(update={"fragment": redact(tm.fragment)}) for tm in matches
                ]
                or None,
            )
        )
    return _CodeSearchPage(
        total=int(body.get("total_count") or 0),
        incomplete=bool(body.get("incomplete_results")),
        hits=hits,
    )


def _parse_tree(response: httpx.Response) -> RepoTree:
    body = response.json()
    entries = [
        (str(e["path"]), "file" if e.get("type") == "blob" else "dir", e.get("size"))
        for e in body.get("tree") or []
    ]
    return RepoTree(truncated=bool(body.get("truncated")), entries=entries)


def _parse_repositories(response: httpx.Response) -> _RepoPage:
    body = response.json()
    return _RepoPage(
        total=int(body.get("total_count") or 0),
        repositories=[
            Repository(
                name=item["name"],
                full_name=item["full_name"],
                description=item.get("description"),
                stars=int(item.get("stargazers_count") or 0),
                forks=int(item.get("forks_count") or 0),
                language=item.get("language"),
                topics=list(item.get("topics") or []),
                default_branch=item.get("default_branch"),
                updated_at=item.get("pushed_at") or item.get("updated_at"),
                archived=item.get("archived"),
                html_url=item["html_url"],
            )
            for item in body.get("items") or []
        ],
    )


def _repository_of(url: str) -> str:
    # ".../repos/OWNER/REPO" (search items) or ".../repos/OWNER/REPO/pulls/N".
    parts = urlparse(url).path.split("/")
    at = parts.index("repos") if "repos" in parts else len(parts) - 3
    return "/".join(parts[at + 1 : at + 3])


def _pull_from_issue(item: Mapping[str, Any], body_limit: int) -> PullRequest:
    pull = item.get("pull_request") or {}
    return PullRequest(
        number=int(item["number"]),
        title=item.get("title", ""),
        state="closed" if item.get("state") == "closed" else "open",
        merged=bool(pull.get("merged_at")),
        draft=item.get("draft"),
        author=(item.get("user") or {}).get("login", ""),
        repository=_repository_of(item.get("repository_url") or item.get("url", "")),
        created_at=item.get("created_at", ""),
        updated_at=item.get("updated_at", ""),
        merged_at=pull.get("merged_at"),
        html_url=item.get("html_url", ""),
        labels=[label.get("name", "") for label in item.get("labels") or []],
        body=short_body(item.get("body"), body_limit),
    )


def _pull_from_detail(item: Mapping[str, Any], body_limit: int) -> PullRequest:
    return PullRequest(
        number=int(item["number"]),
        title=item.get("title", ""),
        state="closed" if item.get("state") == "closed" else "open",
        merged=bool(item.get("merged") or item.get("merged_at")),
        draft=item.get("draft"),
        author=(item.get("user") or {}).get("login", ""),
        repository=(item.get("base") or {}).get("repo", {}).get("full_name")
        or _repository_of(item.get("url", "")),
        created_at=item.get("created_at", ""),
        updated_at=item.get("updated_at", ""),
        merged_at=item.get("merged_at"),
        html_url=item.get("html_url", ""),
        labels=[label.get("name", "") for label in item.get("labels") or []],
        head=(item.get("head") or {}).get("ref"),
        base=(item.get("base") or {}).get("ref"),
        body=short_body(item.get("body"), body_limit),
    )


def pull_request_terms(query: SearchPullRequestsQuery) -> str:
    """The ``q`` of an issue search that finds the pull requests ``query`` asks for."""
    parts = ["is:pr"]
    if query.query:
        parts.append(query.query.strip())
    if query.owner and query.repo:
        parts.append(f"repo:{query.owner}/{query.repo}")
    elif query.owner:
        parts.append(f"user:{query.owner}")
    if query.state:
        parts.append(f"state:{query.state}")
    if query.merged is not None:
        parts.append("is:merged" if query.merged else "is:unmerged")
    if query.draft is not None:
        parts.append(f"draft:{str(query.draft).lower()}")
    if query.author:
        parts.append(f"author:{query.author}")
    if query.assignee:
        parts.append(f"assignee:{query.assignee}")
    labels = [query.label] if isinstance(query.label, str) else query.label or []
    parts.extend(f'label:"{label}"' if " " in label else f"label:{label}" for label in labels)
    if query.created:
        parts.append(f"created:{query.created.strip()}")
    if query.updated:
        parts.append(f"updated:{query.updated.strip()}")
    return " ".join(parts)


def repository_terms(query: SearchRepositoriesQuery) -> str:
    """The ``q`` of a repository search."""
    parts = [" ".join(query.keywordsToSearch or [])]
    parts.extend(f"topic:{topic}" for topic in query.topicsToSearch or [])
    if query.owner:
        parts.append(f"user:{query.owner}")
    for name, value in (
        ("stars", query.stars),
        ("size", query.size),
        ("created", query.created),
        ("pushed", query.updated),
    ):
        if value:
            parts.append(f"{name}:{value.replace(' ', '')}")
    if query.match:
        parts.append("in:" + ",".join(query.match))
    return " ".join(p for p in parts if p)


class GitHubProvider:
    """The GitHub code host: one per runtime, sharing its HTTP client and cache."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.settings = GitHubSettings.from_env(runtime.config.env)
        self.auth = GitHubAuth(runtime.config.env, self.settings.api_url)
        self.remote = RemoteClient(
            runtime.http,
            runtime.cache,
            self.settings.api_url,
            GitHubPolicy(self.auth),
            max_wait=runtime.config.query_timeout,
        )

    async def search_code(self, query: SearchCodeQuery) -> HostAnswer[SearchCodeResult]:
        q, notes = code_search_terms(query)
        if not await self.auth.token():
            raise AuthenticationError(
                "GitHub code search needs a token",
                hints=[*_AUTH_HINTS, "githubSearchRepositories works without a token."],
            )
        fetched = await self.remote.fetch(
            "/search/code",
            kind="code-search",
            ttl=self.settings.ttl_code_search,
            params={"q": q, "per_page": query.limit, "page": query.page},
            headers={"Accept": "application/vnd.github.text-match+json"},
            parse=_parse_code_search,
            cacheable=lambda page: not page.incomplete,
        )
        page = fetched.value
        reachable = min(page.total, MAX_SEARCH_RESULTS)
        result = SearchCodeResult(
            results=page.hits,
            totalCount=page.total,
            pagination=SearchPagination(
                currentPage=query.page, hasMore=query.page * query.limit < reachable
            ),
            incompleteResults=True if page.incomplete else None,
        )
        hints = [f"Query rewritten: {note}." for note in notes]
        hints += self.remote.quota_hints(fetched)
        if page.incomplete:
            hints.append("GitHub timed out and returned partial results: narrow with owner/repo.")
        if page.hits:
            top = page.hits[0]
            owner, _, repo = top.repository.partition("/")
            needle = next(
                (m.text for tm in top.text_matches or [] for m in tm.matches),
                query.keywordsToSearch[0],
            )
            hints.append(
                "Fragments carry no line numbers: read a hit with githubGetFileContent "
                f'(owner="{owner}", repo="{repo}", path="{top.file}", matchString="{needle}").'
            )
            if result.pagination.hasMore:
                hints.append(f"More results: page={query.page + 1}.")
        else:
            hints += [
                "Code search covers default branches and files under 384 KB only.",
                "Try fewer keywords or filters; path is a directory prefix, "
                "filename an exact name.",
            ]
        return HostAnswer(result, hints, fetched.cached)

    async def _file_blob(
        self, owner: str, repo: str, path: str, ref: str | None
    ) -> Fetched[FileBlob]:
        contents_path = f"/repos/{quote(owner)}/{quote(repo)}/contents/{quote(path.strip('/'))}"
        try:
            fetched = await self.remote.fetch(
                contents_path,
                kind="file",
                ttl=self.settings.ttl_file_content,
                params={"ref": ref} if ref else None,
                parse=_parse_contents,
            )
        except NotFoundError as exc:
            exc.hints += [
                "Check owner, repo, path and branch spelling (paths are case-sensitive).",
                "Find the path with githubViewRepoStructure or githubSearchCode.",
            ]
            raise
        if not fetched.value.needs_blob:
            return fetched
        # Blobs are immutable: their SHA is the key, so the long TTL is safe.
        blob = await self.remote.fetch(
            f"/repos/{quote(owner)}/{quote(repo)}/git/blobs/{fetched.value.sha}",
            kind="blob",
            ttl=self.settings.ttl_file_content,
            parse=_parse_blob,
        )
        return blob

    async def get_file_content(self, query: FileContentQuery) -> HostAnswer[FileContentResult]:
        fetched = await self._file_blob(query.owner, query.repo, query.path, query.branch)
        result, hints = file_content_answer(self.runtime.config, query, fetched.value)
        return HostAnswer(result, hints + self.remote.quota_hints(fetched), fetched.cached)

    async def view_repo_structure(
        self, query: RepoStructureQuery
    ) -> HostAnswer[RepoStructureResult]:
        try:
            fetched = await self.remote.fetch(
                f"/repos/{quote(query.owner)}/{quote(query.repo)}/git/trees/"
                f"{quote(query.branch, safe='')}",
                kind="tree",
                ttl=self.settings.ttl_tree,
                params={"recursive": "1"},
                parse=_parse_tree,
            )
        except NotFoundError as exc:
            exc.hints += [
                "Check owner, repo and branch; githubSearchRepositories shows the default branch."
            ]
            raise
        tree = fetched.value
        result, hints = repo_structure_answer(query, tree)
        if tree.truncated:
            hints.insert(
                0,
                "GitHub truncated this tree (over 100,000 entries): some entries are missing; "
                "view a narrower path.",
            )
        return HostAnswer(result, self.remote.quota_hints(fetched) + hints, fetched.cached)

    async def search_repositories(
        self, query: SearchRepositoriesQuery
    ) -> HostAnswer[SearchRepositoriesResult]:
        params: dict[str, Any] = {
            "q": repository_terms(query),
            "per_page": query.limit,
            "page": query.page,
        }
        if query.sort and query.sort != "best-match":
            params["sort"] = query.sort
        fetched = await self.remote.fetch(
            "/search/repositories",
            kind="repo-search",
            ttl=self.settings.ttl_repo_search,
            params=params,
            parse=_parse_repositories,
        )
        page = fetched.value
        reachable = min(page.total, MAX_SEARCH_RESULTS)
        result = SearchRepositoriesResult(
            repositories=page.repositories,
            totalCount=page.total,
            pagination=SearchPagination(
                currentPage=query.page, hasMore=query.page * query.limit < reachable
            ),
        )
        hints = self.remote.quota_hints(fetched)
        if page.repositories:
            top = page.repositories[0]
            owner, _, repo = top.full_name.partition("/")
            hints.append(
                f'Explore one: githubViewRepoStructure (owner="{owner}", repo="{repo}", '
                f'branch="{top.default_branch or "main"}").'
            )
            if result.pagination.hasMore:
                hints.append(f"More results: page={query.page + 1}.")
        else:
            hints.append("Nothing found: drop a filter or use topicsToSearch instead of keywords.")
        return HostAnswer(result, hints, fetched.cached)

    async def search_pull_requests(
        self, query: SearchPullRequestsQuery
    ) -> HostAnswer[SearchPullRequestsResult]:
        body_limit = 600 if query.type == "metadata" else 4000
        ttl = self.settings.ttl_pull_requests
        if query.prNumber is not None:
            assert query.owner and query.repo
            try:
                detail = await self.remote.fetch(
                    f"/repos/{quote(query.owner)}/{quote(query.repo)}/pulls/{query.prNumber}",
                    kind="pull",
                    ttl=ttl,
                    parse=lambda r: _pull_from_detail(r.json(), 4000),
                )
            except NotFoundError as exc:
                exc.hints.append("Check the number; search without prNumber to find it.")
                raise
            fetched: Fetched[Any] = detail
            page = _PullRequestPage(total=1, pulls=[detail.value])
            pagination = None
        else:
            search = await self.remote.fetch(
                "/search/issues",
                kind="pull-search",
                ttl=ttl,
                params={
                    "q": pull_request_terms(query),
                    "per_page": query.limit,
                    "page": query.page,
                },
                parse=lambda r: _PullRequestPage(
                    total=int(r.json().get("total_count") or 0),
                    pulls=[_pull_from_issue(i, body_limit) for i in r.json().get("items") or []],
                ),
            )
            fetched, page = search, search.value
            pagination = SearchPagination(
                currentPage=query.page,
                hasMore=query.page * query.limit < min(page.total, MAX_SEARCH_RESULTS),
            )
        detailed = await detail_pull_requests(
            page.pulls, query, self._pull_parts, self.runtime.config
        )
        hints = self.remote.quota_hints(fetched)
        hints += pull_request_hints(query, detailed, bool(pagination and pagination.hasMore))
        result = SearchPullRequestsResult(
            pullRequests=detailed.pulls, totalCount=page.total, pagination=pagination
        )
        return HostAnswer(result, hints, fetched.cached and detailed.cached)

    @property
    def _pull_parts(self) -> PullRequestParts:
        async def comments(pull: PullRequest) -> Fetched[Listing[PullRequestComment]]:
            return await self._pull_page(pull, "issues/{n}/comments", 30, _parse_comments)

        async def commits(pull: PullRequest) -> Fetched[Listing[PullRequestCommit]]:
            return await self._pull_page(pull, "pulls/{n}/commits", 100, _parse_commits)

        async def files(pull: PullRequest, max_pages: int) -> Fetched[Listing[PullRequestFile]]:
            return await read_listing(
                lambda cursor: self._pull_page(pull, "pulls/{n}/files", 100, _parse_files, cursor),
                max_pages,
            )

        return PullRequestParts(comments=comments, commits=commits, files=files)

    async def _pull_page(
        self,
        pull: PullRequest,
        path: str,
        per_page: int,
        parse: Callable[[httpx.Response], Listing[ItemT]],
        cursor: str | None = None,
    ) -> Fetched[Listing[ItemT]]:
        """One page of a pull request's part: ``path`` below the repository ({n}: the number),
        or the ``link`` URL of a later page."""
        return await self.remote.fetch(
            cursor or f"/repos/{pull.repository}/{path.format(n=pull.number)}",
            kind=f"pull-{path.rsplit('/', 1)[-1]}",
            ttl=self.settings.ttl_pull_requests,
            params=None if cursor else {"per_page": per_page},
            parse=parse,
        )


def _next_link(response: httpx.Response) -> str | None:
    return response.links.get("next", {}).get("url")


def _parse_comments(response: httpx.Response) -> Listing[PullRequestComment]:
    comments = [
        PullRequestComment(
            author=(c.get("user") or {}).get("login", ""),
            body=short_body(c.get("body"), 2000) or "",
            created_at=c.get("created_at", ""),
        )
        for c in response.json()
    ]
    return Listing(items=comments, next=_next_link(response))


def _parse_commits(response: httpx.Response) -> Listing[PullRequestCommit]:
    commits = [
        PullRequestCommit(
            sha=c["sha"],
            message=(c.get("commit") or {}).get("message", ""),
            author=(c.get("author") or {}).get("login")
            or ((c.get("commit") or {}).get("author") or {}).get("name", ""),
        )
        for c in response.json()
    ]
    return Listing(items=commits, next=_next_link(response))


def _parse_files(response: httpx.Response) -> Listing[PullRequestFile]:
    files = [
        PullRequestFile(
            filename=f["filename"],
            status=f.get("status", "modified"),
            additions=int(f.get("additions") or 0),
            deletions=int(f.get("deletions") or 0),
            previous_filename=f.get("previous_filename"),
            patch=f.get("patch"),
        )
        for f in response.json()
    ]
    return Listing(items=files, next=_next_link(response))
