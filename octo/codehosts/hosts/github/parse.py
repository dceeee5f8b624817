"""GitHub's REST answers about code (files, trees, code and repository searches, an owner's
repositories) in the host-neutral shapes of :mod:`octo.codehosts.shapes.code`."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any
from typing import TypeVar

import httpx

from octo.codehosts.hosts.host import owner_page
from octo.codehosts.models.code import CodeSearchHit
from octo.codehosts.models.code import Repository
from octo.codehosts.models.code import TextMatch
from octo.codehosts.models.code import TextMatchSpan
from octo.codehosts.shapes.code import CodeSearchPage
from octo.codehosts.shapes.code import FileBlob
from octo.codehosts.shapes.code import Listing
from octo.codehosts.shapes.code import RepositoryPage
from octo.codehosts.shapes.code import RepoTree
from octo.codehosts.shapes.code import blob_from_bytes
from octo.core.errors import InvalidQueryError
from octo.core.errors import InvalidResponseError

ItemT = TypeVar("ItemT")

#: A search answers at most this many results, whatever the paging.
MAX_SEARCH_RESULTS = 1000


def has_more(total: int, page: int, per_page: int) -> bool:
    """True when a search of ``total`` results has a page after ``page``."""
    return page * per_page < min(total, MAX_SEARCH_RESULTS)


def _decode_base64(content: str) -> bytes:
    try:
        return base64.b64decode("".join(content.split()), validate=True)
    except binascii.Error as exc:
        raise InvalidQueryError(f"GitHub sent undecodable base64 content: {exc}") from None


def parse_contents(response: httpx.Response) -> FileBlob:
    """A file from the contents API; a directory or submodule is refused with a hint."""
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
        return FileBlob(sha=sha, size=size, needs_blob=True)
    return blob_from_bytes(_whole(_decode_base64(content), size), sha, size)


def parse_blob(response: httpx.Response) -> FileBlob:
    """A file from the git blob API (files over 1 MB)."""
    body = response.json()
    raw = _decode_base64(body.get("content") or "")
    size = int(body.get("size") or len(raw))
    return blob_from_bytes(_whole(raw, size), str(body["sha"]), size)


def _whole(raw: bytes, size: int) -> bytes:
    """``raw`` when it holds the whole file of ``size`` bytes; a cut-off one is no answer."""
    if len(raw) < size:
        raise InvalidResponseError(
            f"GitHub sent {len(raw)} bytes of a file of {size}: the answer was cut off",
            hints=["Retry: the content was cut short on its way."],
        )
    return raw


def _text_matches(item: Mapping[str, Any]) -> list[TextMatch]:
    """The content fragments of a hit (path matches are noise for a content search)."""
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


def parse_code_search(response: httpx.Response, page: int, per_page: int) -> CodeSearchPage:
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
                text_matches=matches or None,
            )
        )
    total = int(body.get("total_count") or 0)
    return CodeSearchPage(
        hits=hits,
        total=total,
        has_more=has_more(total, page, per_page),
        incomplete=bool(body.get("incomplete_results")),
    )


def parse_tree(response: httpx.Response) -> RepoTree:
    body = response.json()
    entries = [
        (
            str(e["path"]),
            "file" if e.get("type") == "blob" else "dir",
            e.get("size"),
            _object_id(e.get("sha")),
        )
        for e in body.get("tree") or []
    ]
    return RepoTree(truncated=bool(body.get("truncated")), entries=entries)


def _object_id(value: Any) -> str | None:
    """A git object id as the host gave it; None for anything else."""
    return value if isinstance(value, str) else None


def parse_owner_page(response: httpx.Response) -> Listing[str]:
    """A page of an owner's repositories (``/orgs/{org}/repos``, ``/users/{user}/repos``):
    their full names, and the next page's number when the Link header names one."""
    page = response.request.url.params.get("page", "1")
    more = "next" in response.links and page.isdigit()
    return owner_page(response.json(), "full_name", "GitHub", str(int(page) + 1) if more else None)


def parse_repositories(response: httpx.Response, page: int, per_page: int) -> RepositoryPage:
    body = response.json()
    total = int(body.get("total_count") or 0)
    return RepositoryPage(
        total=total,
        has_more=has_more(total, page, per_page),
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
