"""GitLab's answers about history (merge requests and their parts, issues, commits,
comparisons) in host-neutral shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from octo.codehosts.hosts.gitlab.parse import next_page
from octo.codehosts.hosts.gitlab.parse import total_of
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


def project_path(item: Mapping[str, Any]) -> str:
    full = (item.get("references") or {}).get("full") or ""
    if "!" in full:
        return str(full.split("!", 1)[0])
    path = urlsplit(str(item.get("web_url", ""))).path
    return path.split("/-/", 1)[0].strip("/")


#: Where GitLab keeps an issue's or merge request's number, author, web page, description and
#: comment count.
THREAD_KEYS = ThreadKeys("iid", "author", "username", "web_url", "description", "user_notes_count")


def _merge_request(item: Mapping[str, Any], body_limit: int) -> PullRequest:
    state = item.get("state")
    return pull_of(
        item,
        THREAD_KEYS,
        body_limit,
        # A merge request is opened, locked (open), closed or merged.
        state="open" if state in ("opened", "locked") else "closed",
        merged=state == "merged",
        draft=item.get("draft", item.get("work_in_progress")),
        repository=project_path(item),
        merged_at=item.get("merged_at"),
        head=item.get("source_branch"),
        base=item.get("target_branch"),
    )


def parse_merge_requests(
    response: httpx.Response, page: int, per_page: int, body_limit: int
) -> PullRequestPage:
    items = response.json()
    return PullRequestPage(
        pulls=[_merge_request(i, body_limit) for i in items],
        total=total_of(response, page, per_page, len(items)),
        has_more=next_page(response) is not None,
        projects=[str(i["project_id"]) for i in items],
    )


def parse_merge_request(response: httpx.Response, body_limit: int) -> PullRequestPage:
    item = response.json()
    return PullRequestPage.one(_merge_request(item, body_limit), str(item["project_id"]))


def parse_notes(response: httpx.Response) -> Listing[PullRequestComment]:
    notes = [
        comment((n.get("author") or {}).get("username", ""), n.get("body"), n.get("created_at", ""))
        for n in response.json()
        if not n.get("system")  # "added 1 commit", "changed the description": not discussion
    ]
    return Listing(items=notes, next=next_page(response))


def commit_item(c: Mapping[str, Any]) -> PullRequestCommit:
    return PullRequestCommit(
        sha=c["id"], message=c.get("message") or c.get("title", ""), author=c.get("author_name", "")
    )


def parse_commits(response: httpx.Response) -> Listing[PullRequestCommit]:
    return Listing(items=[commit_item(c) for c in response.json()], next=next_page(response))


def diff_file(d: Mapping[str, Any]) -> PullRequestFile:
    diff = d.get("diff") or ""
    lines = diff.splitlines()
    status = (
        "added"
        if d.get("new_file")
        else "removed"
        if d.get("deleted_file")
        else "renamed"
        if d.get("renamed_file")
        else "modified"
    )
    return PullRequestFile(
        filename=d.get("new_path") or d.get("old_path", ""),
        status=status,
        additions=sum(1 for line in lines if line.startswith("+") and not line.startswith("+++")),
        deletions=sum(1 for line in lines if line.startswith("-") and not line.startswith("---")),
        previous_filename=d.get("old_path") if d.get("renamed_file") else None,
        patch=diff or None,
    )


def parse_diffs(response: httpx.Response) -> Listing[PullRequestFile]:
    body = response.json()
    # /diffs (GitLab 15.7+) is a list; the older /changes wraps it in {"changes": [...]}.
    items = body.get("changes", []) if isinstance(body, Mapping) else body
    return Listing(items=[diff_file(d) for d in items], next=next_page(response))


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
