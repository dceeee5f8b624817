"""Query and result models of the CI tools: githubSearchWorkflowRuns and githubGetJobLog
(GitHub Actions; GitLab pipelines with provider "gitlab")."""

from __future__ import annotations

from typing import ClassVar
from typing import Literal

from pydantic import BaseModel
from pydantic import Field
from pydantic import model_validator

from octo.codehosts.models.code import RemoteQuery
from octo.codehosts.models.code import SearchPagination
from octo.codehosts.models.patterns import CommitSha
from octo.codehosts.models.patterns import DateRange
from octo.core.budget import TokenInfo
from octo.core.queries import ToolResult
from octo.core.queries import optional

_OWNER = Field(min_length=1, max_length=200)
_REPO = Field(min_length=1, max_length=150)

RunStatus = Literal["queued", "in_progress", "completed", "waiting", "pending"]
RunConclusion = Literal["success", "failure", "cancelled", "skipped", "timed_out"]


class CiQuery(RemoteQuery):
    """Fields both CI tools share: the repository."""

    owner: str = _OWNER
    repo: str = _REPO


class SearchWorkflowRunsQuery(CiQuery):
    """One githubSearchWorkflowRuns query."""

    described_here = frozenset({"workflow", "created"})

    branch: str | None = Field(default=None, min_length=1, max_length=255)
    prNumber: int | None = Field(default=None, ge=1)
    headSha: CommitSha | None = None
    event: str | None = optional("e.g. push, pull_request.", min_length=1, max_length=50)
    status: RunStatus | None = None
    conclusion: RunConclusion | None = None
    workflow: str | None = optional("Name or file (ci.yml).", min_length=1, max_length=200)
    created: DateRange | None = optional('e.g. ">=2024-06-01" or "A..B".')
    page: int = Field(default=1, ge=1, le=10)

    @model_validator(mode="after")
    def _check(self) -> SearchWorkflowRunsQuery:
        if self.status and self.conclusion and self.status != "completed":
            raise ValueError("conclusion implies status completed")
        return self


class WorkflowRun(BaseModel):
    """One workflow run (GitLab: pipeline), as both hosts' parsers read it."""

    id: int
    workflow: str
    #: queued, in_progress, completed (GitLab's own word while a pipeline is not finished).
    status: str
    conclusion: str | None = None
    event: str | None = None
    branch: str | None = None
    headSha: str
    createdAt: str | None = None
    durationSeconds: int | None = None
    url: str | None = None
    pullRequests: list[int] | None = None
    failedJobs: list[str] | None = None


class CiResult(ToolResult):
    """What both CI tools answer first: the repository, and the host that answered."""

    owner: str
    repo: str
    host: str


class SearchWorkflowRunsResult(CiResult):
    items_field: ClassVar[str] = "runs"

    runs: list[WorkflowRun]
    totalCount: int | None = None
    pagination: SearchPagination


class GetJobLogQuery(CiQuery):
    """One githubGetJobLog query."""

    described_here = frozenset({"runId", "fullLog"})

    jobId: int | None = Field(default=None, ge=1)
    runId: int | None = optional("Every failed job of the run.", ge=1)
    fullLog: bool = Field(default=False, description="The whole log, paged by lines.")
    contextLines: int = Field(default=3, ge=0, le=20)
    page: int = Field(default=1, ge=1, le=10_000)

    @model_validator(mode="after")
    def _check(self) -> GetJobLogQuery:
        if (self.jobId is None) == (self.runId is None):
            raise ValueError("give jobId or runId (one of them)")
        if self.fullLog and self.runId is not None:
            raise ValueError("fullLog reads one job: give jobId")
        return self


class StepLog(BaseModel):
    """A step of a job, reduced to what explains its failure (or a page of the whole log)."""

    name: str
    lines: int = Field(description="Lines the step logged.")
    text: str = Field(description='Kept lines as "N: line"; "…" marks lines left out.')
    failedTests: list[str] | None = None


class JobLog(BaseModel):
    id: int
    name: str | None = None
    conclusion: str | None = None
    steps: list[StepLog]
    contentHandle: str | None = None


class GetJobLogResult(CiResult):
    items_field: ClassVar[str] = "jobs"

    jobs: list[JobLog]
    fullLogPage: int | None = None
    totalLines: int | None = None
    hasMore: bool | None = None
    tokens: TokenInfo | None = None
