"""What every code host shares once its API has answered: the shaping of the five tools' answers.

GitHub (:mod:`octo.providers.github`) and GitLab (:mod:`octo.providers.gitlab`) each
turn their API's answers into the host-neutral shapes here (a :class:`FileBlob`, a
:class:`RepoTree`, :class:`~octo.tools.github.PullRequestFile` lists); the functions
here make one answer of them for both hosts: line selection and char paging of a
file, depth and paging of a tree, per-file diff budgets, shortened bodies, and the
next-step hints of a pull-request search.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio
from pydantic import BaseModel

from octo.codehosts.models import (
    FileContentQuery,
    FileContentResult,
    ListingPagination,
    PullRequest,
    PullRequestComment,
    PullRequestCommit,
    PullRequestFile,
    RepoStructureQuery,
    RepoStructureResult,
    SearchPullRequestsQuery,
    StructureSummary,
    TreeEntry,
)
from octo.core.budget import CharPagination, cut_lines
from octo.core.config import Config
from octo.core.errors import FileTooLargeError, InvalidQueryError, NotFoundError
from octo.core.redaction import redact
from octo.transports.http_client import Fetched

#: The spec's size limit for one file answer.
MAX_FILE_BYTES = 300 * 1024
#: Largest diff of one file that a pull-request answer carries.
MAX_PATCH_CHARS = 8000

#: A tree row: path from the repository root, "file" or "dir", size in bytes when known.
TreeRow = tuple[str, str, int | None]


class FileBlob(BaseModel):
    """One file as a host sent it (the cached shape): text, or a note that it is binary."""

    sha: str
    size: int
    text: str | None = None
    binary: bool = False
    #: Over 1 MB GitHub's contents API sends no content; the blob API has it.
    needs_blob: bool = False
    html_url: str | None = None


def blob_from_bytes(raw: bytes, sha: str, size: int, html_url: str | None = None) -> FileBlob:
    """A file's blob from its bytes: UTF-8 text, or binary."""
    try:
        return FileBlob(sha=sha, size=size, text=raw.decode("utf-8"), html_url=html_url)
    except UnicodeDecodeError:
        return FileBlob(sha=sha, size=size, binary=True, html_url=html_url)


class RepoTree(BaseModel):
    """Every entry of a repository tree (full paths), and whether the host cut it short."""

    truncated: bool
    entries: list[TreeRow]


def short_body(text: str | None, limit: int) -> str | None:
    """A description or comment, secrets redacted, cut to ``limit`` characters."""
    if not text:
        return None
    text = redact(text.strip())
    return text if len(text) <= limit else text[:limit] + " [...]"


@dataclass(frozen=True)
class _Selection:
    text: str
    first_line: int
    total_lines: int
    match_count: int | None = None


def _select(text: str, query: FileContentQuery) -> _Selection:
    """The lines a file query asks for (all, a range, or windows around matches)."""
    lines = text.splitlines(keepends=True)
    total = len(lines)
    if query.startLine is not None and query.endLine is not None:
        if query.startLine > total:
            raise InvalidQueryError(
                f"startLine {query.startLine} is past the end of the file ({total} lines)",
                hints=[f"Use startLine between 1 and {total}."],
            )
        chosen = lines[query.startLine - 1 : query.endLine]
        return _Selection("".join(chosen), query.startLine, total)
    if query.matchString is not None:
        hits = [i for i, line in enumerate(lines) if query.matchString in line]
        context = query.matchStringContextLines
        windows: list[list[int]] = []
        for i in hits:
            start, end = max(0, i - context), min(total - 1, i + context)
            if windows and start <= windows[-1][1] + 1:
                windows[-1][1] = max(windows[-1][1], end)
            else:
                windows.append([start, end])
        if not windows:
            return _Selection("", 1, total, 0)
        parts = []
        for start, end in windows:
            parts.append(f"--- lines {start + 1}-{end + 1} ---\n")
            parts.append("".join(lines[start : end + 1]))
        return _Selection("".join(parts), windows[0][0] + 1, total, len(hits))
    return _Selection(text, 1, total)


