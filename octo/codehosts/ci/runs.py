"""githubSearchWorkflowRuns: a repository's CI runs (GitLab: pipelines) filtered by branch,
pull request, commit, event, status and workflow; each failed run with its failed jobs."""

from __future__ import annotations

from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import more_hint
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.hosts.routing import web_name
from octo.codehosts.models.ci import SearchWorkflowRunsQuery
from octo.codehosts.models.ci import SearchWorkflowRunsResult
from octo.codehosts.models.ci import WorkflowRun
from octo.codehosts.models.code import SearchPagination
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.concurrency import map_settled

#: Failed jobs named per failed run.
MAX_FAILED_JOBS = 10


async def search_workflow_runs(
    ctx: QueryContext, query: SearchWorkflowRunsQuery
) -> Answer[SearchWorkflowRunsResult]:
    """One page of runs, the failed ones with their failed jobs' names."""
    host = choose_host(ctx, query)
    with not_found_hints(*host.not_found_hints("owner and repo (and the workflow)")):
        reply = await host.workflow_runs(query)
    page = reply.value
    failed = [run for run in page.runs if run.conclusion == "failure"]

    async def failed_jobs(run: WorkflowRun) -> list[str]:
        jobs = await host.run_jobs(query.owner, query.repo, run.id)
        return [job.name for job in jobs.value if job.failed][:MAX_FAILED_JOBS]

    settled = await map_settled(failed_jobs, failed)
    names = {run.id: outcome.value for run, outcome in zip(failed, settled, strict=True)}
    runs = [run.model_copy(update={"failedJobs": names.get(run.id) or None}) for run in page.runs]
    result = SearchWorkflowRunsResult(
        owner=query.owner,
        repo=query.repo,
        host=web_name(host),
        runs=runs,
        totalCount=page.total,
        pagination=SearchPagination(currentPage=query.page, hasMore=page.has_more),
    )
    answer = Answer(result, cached=reply.cached, partial=any(s.error for s in settled))
    answer.hint(*reply.notes)
    if any(s.error for s in settled):
        answer.hint(
            "Some runs' failed jobs could not be listed; githubGetJobLog with runId reads them."
        )
    answer.hint(*_next_calls(host, query, runs))
    if page.has_more:
        answer.hint(more_hint(query.page, "runs"))
    answer.hint(*follow_up_hints(host))
    return answer


def _next_calls(
    host: CodeHost, query: SearchWorkflowRunsQuery, runs: list[WorkflowRun]
) -> list[str]:
    """Why the first failed run failed, its pull request, its commit."""
    failed = next((run for run in runs if run.conclusion == "failure"), None)
    if failed is None:
        return []
    where = {"owner": query.owner, "repo": query.repo}
    hints = [
        f"Why run {failed.id} failed: {call(host, 'githubGetJobLog', **where, runId=failed.id)}."
    ]
    if failed.pullRequests:
        pull = call(host, "githubSearchPullRequests", **where, prNumber=failed.pullRequests[0])
        hints.append(f"Its pull request: {pull}.")
    if failed.headSha:
        commit = call(host, "githubGetCommit", **where, sha=failed.headSha)
        hints.append(f"The failing commit: {commit}.")
    return hints
