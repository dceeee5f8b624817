"""githubGetJobLog: why a job failed, from its log (GitHub Actions; GitLab's job trace).

By default each failed job's failed steps, reduced to the lines that explain the failure
(:mod:`~octo.codehosts.ci.reduce`); ``fullLog`` pages the whole log by lines. A run's jobs
come from its zip archive of logs on GitHub (one download for every failed job), else one
log per job. Logs stream through in bounded memory; what the token budget has no room for
is behind a content handle.
"""

from __future__ import annotations

import anyio

from octo.codehosts.ci.log_stream import LineReader
from octo.codehosts.ci.log_stream import Reading
from octo.codehosts.ci.log_stream import Spool
from octo.codehosts.ci.log_stream import job_file_chooser
from octo.codehosts.ci.log_stream import read_archive
from octo.codehosts.ci.log_stream import step_chooser
from octo.codehosts.ci.reduce import LinePager
from octo.codehosts.ci.reduce import LogReducer
from octo.codehosts.ci.reduce import ReducedStep
from octo.codehosts.ci.reduce import numbered
from octo.codehosts.hosts.github.backend import GitHubBackend
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.hosts.routing import web_name
from octo.codehosts.models.ci import GetJobLogQuery
from octo.codehosts.models.ci import GetJobLogResult
from octo.codehosts.models.ci import JobLog
from octo.codehosts.models.ci import StepLog
from octo.codehosts.shapes.ci import CiJob
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import text_pages
from octo.core.budget import with_tokens

#: Failed jobs of one run read in one answer.
MAX_JOBS = 5
#: Lines of a page of the whole log.
PAGE_LINES = 300


async def get_job_log(ctx: QueryContext, query: GetJobLogQuery) -> Answer[GetJobLogResult]:
    """The failed steps of a job (or of a run's failed jobs), or a page of a whole log."""
    host = choose_host(ctx, query)
    notes: list[str] = []
    with not_found_hints(*host.not_found_hints("owner, repo and the jobId or runId")):
        if query.jobId is not None:
            job = await host.ci_job(query.owner, query.repo, query.jobId)
            jobs, notes = [job.value], job.notes
        else:
            assert query.runId is not None
            listed = await host.run_jobs(query.owner, query.repo, query.runId)
            jobs, notes = [j for j in listed.value if j.failed], listed.notes
        if query.fullLog:
            return await _full_log(ctx, host, query, jobs[0], notes)
        logs, more_notes = await _reduced_jobs(host, query, jobs[:MAX_JOBS])
    budget = ctx.config.max_tokens * ctx.config.chars_per_token
    share = budget // max(1, len(logs))
    shown = [await _within(ctx, query, log, share) for log in logs]
    result = with_tokens(
        GetJobLogResult(owner=query.owner, repo=query.repo, host=web_name(host), jobs=shown),
        ctx.config,
        truncated=any(log.contentHandle for log in shown),
    )
    answer = Answer(result)
    answer.hint(*notes, *more_notes)
    if query.runId is not None and not jobs:
        answer.hint(f"Run {query.runId} has no failed job.")
    if len(jobs) > MAX_JOBS:
        answer.hint(f"{len(jobs) - MAX_JOBS} more failed jobs: read each with jobId.")
    if any(log.contentHandle for log in shown):
        answer.hint(
            'Cut to the token budget: getCachedContent {"handle": contentHandle} reads a job\'s whole reduction.'
        )
    answer.hint(*_next_calls(host, query, shown))
    answer.hint(*follow_up_hints(host))
    return answer


async def _reduced_jobs(
    host: CodeHost, query: GetJobLogQuery, jobs: list[CiJob]
) -> tuple[list[JobLog], list[str]]:
    """Each job's failed steps: from the run's archive when the host has one, else from
    each job's own log."""
    notes: list[str] = []
    reduced: dict[int, list[ReducedStep]] = {}
    if query.runId is not None and jobs and isinstance(host, GitHubBackend):
        spool = Spool()
        try:
            notes += (await host.run_log_archive(query.owner, query.repo, query.runId, spool)).notes
            for job in jobs:
                failed = {s.number for s in job.steps if s.conclusion == "failure"}
                reducer = LogReducer(query.contextLines)
                # Step files where the archive has them, else the job's whole log.
                for choose in (step_chooser(job.name, failed), job_file_chooser(job.name)):
                    if not reducer.total:
                        await anyio.to_thread.run_sync(
                            read_archive, spool, choose, reducer, abandon_on_cancel=True
                        )
                if reducer.total:
                    reduced[job.id] = reducer.failed_steps()
        finally:
            spool.close()
    for job in jobs:
        if job.id in reduced:
            continue
        reducer = LogReducer(query.contextLines)
        reading = Reading()
        reply = await host.job_log(query.owner, query.repo, job.id, LineReader(reducer, reading))
        notes += reply.notes
        if reading.cut:
            notes.append(f"Job {job.id}'s log is over 4 GiB: only its start was read.")
        reduced[job.id] = reducer.failed_steps()
    logs = [
        JobLog(
            id=job.id,
            name=job.name,
            conclusion=job.conclusion,
            steps=[
                StepLog(
                    name=s.name,
                    lines=s.lines,
                    text=s.text,
                    failedTests=list(s.failed_tests) or None,
                )
                for s in reduced[job.id]
            ],
        )
        for job in jobs
    ]
    return logs, notes