def file_content_answer(
    config: Config, query: FileContentQuery, blob: FileBlob
) -> tuple[FileContentResult, list[str]]:
    """A file query's answer from the file itself, for every code host.

    Refuses binary and oversized files, selects lines, cuts the char page and the token budget.
    """
    if blob.binary or blob.text is None:
        raise InvalidQueryError(
            f"{query.path} is a binary file ({blob.size} bytes)",
            hints=["Binary files are not returned; look for a text source instead."],
        )
    sliced = query.startLine is not None or query.matchString is not None
    if blob.size > MAX_FILE_BYTES and not sliced and query.charLength is None:
        raise FileTooLargeError(
            f"{query.path} is {blob.size} bytes; one answer holds at most {MAX_FILE_BYTES} bytes",
            hints=[
                f"Read it in pages: charOffset={query.charOffset}, charLength=50000 "
                f"(the file has {len(blob.text)} characters).",
                "Or read part of it: matchString, or startLine/endLine.",
            ],
        )
    selection = _select(blob.text, query)
    text = selection.text
    total = len(text)
    start = min(query.charOffset, total)
    end = total if query.charLength is None else min(total, start + query.charLength)
    page = text[start:end]
    budget = config.max_tokens * config.chars_per_token
    hints: list[str] = []
    if len(page) > budget:
        cut = cut_lines(
            page.splitlines(keepends=True), 1, config.max_tokens, config.chars_per_token
        )
        page = cut.content
        end = start + len(page)
        hints.append(f"Cut to the token budget ({config.max_tokens} tokens).")
    paged = start > 0 or end < total
    pagination = None
    if paged:
        pagination = CharPagination.of(start, end, total)
        if end < total:
            hints.append(f"More content: charOffset={end}, charLength={max(50, end - start)}.")
    first = selection.first_line + text.count("\n", 0, start)
    last = first + page.count("\n", 0, max(0, len(page) - 1)) if page else None
    if selection.match_count == 0:
        hints.append(
            f'"{query.matchString}" does not occur in {query.path}; matching is exact and '
            "case-sensitive."
        )
    result = FileContentResult(
        owner=query.owner,
        repo=query.repo,
        path=query.path,
        branch=query.branch,
        content=redact(page),
        size=blob.size,
        sha=blob.sha,
        startLine=first if page and query.matchString is None else None,
        endLine=last if query.matchString is None else None,
        totalLines=selection.total_lines,
        matchCount=selection.match_count,
        pagination=pagination,
    )
    return result, hints


