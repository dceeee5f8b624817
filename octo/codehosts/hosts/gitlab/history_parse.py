"""GitLab's answers about history (issues, commits, comparisons) in host-neutral shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from octo.codehosts.hosts.gitlab.parse import THREAD_KEYS
from octo.codehosts.hosts.gitlab.parse import commit_item
from octo.codehosts.hosts.gitlab.parse import diff_file
from octo.codehosts.hosts.gitlab.parse import next_page
from octo.codehosts.hosts.gitlab.parse import total_of
from octo.codehosts.models.history import CommitSummary
from octo.codehosts.models.history import Issue
from octo.codehosts.shapes.history import CommitDetail
from octo.codehosts.shapes.history import CommitPage
from octo.codehosts.shapes.history import IssuePage
from octo.codehosts.shapes.history import issue_of
from octo.codehosts.shapes.history import stats_of
from octo.codehosts.shapes.history import summed
from octo.core.errors import InvalidResponseError


def _project_of(web_url: str) -> str:
    """``group/sub/project`` of an item's web page (``.../group/sub/project/-/issues/3``)."""
    return urlsplit(web_url).path.split("/-/", 1)[0].strip("/")


def _issue(item: Mapping[str, Any]) -> Issue:
    return issue_of(item, THREAD_KEYS, _project_of(item.get("web_url", "")))


def parse_issues(response: httpx.Response, page: int, per_page: int) -> IssuePage:
    """A page of a project's, group's or the instance's issues."""
    items = response.json()
    return IssuePage(
        issues=[_issue(item) for item in items],
        total=total_of(response, page, per_page, len(items)),
        has_more=next_page(response) is not None,
    )


def parse_issue(response: httpx.Response) -> IssuePage:
    return IssuePage(issues=[_issue(response.json())], total=1, has_more=False)


def _summary(item: Mapping[str, Any], repository: str) -> CommitSummary:
    return CommitSummary(
        sha=item["id"],
        message=(item.get("title") or item.get("message") or "").split("\n", 1)[0],
        author=item.get("author_name", ""),
        date=item.get("authored_date") or item.get("created_at", ""),
        repository=repository or _project_of(item.get("web_url", "")),
        html_url=item.get("web_url", ""),
    )


def parse_commit_page(
    response: httpx.Response, page: int, per_page: int, repository: str, *, counted: bool
) -> CommitPage:
    """A page of commits: a repository's history, or a commit search (``counted``)."""
    items = response.json()
    return CommitPage(
        commits=[_summary(item, repository) for item in items],
        total=total_of(response, page, per_page, len(items)) if counted else None,
        has_more=next_page(response) is not None,
    )


def parse_history(
    response: httpx.Response, page: int, per_page: int, repository: str
) -> CommitPage:
    """A page of ``/repository/commits``: GitLab counts no total of a history."""
    return parse_commit_page(response, page, per_page, repository, counted=False)


def parse_commit(response: httpx.Response, repository: str) -> CommitDetail:
    """``/repository/commits/:sha``: the commit and its stats; files come from ``/diff``."""
    item = response.json()
    summary = _summary(item, repository)
    return CommitDetail(
        sha=summary.sha,
        message=item.get("message") or item.get("title", ""),
        author=summary.author,
        date=summary.date,
        html_url=summary.html_url,
        stats=stats_of(item.get("stats")),
        files=[],
    )


def parse_compare(response: httpx.Response) -> CommitDetail:
    """``/repository/compare?from=&to=``: commits and diffs (GitLab gives no ahead/behind)."""
    body = response.json()
    files = [diff_file(d) for d in body.get("diffs") or []]
    commits = body.get("commits") or []
    return CommitDetail(
        html_url=body.get("web_url"),
        commits=[commit_item(c) for c in commits],
        aheadBy=len(commits),
        stats=summed(files),
        files=files,
        files_truncated=bool(body.get("compare_timeout")),
    )


def parse_sha(response: httpx.Response) -> str:
    """The full sha of ``/repository/commits/:ref``."""
    sha = str(response.json().get("id") or "")
    if len(sha) != 40:
        raise InvalidResponseError("GitLab answered no commit sha for the ref")
    return sha
