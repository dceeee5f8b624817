"""GitLab's REST v4 answers about code (files, trees, code and project searches, an owner's
projects) turned into what the cache keeps: the host-neutral shapes of
:mod:`octo.codehosts.shapes.code`, or a trimmed page the GitLab backend still filters."""

from __future__ import annotations

import hashlib
from typing import Generic
from typing import TypeVar

import httpx
from pydantic import BaseModel

from octo.codehosts.hosts.gitlab.policy import blob_url
from octo.codehosts.hosts.host import owner_page
from octo.codehosts.models.code import CodeSearchHit
from octo.codehosts.models.code import Repository
from octo.codehosts.models.code import SearchCodeQuery
from octo.codehosts.models.code import TextMatch
from octo.codehosts.models.code import TextMatchSpan
from octo.codehosts.shapes.code import FileBlob
from octo.codehosts.shapes.code import Listing
from octo.codehosts.shapes.code import TreeRow
from octo.codehosts.shapes.code import blob_from_bytes
from octo.core.errors import InvalidResponseError
from octo.core.secrets.redaction import as_shown

ItemT = TypeVar("ItemT")


def next_page(response: httpx.Response) -> str | None:
    raw = response.headers.get("x-next-page", "")
    return raw if raw.isdigit() else None


def total_of(response: httpx.Response, page: int, per_page: int, count: int) -> int:
    """The x-total header; above 10,000 records GitLab omits it, so it is estimated from the
    pages seen (one more when a next page exists)."""
    raw = response.headers.get("x-total", "")
    if raw.isdigit():
        return int(raw)
    return (page - 1) * per_page + count + int(next_page(response) is not None)


class Page(BaseModel, Generic[ItemT]):
    """One numbered page of a listing that the GitLab backend still filters."""

    total: int
    has_next: bool
    items: list[ItemT]


def _page(response: httpx.Response, page: int, per_page: int, items: list[ItemT]) -> Page[ItemT]:
    return Page(
        total=total_of(response, page, per_page, len(items)),
        has_next=next_page(response) is not None,
        items=items,
    )


class Blob(BaseModel):
    """A code-search hit as GitLab's basic search sends it."""

    path: str
    ref: str
    startline: int
    data: str
    project_id: int | None = None


def parse_blob_search(response: httpx.Response, page: int, per_page: int) -> Page[Blob]:
    blobs = [
        Blob(
            path=item.get("path") or item.get("filename") or "",
            ref=item.get("ref") or "HEAD",
            startline=int(item.get("startline") or 1),
            data=item.get("data") or "",
            project_id=item.get("project_id"),
        )
        for item in response.json()
    ]
    return _page(response, page, per_page, blobs)


def _spans(fragment: str, keywords: list[str]) -> list[TextMatchSpan]:
    """Where the keywords occur in a fragment (GitLab sends fragments without positions)."""
    found = []
    lowered = fragment.lower()
    for keyword in keywords:
        needle = keyword.strip().lower()
        start = lowered.find(needle) if needle else -1
        while start >= 0:
            end = start + len(needle)
            found.append(TextMatchSpan(text=fragment[start:end], indices=(start, end)))
            start = lowered.find(needle, end)
    return sorted(found, key=lambda s: s.indices)


def code_hit(web_root: str, query: SearchCodeQuery, blob: Blob) -> CodeSearchHit:
    """A hit of the host-neutral shape; without owner and repo a hit names its project's id."""
    repository = (
        f"{query.owner}/{query.repo}" if query.owner and query.repo else f"{blob.project_id}"
    )
    # The spans are found in the text the answer shows, and index it.
    fragment = as_shown(blob.data)
    found = _spans(fragment, query.keywordsToSearch)
    return CodeSearchHit(
        file=blob.path,
        repository=repository,
        matches=len(found),
        url=f"{blob_url(web_root, repository, blob.ref, blob.path)}#L{blob.startline}",
        text_matches=[TextMatch(fragment=fragment, matches=found)],
    )


def parse_tree_page(response: httpx.Response) -> Listing[TreeRow]:
    entries: list[TreeRow] = [
        (
            str(e["path"]),
            "file" if e.get("type") == "blob" else "dir",
            None,
            e["id"] if isinstance(e.get("id"), str) else None,
        )
        for e in response.json()
    ]
    # Keyset pagination answers with a Link header; older instances with page numbers.
    next_link = response.links.get("next", {}).get("url")
    return Listing(items=entries, next=next_link or next_page(response))


def parse_owner_page(response: httpx.Response) -> Listing[str]:
    """A page of a group's (or user's) projects: their full paths, and the next page's
    number."""
    return owner_page(response.json(), "path_with_namespace", "GitLab", next_page(response))


def git_blob_sha(raw: bytes) -> str:
    """The git object id of a file's bytes (what GitLab calls its blob id)."""
    return hashlib.sha1(b"blob %d\0" % len(raw) + raw, usedforsecurity=False).hexdigest()


def parse_raw_file(response: httpx.Response) -> FileBlob:
    raw = response.content
    sha = response.headers.get("x-gitlab-blob-id") or git_blob_sha(raw)
    size = response.headers.get("x-gitlab-size", "")
    if size.isdigit() and int(size) > len(raw):
        raise InvalidResponseError(
            f"GitLab sent {len(raw)} bytes of a file of {size}: the answer was cut off",
            hints=["Retry: the connection was cut while the file was on its way."],
        )
    return blob_from_bytes(raw, sha, int(size) if size.isdigit() else len(raw))


class Project(BaseModel):
    repository: Repository
    created_at: str | None = None


def parse_projects(response: httpx.Response, page: int, per_page: int) -> Page[Project]:
    projects = [
        Project(
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
        for item in response.json()
    ]
    return _page(response, page, per_page, projects)