def repo_structure_answer(
    query: RepoStructureQuery, tree: RepoTree
) -> tuple[RepoStructureResult, list[str]]:
    """A structure query's answer from a repository tree, for every code host.

    ``tree`` holds full paths from the repository root; this applies depth, paging and summary.
    """
    prefix = query.path.strip("/")
    below = f"{prefix}/" if prefix else ""
    if (
        prefix
        and not tree.truncated
        and not any(p == prefix and kind == "dir" for p, kind, _ in tree.entries)
    ):
        raise NotFoundError(
            f"{prefix} is not a directory of {query.owner}/{query.repo}@{query.branch}",
            hints=[f'View the root first: path="", branch="{query.branch}".'],
        )
    chosen = [
        (p[len(below) :], kind, size)
        for p, kind, size in tree.entries
        if p.startswith(below) and p[len(below) :].count("/") < query.depth
    ]
    chosen.sort(key=lambda e: (e[0].split("/")[0], e[1] != "dir", e[0]))
    per_page = query.entriesPerPage
    pages = max(1, -(-len(chosen) // per_page))
    shown = chosen[(query.entryPageNumber - 1) * per_page : query.entryPageNumber * per_page]
    result = RepoStructureResult(
        owner=query.owner,
        repo=query.repo,
        branch=query.branch,
        path=prefix,
        structure={
            p: TreeEntry(
                type="file" if kind == "file" else "dir", size=size if kind == "file" else None
            )
            for p, kind, size in shown
        },
        summary=StructureSummary(
            totalFiles=sum(1 for _, kind, _ in chosen if kind == "file"),
            totalFolders=sum(1 for _, kind, _ in chosen if kind == "dir"),
            truncated=tree.truncated,
        ),
        pagination=ListingPagination(
            currentPage=query.entryPageNumber,
            totalPages=pages,
            hasMore=query.entryPageNumber < pages,
        )
        if pages > 1 or query.entryPageNumber > 1
        else None,
    )
    hints: list[str] = []
    if query.entryPageNumber < pages:
        hints.append(f"More entries: entryPageNumber={query.entryPageNumber + 1}.")
    first_dir = next((p for p, kind, _ in shown if kind == "dir"), None)
    if first_dir and query.depth == 1:
        hints.append(f'Look inside a folder: path="{below}{first_dir}", depth=2.')
    hints.append("Read a file with githubGetFileContent (same owner, repo, branch).")
    return result, hints


# Pull requests (GitHub) and merge requests (GitLab)

ItemT = TypeVar("ItemT", bound=BaseModel)

#: Pages of changed files read for type fullContent (100 files a page on GitHub, 50 on GitLab).
FULL_CONTENT_FILE_PAGES = 3
#: Pages read to find the files partialContent names (GitHub lists at most 3,000 files).
PARTIAL_CONTENT_FILE_PAGES = 60


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


@dataclass
class PatchBudget:
    """Characters of diff one answer may still carry, shared by all its pull requests."""

    chars: int
    #: "#N path" of every file whose diff did not fit.
    left_out: list[str] = field(default_factory=list)
    #: "#N path" of every file whose diff was cut at MAX_PATCH_CHARS.
    cut: list[str] = field(default_factory=list)

    def shape(
        self, files: list[PullRequestFile], query: SearchPullRequestsQuery, number: int
    ) -> list[PullRequestFile]:
        """Per-file diffs until the budget runs out: each capped at MAX_PATCH_CHARS with type
        fullContent; partialContent keeps only the files asked for, each up to the budget."""
        partial = query.type == "partialContent"
        if partial:
            wanted = {p.file.strip("/") for p in query.partialContentMetadata or []}
            files = [f for f in files if f.filename in wanted or f.previous_filename in wanted]
        shaped = []
        for f in files:
            patch = f.patch
            if patch is None:
                shaped.append(f)
                continue
            if self.chars <= 0:
                self.left_out.append(f"#{number} {f.filename}")
                shaped.append(f.model_copy(update={"patch": None, "patchTruncated": True}))
                continue
            limit = self.chars if partial else min(MAX_PATCH_CHARS, self.chars)
            cut = len(patch) > limit
            if cut and limit == MAX_PATCH_CHARS:
                self.cut.append(f"#{number} {f.filename}")
            patch = redact(patch[:limit])
            self.chars -= len(patch)
            shaped.append(
                f.model_copy(update={"patch": patch, "patchTruncated": True if cut else None})
            )
        return shaped


@dataclass(frozen=True)
class PullRequestParts:
    """How one host fetches what a pull request holds beyond its metadata.

    ``files`` gets the most pages of changed files it may read.
    """

    comments: Callable[[PullRequest], Awaitable[Fetched[Listing[PullRequestComment]]]]
    commits: Callable[[PullRequest], Awaitable[Fetched[Listing[PullRequestCommit]]]]
    files: Callable[[PullRequest, int], Awaitable[Fetched[Listing[PullRequestFile]]]]


@dataclass
class DetailedPullRequests:
    """Pull requests with the parts a query asked for."""

    pulls: list[PullRequest]
    #: True when every part came from the cache.
    cached: bool
    budget: PatchBudget
    #: "#N: more than 30 comments", one per part the host had more of than was read.
    unread: list[str]


async def detail_pull_requests(
    pulls: list[PullRequest],
    query: SearchPullRequestsQuery,
    parts: PullRequestParts,
    config: Config,
) -> DetailedPullRequests:
    """Add comments, commits and per-file diffs as ``query`` asks, all pull requests at once.

    The diffs of all pull requests share one budget: the token budget of the answer.
    """
    detailed = list(pulls)
    budget = PatchBudget(config.max_tokens * config.chars_per_token)
    unread: list[str] = []
    all_cached = True

    async def detail(index: int) -> None:
        nonlocal all_cached
        pull = detailed[index]
        update: dict[str, Any] = {}
        listings: list[tuple[str, Fetched[Listing[Any]]]] = []
        if query.withComments:
            comments = await parts.comments(pull)
            update["comments"] = comments.value.items
            listings.append(("comments", comments))
        if query.withCommits:
            commits = await parts.commits(pull)
            update["commits"] = commits.value.items
            listings.append(("commits", commits))
        if query.type != "metadata":
            pages = (
                PARTIAL_CONTENT_FILE_PAGES
                if query.type == "partialContent"
                else FULL_CONTENT_FILE_PAGES
            )
            files = await parts.files(pull, pages)
            update["files"] = budget.shape(files.value.items, query, pull.number)
            listings.append(("changed files", files))
        for what, listing in listings:
            all_cached = all_cached and listing.cached
            if listing.value.next is not None:
                unread.append(f"#{pull.number}: more than {len(listing.value.items)} {what}")
        detailed[index] = pull.model_copy(update=update)

    async with anyio.create_task_group() as tg:
        for index in range(len(detailed)):
            tg.start_soon(detail, index)
    return DetailedPullRequests(detailed, all_cached, budget, sorted(unread))


def pull_request_hints(
    query: SearchPullRequestsQuery,
    detailed: DetailedPullRequests,
    has_more: bool,
    *,
    noun: str = "pull requests",
    number: str = "N",
) -> list[str]:
    """Next steps after a pull-request search: what was not shown, paging, reading one in full.

    ``noun`` and ``number`` are the host's words ("merge requests", "IID").
    """
    hints: list[str] = []
    left_out, cut = detailed.budget.left_out, detailed.budget.cut
    if left_out:
        hints.append(
            f"Diffs of {len(left_out)} file(s) were left out to fit the token budget "
            f'({", ".join(left_out[:5])}); ask for them with type="partialContent", '
            'partialContentMetadata=[{"file": ...}].'
        )
    if cut:
        hints.append(
            f"Diffs of {len(cut)} file(s) were cut at {MAX_PATCH_CHARS} characters "
            f'({", ".join(cut[:5])}); type="partialContent" with one file gives it the whole '
            "token budget."
        )
    if detailed.unread:
        hints.append(
            f"Not everything was read: {'; '.join(detailed.unread[:5])}. "
            'Name the files you need with type="partialContent", or open html_url.'
        )
    if has_more:
        hints.append(f"More {noun}: page={query.page + 1}.")
    if not detailed.pulls:
        hints.append("Nothing found: drop a filter (state, label, dates) or widen the query.")
    elif query.type == "metadata" and not query.prNumber:
        hints.append(
            f'Read one in full: prNumber={number} with type="fullContent" (diffs per file), '
            "withComments, withCommits."
        )
    return hints
