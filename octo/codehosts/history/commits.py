"""githubSearchCommits: commits by message keywords (the host's commit search) or a
repository's history filtered by path, ref, author and dates; with the files each changed
when asked (one request per commit, read concurrently, each settling on its own)."""

from __future__ import annotations

from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import more_hint
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.models.code import SearchPagination
from octo.codehosts.models.history import CommitFile
from octo.codehosts.models.history import CommitSummary
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.models.history import SearchCommitsResult
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.concurrency import map_settled


async def search_commits(
    ctx: QueryContext, query: SearchCommitsQuery
) -> Answer[SearchCommitsResult]:
    """Find commits on the query's host."""
    host = choose_host(ctx, query)
    with not_found_hints(*host.not_found_hints("owner, repo, ref and path")):
        if query.query:
            reply = await host.search_commits(query)
        else:
            reply = await host.history(query)
    page = reply.value
    commits, cached = page.commits, reply.cached
    failed: list[str] = []
    if query.withFiles and commits:
        commits, failed, files_cached = await _with_files(host, commits)
        cached = cached and files_cached
    result = SearchCommitsResult(
        commits=commits,
        totalCount=page.total,
        pagination=SearchPagination(currentPage=query.page, hasMore=page.has_more),
    )
    answer = Answer(result, cached=cached, partial=bool(failed))
    answer.hint(*reply.notes)
    if failed:
        answer.hint(f"Files of some commits could not be read: {'; '.join(failed[:5])}.")
    if not commits:
        answer.hint(
            "Nothing found: drop a filter (path, author, since/until) or check ref; message "
            "search matches whole words."
        )
    else:
        answer.hint(*_next_calls(host, commits[0], query))
    if page.has_more:
        answer.hint(more_hint(query.page, "commits"))
    answer.hint(*follow_up_hints(host))
    return answer


async def _with_files(
    host: CodeHost, commits: list[CommitSummary]
) -> tuple[list[CommitSummary], list[str], bool]:
    """``commits`` with the files each changed; what failed; whether all came from the cache."""

    async def files(commit: CommitSummary) -> tuple[list[CommitFile], bool]:
        owner, _, repo = commit.repository.rpartition("/")
        reply = await host.commit(owner, repo, commit.sha)
        changed = [
            CommitFile(
                filename=f.filename, status=f.status, additions=f.additions, deletions=f.deletions
            )
            for f in reply.value.files
        ]
        return changed, reply.cached

    outcomes = await map_settled(files, commits)
    shown, failed, cached = [], [], True
    for commit, outcome in zip(commits, outcomes, strict=True):
        if outcome.error is not None or outcome.value is None:
            failed.append(f"{commit.sha[:12]}: {outcome.error.code if outcome.error else '?'}")
            shown.append(commit)
            cached = False
            continue
        changed, was_cached = outcome.value
        cached = cached and was_cached
        shown.append(commit.model_copy(update={"files": changed}))
    return shown, failed, cached


def _next_calls(host: CodeHost, top: CommitSummary, query: SearchCommitsQuery) -> list[str]:
    """What to read next: the top commit's diff, and a file as it was at that commit."""
    owner, _, repo = top.repository.rpartition("/")
    detail = call(host, "githubGetCommit", owner=owner, repo=repo, sha=top.sha, includePatch=True)
    hints = [f"The change itself: {detail}."]
    if query.path:
        read = call(
            host, "githubGetFileContent", owner=owner, repo=repo, path=query.path, branch=top.sha
        )
        hints.append(f"The file as it was then: {read}.")
    return hints
