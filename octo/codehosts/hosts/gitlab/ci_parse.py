"""GitLab's answers about pipelines and jobs in host-neutral shapes (GitLab's statuses
turned into GitHub's words: failed is a failure conclusion, running is in progress)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import httpx

from octo.codehosts.models.ci import WorkflowRun
from octo.codehosts.shapes.ci import CiJob
from octo.codehosts.shapes.ci import RunPage
from octo.codehosts.shapes.ci import seconds_between

#: GitLab's finished statuses as conclusions.
CONCLUSIONS = {
    "success": "success",
    "failed": "failure",
    "canceled": "cancelled",
    "skipped": "skipped",
}
#: GitHub's words for the statuses a query filters by, in GitLab's.
STATUSES = {
    "queued": "pending",
    "pending": "pending",
    "in_progress": "running",
    "waiting": "waiting_for_resource",
}
FINISHED = {value: key for key, value in CONCLUSIONS.items()}


def _status(status: str) -> tuple[str, str | None]:
    if status in CONCLUSIONS:
        return "completed", CONCLUSIONS[status]
    return {"running": "in_progress", "pending": "queued", "created": "queued"}.get(
        status, status
    ), None


#: The ref of a merge request's pipeline names the merge request.
_MERGE_REQUEST_REF = re.compile(r"^refs/merge-requests/(\d+)/(?:head|merge|train)$")


def _pipeline(item: Mapping[str, Any]) -> WorkflowRun:
    status, conclusion = _status(str(item.get("status") or "?"))
    merge_request = _MERGE_REQUEST_REF.match(str(item.get("ref") or ""))
    return WorkflowRun(
        id=item["id"],
        workflow=str(item.get("name") or item.get("source") or "pipeline"),
        status=status,
        conclusion=conclusion,
        event=item.get("source"),
        branch=item.get("ref"),
        headSha=str(item.get("sha") or ""),
        createdAt=item.get("created_at"),
        durationSeconds=seconds_between(item.get("created_at"), item.get("updated_at"))
        if conclusion
        else None,
        url=item.get("web_url"),
        pullRequests=[int(merge_request.group(1))] if merge_request else None,
    )


def parse_pipelines(response: httpx.Response, page: int, per_page: int) -> RunPage:
    """A page of a project's (or a merge request's) pipelines."""
    items = response.json()
    runs = [_pipeline(item) for item in items]
    more = bool(response.headers.get("x-next-page")) or len(items) == per_page
    return RunPage(runs=runs, has_more=more)


def _job(item: Mapping[str, Any]) -> CiJob:
    _, conclusion = _status(str(item.get("status") or "?"))
    pipeline = item.get("pipeline") or {}
    return CiJob(
        id=item["id"],
        name=str(item.get("name") or item["id"]),
        conclusion=conclusion,
        run_id=pipeline.get("id"),
    )


def parse_jobs(response: httpx.Response) -> list[CiJob]:
    """A pipeline's jobs."""
    return [_job(item) for item in response.json()]


def parse_job(response: httpx.Response) -> CiJob:
    """One job."""
    return _job(response.json())


def created_range(created: str | None) -> tuple[str | None, str | None]:
    """A query's ``created`` (">=A", "<B", "A..B", "A") as GitLab's created_after and
    created_before."""
    if not created:
        return None, None
    if ".." in created:
        start, end = created.split("..", 1)
        return start, end
    if created.startswith(">"):
        return created.lstrip(">="), None
    if created.startswith("<"):
        return None, created.lstrip("<=")
    return created, None
