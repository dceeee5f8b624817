"""What the hosts' history calls answer, the same for every host: pages of issues and of
commits, and a commit or a comparison with its changed files.

GitHub and GitLab each turn their answers into these; the tool modules shape results
from these alone. Pydantic models, so the cache (and a team's shared cache) may hold them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from octo.codehosts.models.code import PullRequestFile
from octo.codehosts.models.history import CommitFacts
from octo.codehosts.models.history import CommitStats
from octo.codehosts.models.history import CommitSummary
from octo.codehosts.models.history import Issue
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.shapes.code import ThreadKeys
from octo.codehosts.shapes.code import thread_fields

#: Characters of an issue's body in a search answer; one issue read alone carries all of it
#: that fits the token budget (the rest behind a content handle).
SEARCH_BODY_CHARS = 500


class IssuePage(BaseModel):
    """Issues found (or the one asked for), bodies whole: the tool cuts them."""

    issues: list[Issue]
    total: int
    has_more: bool
    #: The host answered a pull request (merge request) where an issue was asked for.
    pull_request: bool = False


class CommitPage(BaseModel):
    """One page of commits: a message search or a repository's history."""

    commits: list[CommitSummary]
    #: None when the host does not count (history listings).
    total: int | None
    has_more: bool


class CommitDetail(CommitFacts):
    """One commit, or the comparison of two refs, with the files it changed (patches whole)."""

    files: list[PullRequestFile]
    #: The host listed only part of the files (GitHub: 300 per commit, comparisons too).
    files_truncated: bool = False


def issue_of(item: Mapping[str, Any], keys: ThreadKeys, repository: str) -> Issue:
    """An issue of ``repository`` as either host sends it, its body whole."""
    return Issue(
        **thread_fields(item, keys),
        repository=repository,
        closed_at=item.get("closed_at"),
        assignees=[user.get(keys.login, "") for user in item.get("assignees") or []],
        commentCount=int(item.get(keys.comment_count) or 0),
        body=item.get(keys.body),
    )


def stats_of(raw: Mapping[str, Any] | None) -> CommitStats | None:
    """A commit's stats as GitHub and GitLab both send them (``additions``, ``deletions``,
    ``total``), None when the answer has none."""
    if not raw:
        return None
    return CommitStats(**{k: int(raw.get(k) or 0) for k in ("additions", "deletions", "total")})


def summed(files: list[PullRequestFile]) -> CommitStats:
    """The stats of a comparison: its files' additions and deletions added up."""
    additions = sum(f.additions for f in files)
    deletions = sum(f.deletions for f in files)
    return CommitStats(additions=additions, deletions=deletions, total=additions + deletions)


def given(**params: str | None) -> dict[str, str]:
    """The ``params`` that are set: a query's optional filters as request parameters."""
    return {name: value for name, value in params.items() if value}


def history_params(query: SearchCommitsQuery, ref_param: str) -> dict[str, Any]:
    """Parameters of a repository's commit listing; ``ref_param`` is the host's name for the
    branch, tag or commit the listing starts from."""
    return {
        "per_page": query.limit,
        "page": query.page,
        **given(
            path=query.path,
            author=query.author,
            since=query.since,
            until=query.until,
            **{ref_param: query.ref},
        ),
    }
