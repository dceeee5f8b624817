"""What the hosts' history calls answer, the same for every host: pages of pull requests, of
issues and of commits, a commit or a comparison with its changed files; and how either
host's JSON of an issue or pull request is read (:class:`ThreadKeys`).

GitHub and GitLab each turn their answers into these; the tool modules shape results
from these alone. Pydantic models, so the cache (and a team's shared cache) may hold them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from octo.codehosts.models.history import CommitFacts
from octo.codehosts.models.history import CommitStats
from octo.codehosts.models.history import CommitSummary
from octo.codehosts.models.history import Issue
from octo.codehosts.models.history import PullRequest
from octo.codehosts.models.history import PullRequestFile
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.models.history import SearchPullRequestsQuery
from octo.codehosts.shapes.code import short_body

#: Characters of an issue's body in a search answer; one issue read alone carries all of it
#: that fits the token budget (the rest behind a content handle).
SEARCH_BODY_CHARS = 500


#: Characters of a pull request's description in an answer read in full.
FULL_BODY_CHARS = 4000


def body_limit(query: SearchPullRequestsQuery) -> int:
    """Characters of each pull request's description the answer to ``query`` carries."""
    return 600 if query.type == "metadata" else FULL_BODY_CHARS


class PullRequestPage(BaseModel):
    """Pull requests (merge requests) found, with where the host keeps each one's parts."""

    pulls: list[PullRequest]
    total: int
    has_more: bool
    #: Per pull request, the project its parts are read from (GitHub: owner/repo; GitLab:
    #: the project's numeric id).
    projects: list[str]

    @classmethod
    def one(cls, pull: PullRequest, project: str) -> PullRequestPage:
        """The page of the one pull request a number names, its parts read from ``project``."""
        return cls(pulls=[pull], total=1, has_more=False, projects=[project])


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


@dataclass(frozen=True)
class ThreadKeys:
    """Where a host's JSON of an issue or pull request keeps, in the order of the fields
    (each host's keys are one row): its number, its author (the object and its login, a
    user's login also in assignees), its web page, its description and an issue's comment
    count."""

    number: str
    user: str
    login: str
    url: str
    body: str
    comment_count: str


def thread_fields(item: Mapping[str, Any], keys: ThreadKeys) -> dict[str, Any]:
    """The :class:`~octo.codehosts.models.history.Thread` fields of an issue or pull request as both
    hosts send it, ``repository`` aside: open unless closed, labels by name (GitLab may send
    bare names)."""
    return {
        "number": int(item[keys.number]),
        "title": item.get("title", ""),
        "state": "closed" if item.get("state") == "closed" else "open",
        "author": (item.get(keys.user) or {}).get(keys.login, ""),
        "created_at": item.get("created_at", ""),
        "updated_at": item.get("updated_at", ""),
        "html_url": item.get(keys.url, ""),
        "labels": [
            label if isinstance(label, str) else str(label.get("name", ""))
            for label in item.get("labels") or []
        ],
    }


def pull_of(
    item: Mapping[str, Any], keys: ThreadKeys, body_limit: int, **fields: Any
) -> PullRequest:
    """A pull request as either host sends it, its description cut to ``body_limit``;
    ``fields``: what each host says its own way (merged, branches, its repository)."""
    thread = thread_fields(item, keys)
    body = short_body(item.get(keys.body), body_limit)
    return PullRequest(**{**thread, "body": body, **fields})


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
