"""GitHub's answers about history (pull requests and their parts, issues, commits,
comparisons) in host-neutral shapes."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any
from typing import TypeVar
from urllib.parse import urlparse

import httpx

from octo.codehosts.hosts.github.parse import has_more
from octo.codehosts.models.history import CommitSummary
from octo.codehosts.models.history import Issue
from octo.codehosts.models.history import PullRequest
from octo.codehosts.models.history import PullRequestComment
from octo.codehosts.models.history import PullRequestCommit
from octo.codehosts.models.history import PullRequestFile
from octo.codehosts.shapes.code import Listing
from octo.codehosts.shapes.code import comment
from octo.codehosts.shapes.history import CommitDetail
from octo.codehosts.shapes.history import CommitPage
from octo.codehosts.shapes.history import IssuePage
from octo.codehosts.shapes.history import PullRequestPage
from octo.codehosts.shapes.history import ThreadKeys
from octo.codehosts.shapes.history import issue_of
from octo.codehosts.shapes.history import pull_of
from octo.codehosts.shapes.history import stats_of
from octo.codehosts.shapes.history import summed
from octo.core.errors import InvalidResponseError

ItemT = TypeVar("ItemT")

#: Files GitHub lists for one commit or comparison (the rest needs paging it rarely offers).
MAX_COMMIT_FILES = 300


def repository_of(url: str) -> str:
    # ".../repos/OWNER/REPO" (search items) or ".../repos/OWNER/REPO/pulls/N".
    parts = urlparse(url).path.split("/")
    at = parts.index("repos") if "repos" in parts else len(parts) - 3
    return "/".join(parts[at + 1 : at + 3])


#: Where GitHub keeps an issue's or pull request's number, author, web page, description and
#: comment count.
THREAD_KEYS = ThreadKeys("number", "user", "login", "html_url", "body", "comments")


def _pull(item: Mapping[str, Any], body_limit: int, **fields: Any) -> PullRequest:
    """A pull request from the fields an issue and a pull request share, plus ``fields``."""
    return pull_of(item, THREAD_KEYS, body_limit, draft=item.get("draft"), **fields)


def parse_pull_search(
    response: httpx.Response, page: int, per_page: int, body_limit: int
) -> PullRequestPage:
    """Pull requests from an issue search (``is:pr``)."""
    body = response.json()
    pulls = []
    for item in body.get("items") or []:
        merged_at = (item.get("pull_request") or {}).get("merged_at")
        pulls.append(
            _pull(
                item,
                body_limit,
                merged=bool(merged_at),
                merged_at=merged_at,
                repository=repository_of(item.get("repository_url") or item.get("url", "")),
            )
        )
    total = int(body.get("total_count") or 0)
    return PullRequestPage(
        pulls=pulls,
        total=total,
        has_more=has_more(total, page, per_page),
        projects=[pull.repository for pull in pulls],
    )


def parse_pull(response: httpx.Response, body_limit: int) -> PullRequestPage:
    """One pull request from the pulls API, which knows its branches."""
    item = response.json()
    pull = _pull(
        item,
        body_limit,
        merged=bool(item.get("merged") or item.get("merged_at")),
        merged_at=item.get("merged_at"),
        repository=(item.get("base") or {}).get("repo", {}).get("full_name")
        or repository_of(item.get("url", "")),
        head=(item.get("head") or {}).get("ref"),
        base=(item.get("base") or {}).get("ref"),
    )
    return PullRequestPage.one(pull, pull.repository)


def listing(response: httpx.Response, make: Callable[[Mapping[str, Any]], ItemT]) -> Listing[ItemT]:
    """A page of a pull request's part, one item ``make``s each; ``next``: the link URL."""
    return Listing(
        items=[make(item) for item in response.json()],
        next=response.links.get("next", {}).get("url"),
    )


def parse_comments(response: httpx.Response) -> Listing[PullRequestComment]:
    return listing(
        response,
        lambda c: comment(
            (c.get("user") or {}).get("login", ""), c.get("body"), c.get("created_at", "")
        ),
    )


def commit_item(c: Mapping[str, Any]) -> PullRequestCommit:
    details = c.get("commit") or {}
    return PullRequestCommit(
        sha=c["sha"],
        message=details.get("message", ""),
        author=(c.get("author") or {}).get("login")
        or (details.get("author") or {}).get("name", ""),
    )


