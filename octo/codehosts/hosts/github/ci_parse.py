"""GitHub Actions' answers (workflow runs, jobs, workflows) in host-neutral shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from octo.codehosts.models.ci import WorkflowRun
from octo.codehosts.shapes.ci import CiJob
from octo.codehosts.shapes.ci import CiStep
from octo.codehosts.shapes.ci import RunPage
from octo.codehosts.shapes.ci import seconds_between


def _run(item: Mapping[str, Any]) -> WorkflowRun:
    completed = item.get("status") == "completed"
    return WorkflowRun(
        id=item["id"],
        workflow=str(item.get("name") or item.get("path") or "?"),
        status=str(item.get("status") or "?"),
        conclusion=item.get("conclusion"),
        event=item.get("event"),
        branch=item.get("head_branch"),
        headSha=str(item.get("head_sha") or ""),
        createdAt=item.get("created_at"),
        durationSeconds=seconds_between(
            item.get("run_started_at") or item.get("created_at"), item.get("updated_at")
        )
        if completed
        else None,
        url=item.get("html_url"),
        pullRequests=[int(p["number"]) for p in item.get("pull_requests") or []] or None,
    )


def parse_runs(response: httpx.Response, page: int, per_page: int) -> RunPage:
    """A page of ``/actions/runs``."""
    body = response.json()
    total = int(body.get("total_count") or 0)
    runs = [_run(item) for item in body["workflow_runs"]]
    return RunPage(runs=runs, total=total, has_more=page * per_page < total)


def parse_workflows(response: httpx.Response) -> dict[str, int]:
    """A repository's workflows (``/actions/workflows``): their ids by name and by file
    name, case folded."""
    ids: dict[str, int] = {}
    for item in response.json()["workflows"]:
        file = str(item.get("path", "")).rsplit("/", 1)[-1]
        ids.setdefault(str(item.get("name", "")).casefold(), int(item["id"]))
        ids.setdefault(file.casefold(), int(item["id"]))
    return ids


def _job(item: Mapping[str, Any]) -> CiJob:
    return CiJob(
        id=item["id"],
        name=str(item.get("name") or item["id"]),
        conclusion=item.get("conclusion"),
        run_id=item.get("run_id"),
        steps=[
            CiStep(
                number=int(s.get("number", 0)),
                name=str(s.get("name", "")),
                conclusion=s.get("conclusion"),
            )
            for s in item.get("steps") or []
        ],
    )


def parse_jobs(response: httpx.Response) -> list[CiJob]:
    """A run's jobs (``/actions/runs/{id}/jobs``)."""
    return [_job(item) for item in response.json()["jobs"]]


def parse_job(response: httpx.Response) -> CiJob:
    """One job (``/actions/jobs/{id}``)."""
    return _job(response.json())


def parse_head_sha(response: httpx.Response) -> str:
    """The head commit of a pull request (``/pulls/{n}``)."""
    return str(response.json()["head"]["sha"])