async def _within(ctx: QueryContext, query: GetJobLogQuery, log: JobLog, share: int) -> JobLog:
    """``log`` within ``share`` characters: over it, each step's text keeps its start and
    end, and the whole reduction goes behind a handle."""
    if len(log.model_dump_json(exclude_none=True)) <= share:
        return log
    whole = "\n\n".join(f"## {step.name}\n{step.text}" for step in log.steps)
    handle = await ctx.mint_handle(whole, query, local=False)
    each = max(200, share // max(1, len(log.steps)) - 200)
    steps = [step.model_copy(update={"text": _ends(step.text, each)}) for step in log.steps]
    return log.model_copy(update={"steps": steps, "contentHandle": handle})


def _ends(text: str, chars: int) -> str:
    """``text``'s first and last ``chars // 2`` characters around a "…" line."""
    if len(text) <= chars:
        return text
    half = chars // 2
    return f"{text[:half]}\n…\n{text[-half:]}"


async def _full_log(
    ctx: QueryContext, host: CodeHost, query: GetJobLogQuery, job: CiJob, notes: list[str]
) -> Answer[GetJobLogResult]:
    """Page ``query.page`` of ``job``'s whole log, PAGE_LINES lines a page."""
    first = (query.page - 1) * PAGE_LINES + 1
    pager = LinePager(first, PAGE_LINES)
    reading = Reading()
    reply = await host.job_log(query.owner, query.repo, job.id, LineReader(pager, reading))
    text = numbered(pager.kept)
    budget = ctx.config.max_tokens * ctx.config.chars_per_token * 3 // 4
    handle = None
    if len(text) > budget:
        handle = await ctx.mint_handle(text, query, local=False)
        text = text_pages(text, budget)[0]
    end = first + len(pager.kept) - 1
    step = StepLog(name=f"lines {first}-{end}", lines=len(pager.kept), text=text)
    has_more = pager.total > end and not reading.cut
    result = with_tokens(
        GetJobLogResult(
            owner=query.owner,
            repo=query.repo,
            host=web_name(host),
            jobs=[
                JobLog(
                    id=job.id,
                    name=job.name,
                    conclusion=job.conclusion,
                    steps=[step],
                    contentHandle=handle,
                )
            ],
            fullLogPage=query.page,
            totalLines=pager.total,
            hasMore=has_more,
        ),
        ctx.config,
        truncated=handle is not None,
        next_step=f"page={query.page + 1}" if has_more else None,
    )
    answer = Answer(result)
    answer.hint(*notes, *reply.notes)
    if handle:
        answer.hint(
            'The page was cut to the token budget: getCachedContent {"handle": contentHandle} reads it whole.'
        )
    if not pager.kept and pager.total:
        last = (pager.total - 1) // PAGE_LINES + 1
        answer.hint(f"Page {query.page} is past the log's end: its last page is {last}.")
    answer.hint(*follow_up_hints(host))
    return answer


def _next_calls(host: CodeHost, query: GetJobLogQuery, logs: list[JobLog]) -> list[str]:
    """Where a failed test lives (here and in the repository), and the whole log."""
    hints: list[str] = []
    tests = [name for log in logs for step in log.steps for name in step.failedTests or []]
    if tests:
        name = tests[0]
        hints.append(f'Failed test {name}: localSearchCode (pattern="{name}") in a checkout.')
        code = call(host, "githubSearchCode", owner=query.owner, repo=query.repo)
        hints.append(
            f'Its source on the host: {code.removesuffix(")")}, keywordsToSearch=["{name}"]).'
        )
    if logs:
        whole = call(
            host,
            "githubGetJobLog",
            owner=query.owner,
            repo=query.repo,
            jobId=logs[0].id,
            fullLog=True,
        )
        hints.append(f"The whole log, by pages: {whole}.")
    return hints