def parse_commits(response: httpx.Response) -> Listing[PullRequestCommit]:
    return listing(response, commit_item)


def file_item(f: Mapping[str, Any]) -> PullRequestFile:
    return PullRequestFile(
        filename=f["filename"],
        status=f.get("status", "modified"),
        additions=int(f.get("additions") or 0),
        deletions=int(f.get("deletions") or 0),
        previous_filename=f.get("previous_filename"),
        patch=f.get("patch"),
    )


def parse_files(response: httpx.Response) -> Listing[PullRequestFile]:
    return listing(response, file_item)


def _issue(item: Mapping[str, Any]) -> Issue:
    return issue_of(
        item, THREAD_KEYS, repository_of(item.get("repository_url") or item.get("url", ""))
    )


def parse_issue_search(response: httpx.Response, page: int, per_page: int) -> IssuePage:
    """A page of ``/search/issues`` (the query holds ``is:issue``: no pull requests)."""
    body = response.json()
    total = int(body.get("total_count") or 0)
    return IssuePage(
        issues=[_issue(item) for item in body.get("items") or []],
        total=total,
        has_more=has_more(total, page, per_page),
    )


def parse_issue(response: httpx.Response) -> IssuePage:
    """One issue; GitHub answers pull requests here too, which the page marks."""
    item = response.json()
    return IssuePage(
        issues=[_issue(item)], total=1, has_more=False, pull_request="pull_request" in item
    )


def _summary(item: Mapping[str, Any], repository: str | None) -> CommitSummary:
    details = item.get("commit") or {}
    author = details.get("author") or {}
    return CommitSummary(
        sha=item["sha"],
        message=(details.get("message") or "").split("\n", 1)[0],
        author=(item.get("author") or {}).get("login") or author.get("name", ""),
        date=author.get("date", ""),
        repository=repository or (item.get("repository") or {}).get("full_name", ""),
        html_url=item.get("html_url", ""),
    )


def parse_commit_search(response: httpx.Response, page: int, per_page: int) -> CommitPage:
    """A page of ``/search/commits``."""
    body = response.json()
    total = int(body.get("total_count") or 0)
    return CommitPage(
        commits=[_summary(item, None) for item in body.get("items") or []],
        total=total,
        has_more=has_more(total, page, per_page),
    )


def parse_history(
    response: httpx.Response, _page: int, _per_page: int, repository: str
) -> CommitPage:
    """A page of ``/repos/{o}/{r}/commits``; more when the ``link`` header says so (the page
    asked is not needed: GitHub counts no total)."""
    return CommitPage(
        commits=[_summary(item, repository) for item in response.json()],
        total=None,
        has_more="next" in response.links,
    )


def parse_commit(response: httpx.Response) -> CommitDetail:
    """``/repos/{o}/{r}/commits/{sha}``: the commit, its stats and files."""
    item = response.json()
    summary = _summary(item, "")
    files = [file_item(f) for f in item.get("files") or []]
    return CommitDetail(
        sha=summary.sha,
        message=(item.get("commit") or {}).get("message", ""),
        author=summary.author,
        date=summary.date,
        html_url=summary.html_url,
        stats=stats_of(item.get("stats")),
        files=files,
        files_truncated=len(files) >= MAX_COMMIT_FILES,
    )


def parse_compare(response: httpx.Response) -> CommitDetail:
    """``/repos/{o}/{r}/compare/{base}...{head}``: status, commits and files."""
    body = response.json()
    files = [file_item(f) for f in body.get("files") or []]
    return CommitDetail(
        html_url=body.get("html_url"),
        status=body.get("status"),
        aheadBy=body.get("ahead_by"),
        behindBy=body.get("behind_by"),
        commits=[commit_item(c) for c in body.get("commits") or []],
        stats=summed(files),
        files=files,
        files_truncated=len(files) >= MAX_COMMIT_FILES,
    )


def parse_sha(response: httpx.Response) -> str:
    """The sha a ref points at (``Accept: application/vnd.github.sha`` answers it as text)."""
    sha = response.text.strip()
    if len(sha) != 40 or any(c not in "0123456789abcdef" for c in sha):
        raise InvalidResponseError("GitHub answered no commit sha for the ref")
    return sha
