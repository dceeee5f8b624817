"""What a code host's API calls answer, in shapes that are the same for every host.

GitHub and GitLab each turn their API's answers into these (a :class:`Reply`, a
:class:`FileBlob`, a :class:`RepoTree`, :class:`Listing` pages; the history's in
:mod:`~octo.codehosts.shapes.history`, CI's in :mod:`~octo.codehosts.shapes.ci`); the tools
shape their results from these alone, so one tool module serves both hosts. Pydantic models
are the ones the cache may hold.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import Generic
from typing import TypeVar

from pydantic import BaseModel

from octo.codehosts.models.code import CodeSearchHit
from octo.codehosts.models.code import Repository
from octo.codehosts.models.history import PullRequestComment
from octo.core.secrets.redaction import learn
from octo.transports.http.client import Fetched

T = TypeVar("T")
ItemT = TypeVar("ItemT")

#: A tree row: path from the repository root, "file" or "dir", size in bytes when known, and
#: its git object id (GitHub's ``sha``, GitLab's ``id``) when the host gives it.
TreeRow = tuple[str, str, int | None, str | None]


@dataclass(frozen=True)
class Reply(Generic[T]):
    """A host's answer to one API call of a tool.

    ``cached``: every request behind it was served from the cache. ``notes``: the host's
    own hints for the caller (a rewritten query, a filter it could not apply, its quota
    running low); they come before the tool's next-step hints.
    """

    value: T
    cached: bool = False
    notes: list[str] = field(default_factory=list)


class FileBlob(BaseModel):
    """One file as a host sent it: text, or a note that it is binary."""

    sha: str
    size: int
    text: str | None = None
    binary: bool = False
    #: Over 1 MB GitHub's contents API sends no content; the blob API has it.
    needs_blob: bool = False


def blob_from_bytes(raw: bytes, sha: str, size: int) -> FileBlob:
    """A file's blob from its bytes: UTF-8 text, or binary."""
    try:
        return FileBlob(sha=sha, size=size, text=raw.decode("utf-8"))
    except UnicodeDecodeError:
        return FileBlob(sha=sha, size=size, binary=True)


class RepoTree(BaseModel):
    """Every entry of a repository tree (full paths), and whether the listing was cut short."""

    truncated: bool
    entries: list[TreeRow]


class CodeSearchPage(BaseModel):
    """One page of code-search hits."""

    hits: list[CodeSearchHit]
    total: int
    has_more: bool
    #: The host timed out and answered with what it had found.
    incomplete: bool = False
    #: The line the top hit's fragment starts at, when the host tells it.
    first_line: int | None = None


class RepositoryPage(BaseModel):
    """One page of a repository search."""

    repositories: list[Repository]
    total: int
    has_more: bool


class Listing(BaseModel, Generic[ItemT]):
    """Items of one listing as far as it was read; ``next`` is where the host has more."""

    items: list[ItemT]
    #: The next page (a URL or a page number, as the host pages), None on the last page.
    next: str | None = None


async def read_listing(
    fetch_page: Callable[[str | None], Awaitable[Fetched[Listing[ItemT]]]], max_pages: int
) -> Fetched[Listing[ItemT]]:
    """Follow a listing's pages (``fetch_page(None)`` is the first) up to ``max_pages``.

    The answer's ``next`` stays set when pages were left unread.
    """
    items: list[ItemT] = []
    cached = True
    cursor: str | None = None
    for _ in range(max_pages):
        page = await fetch_page(cursor)
        items.extend(page.value.items)
        cached = cached and page.cached
        cursor = page.value.next
        if cursor is None:
            break
    return Fetched(Listing[ItemT](items=items, next=cursor), cached=cached)


def short_body(text: str | None, limit: int) -> str | None:
    """A description or comment cut to ``limit`` characters (its secret values known to
    the call first: a piece of one the cut leaves is hidden with the answer)."""
    if not text:
        return None
    text = text.strip()
    if len(text) <= limit:
        return text
    learn(text)
    return text[:limit] + " [...]"


def comment(author: str, body: str | None, created_at: str) -> PullRequestComment:
    """A pull request's comment as answers carry it: at most 2,000 characters."""
    return PullRequestComment(
        author=author, body=short_body(body, 2000) or "", created_at=created_at
    )
