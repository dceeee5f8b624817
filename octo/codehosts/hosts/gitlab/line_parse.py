"""GitLab's answers about a line's history in host-neutral shapes: a file's blame, a
commit's merge requests and the issues a merge request closes."""

from __future__ import annotations

from typing import Any

import httpx

from octo.codehosts.models.lines import BlameRange
from octo.codehosts.models.lines import IssueRef
from octo.codehosts.models.lines import PullRef


def _project_of(item: dict[str, Any], mark: str) -> str:
    """``group/project`` of an item's full reference (``group/project!7``, ``...#3``)."""
    full = str((item.get("references") or {}).get("full") or "")
    return full.rpartition(mark)[0]


def parse_blame(response: httpx.Response) -> list[BlameRange]:
    """``/repository/files/:path/blame``: groups of lines of one commit, in file order."""
    ranges: list[BlameRange] = []
    line = 1
    for group in response.json():
        commit = group.get("commit") or {}
        count = len(group.get("lines") or [])
        if not count:
            continue
        ranges.append(
            BlameRange(
                startLine=line,
                endLine=line + count - 1,
                sha=commit.get("id") or "",
                author=commit.get("author_name") or "",
                date=commit.get("authored_date") or "",
                summary=(commit.get("message") or "").split("\n", 1)[0],
            )
        )
        line += count
    return ranges


def parse_commit_merge_requests(response: httpx.Response) -> list[PullRef]:
    """``/repository/commits/:sha/merge_requests``."""
    return [
        PullRef(
            number=int(item["iid"]),
            title=item.get("title") or "",
            state=item.get("state") or "",
            url=item.get("web_url") or "",
            body=item.get("description") or "",
            repository=_project_of(item, "!"),
        )
        for item in response.json()
    ]


def parse_closes_issues(response: httpx.Response) -> list[IssueRef]:
    """``/merge_requests/:iid/closes_issues``."""
    return [
        IssueRef(
            repository=_project_of(item, "#"),
            number=int(item["iid"]),
            title=item.get("title"),
            state=item.get("state"),
            url=item.get("web_url"),
            body=item.get("description") or "",
            closes=True,
        )
        for item in response.json()
    ]
