"""CI runs and jobs in host-neutral shapes: GitHub's workflow runs and GitLab's pipelines
alike (parsed by :mod:`~octo.codehosts.hosts.github.ci_parse` and
:mod:`~octo.codehosts.hosts.gitlab.ci_parse`)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from octo.codehosts.models.ci import WorkflowRun


class RunPage(BaseModel):
    runs: list[WorkflowRun]
    total: int | None = None
    has_more: bool


class CiStep(BaseModel):
    number: int
    name: str
    conclusion: str | None = None


class CiJob(BaseModel):
    """One job of a run, with its steps where the host lists them."""

    id: int
    name: str
    conclusion: str | None = None
    run_id: int | None = None
    steps: list[CiStep] = []

    @property
    def failed(self) -> bool:
        return self.conclusion in ("failure", "timed_out")


def seconds_between(start: str | None, end: str | None) -> int | None:
    """Whole seconds from ISO time ``start`` to ``end``; None when either is missing."""
    if not start or not end:
        return None
    try:
        begun = datetime.fromisoformat(start.replace("Z", "+00:00"))
        ended = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0, int((ended - begun).total_seconds()))
