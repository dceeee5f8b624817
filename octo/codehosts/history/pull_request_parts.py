"""What a pull request holds beyond its metadata, read as a query asks: comments, commits,
and changed files with per-file diffs that share the answer's token budget.

Every part of every pull request is read concurrently and settles on its own: a part
that fails (a 404, a host that keeps failing, a rate limit) is left out and said, and
the rest of the answer stands.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.models.history import PullRequest
from octo.codehosts.models.history import PullRequestFile
from octo.codehosts.models.history import SearchPullRequestsQuery
from octo.codehosts.shapes.code import Listing
from octo.codehosts.shapes.history import PullRequestPage
from octo.contract import QueryContext
from octo.core.concurrency import map_settled
from octo.core.config import Config
from octo.core.queries import ToolQuery
from octo.core.secrets.redaction import learn
from octo.transports.http.client import Fetched

#: Largest diff of one file that a pull-request answer carries.
MAX_PATCH_CHARS = 8000
#: Room below which a diff is left out rather than shown cut to a few characters.
_SHORTEST_DIFF = 40
#: Pages of changed files read for type fullContent (100 files a page on GitHub, 50 on GitLab).
FULL_CONTENT_FILE_PAGES = 3
#: Pages read to find the files partialContent names (GitHub lists at most 3,000 files).
PARTIAL_CONTENT_FILE_PAGES = 60

#: Characters of an answer besides its pull requests (totalCount, pagination, the tokens
#: block with its paginationHint), and of one content handle with its field name.
_ANSWER_FRAME_CHARS = 400
_HANDLE_CHARS = 48

COMMENTS, COMMITS, FILES = "comments", "commits", "changed files"
#: The field of a pull request each part fills.
_FIELD = {COMMENTS: "comments", COMMITS: "commits", FILES: "files"}


@dataclass
class PatchBudget:
    """Characters of diff one answer may still carry, shared by all its pull requests."""

    chars: int
    #: "#N path" of every file whose diff did not fit.
    left_out: list[str] = field(default_factory=list)
    #: "#N path" of every file whose diff was cut at MAX_PATCH_CHARS.
    cut: list[str] = field(default_factory=list)
    #: The whole diff of every file cut or left out, by (pull number, file name).
    whole: dict[tuple[int, str], str] = field(default_factory=dict)

    def shape(
        self, files: list[PullRequestFile], number: int, wanted: set[str] | None = None
    ) -> list[PullRequestFile]:
        """Per-file diffs until the budget runs out, each capped at MAX_PATCH_CHARS; with
        ``wanted`` (paths) only those files, each up to the whole budget."""
        partial = wanted is not None
        files = _chosen(files, wanted)
        shaped = []
        for f in files:
            patch = f.patch
            if patch is None:
                shaped.append(f)
                continue
            if self.chars < _SHORTEST_DIFF:
                self.left_out.append(f"#{number} {f.filename}")
                self.whole[number, f.filename] = patch
                shaped.append(f.model_copy(update={"patch": None, "patchTruncated": True}))
                continue
            whole = patch
            limit = self.chars if partial else min(MAX_PATCH_CHARS, self.chars)
            cut = len(patch) > limit
            if cut:
                self.whole[number, f.filename] = patch
            if cut and limit == MAX_PATCH_CHARS:
                self.cut.append(f"#{number} {f.filename}")
            patch = patch[:limit]
            # The answer carries it as JSON: its escapes (a "\n" is two characters) count.
            while (size := _escaped(patch)) > self.chars:
                patch, cut = patch[: max(0, len(patch) - (size - self.chars))], True
                self.whole.setdefault((number, f.filename), whole)
            if cut:
                learn(whole)  # a piece of a secret the cut leaves at the end is hidden too
            self.chars -= _escaped(patch)
            shaped.append(
                f.model_copy(update={"patch": patch, "patchTruncated": True if cut else None})
            )
        return shaped


@dataclass
class DetailedPullRequests:
    """Pull requests with the parts a query asked for."""

    pulls: list[PullRequest]
    #: True when every part came from the cache.
    cached: bool
    budget: PatchBudget
    #: "#N: more than 30 comments", one per part the host had more of than was read.
    unread: list[str]
    #: "#N comments: NOT_FOUND (why)", one per part that could not be read.
    failed: list[str]


def _parts(query: SearchPullRequestsQuery) -> list[str]:
    asked = ((COMMENTS, query.withComments), (COMMITS, query.withCommits))
    parts = [part for part, wanted in asked if wanted]
    return [*parts, FILES] if query.type != "metadata" else parts


async def detail_pull_requests(
    ctx: QueryContext, host: CodeHost, page: PullRequestPage, query: SearchPullRequestsQuery
) -> DetailedPullRequests:
    """Add comments, commits and per-file diffs as ``query`` asks, all pull requests at once.

    The diffs share one budget, the token budget of the answer, spent in the order of the
    pull requests; a diff cut or left out carries a content handle to all of it.
    """
    config = ctx.config
    file_pages = (
        PARTIAL_CONTENT_FILE_PAGES if query.type == "partialContent" else FULL_CONTENT_FILE_PAGES
    )
    jobs = [(index, part) for index in range(len(page.pulls)) for part in _parts(query)]

    async def read(job: tuple[int, str]) -> Fetched[Listing[Any]]:
        index, part = job
        project, number = page.projects[index], page.pulls[index].number
        if part == COMMENTS:
            return await host.comments(project, number)
        if part == COMMITS:
            return await host.commits(project, number)
        return await host.files(project, number, file_pages)

    outcomes = await map_settled(read, jobs)
    updates: list[dict[str, Any]] = [{} for _ in page.pulls]
    changed: dict[int, list[PullRequestFile]] = {}
    unread: list[str] = []
    failed: list[str] = []
    cached = True
    for (index, part), outcome in zip(jobs, outcomes, strict=True):
        number = page.pulls[index].number
        if outcome.error is not None:
            failed.append(f"#{number} {part}: {outcome.error.code} ({outcome.error.message})")
            cached = False
            continue
        assert outcome.value is not None
        listing = outcome.value.value
        cached = cached and outcome.value.cached
        items = listing.items
        if part == FILES:
            changed[index] = _chosen(items, _wanted(query))
        else:
            updates[index][_FIELD[part]] = items
        if listing.next is not None:
            unread.append(f"#{number}: more than {len(items)} {part}")
    budget = PatchBudget(_room_for_diffs(config, page.pulls, updates, changed))
    for index, files in changed.items():
        updates[index]["files"] = budget.shape(files, page.pulls[index].number, _wanted(query))
    for update, pull in zip(updates, page.pulls, strict=True):
        if FILES in _parts(query) and "files" in update:
            update["files"] = [
                await with_handle(ctx, query, budget, pull.number, f) for f in update["files"]
            ]
    pulls = [
        pull.model_copy(update=update) for pull, update in zip(page.pulls, updates, strict=True)
    ]
    return DetailedPullRequests(pulls, cached, budget, unread, failed)


def _room_for_diffs(
    config: Config,
    pulls: list[PullRequest],
    updates: list[dict[str, Any]],
    changed: dict[int, list[PullRequestFile]],
) -> int:
    """Characters the diffs may take: the token budget less the rest of the answer (the
    pull requests without diffs, a handle for each diff that may be cut, the answer's frame)."""
    without = [
        pull.model_copy(
            update={**update, "files": [f.model_copy(update={"patch": None}) for f in files]}
            if (files := changed.get(index)) is not None
            else update
        )
        for index, (pull, update) in enumerate(zip(pulls, updates, strict=True))
    ]
    rest = json_chars([p.model_dump(mode="json", exclude_none=True) for p in without])
    handles = _HANDLE_CHARS * sum(1 for files in changed.values() for f in files if f.patch)
    budget = config.max_tokens * config.chars_per_token
    return max(0, budget - rest - handles - _ANSWER_FRAME_CHARS)


def _chosen(files: list[PullRequestFile], wanted: set[str] | None) -> list[PullRequestFile]:
    if wanted is None:
        return files
    return [f for f in files if f.filename in wanted or f.previous_filename in wanted]


def _wanted(query: SearchPullRequestsQuery) -> set[str] | None:
    """The files partialContent names; None when every file is wanted."""
    if query.type != "partialContent":
        return None
    return {p.file.strip("/") for p in query.partialContentMetadata or []}


def _escaped(text: str) -> int:
    """Characters of ``text`` inside its JSON string's quotes."""
    return json_chars(text) - 2


def json_chars(value: Any) -> int:
    """Characters of ``value`` in the compact JSON an answer is sent as."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


async def with_handle(
    ctx: QueryContext, query: ToolQuery, budget: PatchBudget, number: int, changed: PullRequestFile
) -> PullRequestFile:
    """``changed`` with a content handle to its whole diff when the budget cut or left it."""
    whole = budget.whole.get((number, changed.filename))
    if whole is None:
        return changed
    handle = await ctx.mint_handle(whole, query, local=False)
    return changed.model_copy(update={"contentHandle": handle})
