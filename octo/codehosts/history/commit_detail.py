"""githubGetCommit: one commit, or what changed from base to head: message, author, stats,
the files changed, and per-file patches when asked, sharing the answer's token budget (a
patch cut or left out carries a content handle to all of it)."""

from __future__ import annotations

from octo.codehosts.history.pull_request_parts import MAX_PATCH_CHARS
from octo.codehosts.history.pull_request_parts import PatchBudget
from octo.codehosts.history.pull_request_parts import with_handle
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.models.history import CommitDetailResult
from octo.codehosts.models.history import CommitFacts
from octo.codehosts.models.history import GetCommitQuery
from octo.codehosts.models.history import PullRequestFile
from octo.codehosts.shapes.history import CommitDetail
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import with_tokens

#: Changed files listed in one answer (their names, stats and patches).
MAX_FILES_SHOWN = 100


def _chosen(files: list[PullRequestFile], paths: list[str] | None) -> list[PullRequestFile]:
    """The files ``paths`` name (a path, or a folder holding them); all without paths."""
    if not paths:
        return files
    wanted = [p.strip("/") for p in paths]

    def named(name: str | None) -> bool:
        return name is not None and any(name == w or name.startswith(f"{w}/") for w in wanted)

    return [f for f in files if named(f.filename) or named(f.previous_filename)]


async def get_commit(ctx: QueryContext, query: GetCommitQuery) -> Answer[CommitDetailResult]:
    """Read a commit or a comparison on the query's host."""
    host = choose_host(ctx, query)
    with not_found_hints(*host.not_found_hints("owner, repo and the sha (or base and head)")):
        if query.sha:
            reply = await host.commit(query.owner, query.repo, query.sha)
        else:
            assert query.base and query.head
            reply = await host.compare(query.owner, query.repo, query.base, query.head)
    detail = reply.value
    files = _chosen(detail.files, query.filePaths)
    listed = files[:MAX_FILES_SHOWN]
    budget = PatchBudget(ctx.config.max_tokens * ctx.config.chars_per_token)
    if query.includePatch:
        wanted = {f.filename for f in listed} if query.filePaths else None
        listed = [
            await with_handle(ctx, query, budget, 0, f) for f in budget.shape(listed, 0, wanted)
        ]
    else:
        listed = [f.model_copy(update={"patch": None}) for f in listed]
    not_all_listed = detail.files_truncated or len(files) > len(listed)
    facts = {name: getattr(detail, name) for name in CommitFacts.model_fields}
    facts["message"] = detail.message or None  # a comparison has no message
    result = with_tokens(
        CommitDetailResult(
            **facts,
            owner=query.owner,
            repo=query.repo,
            base=query.base,
            head=query.head,
            files=listed,
            filesTruncated=True if not_all_listed else None,
        ),
        ctx.config,
        truncated=bool(budget.whole),
    )
    # The commit's facts and message count too: the dispatcher's finishing stage puts the
    # commits and files the whole answer has no room for behind handles.
    answer = Answer(result, cached=reply.cached)
    answer.hint(*reply.notes, *_cut_hints(budget, not_all_listed))
    answer.hint(*_next_calls(host, query, detail))
    answer.hint(*follow_up_hints(host))
    return answer


def _cut_hints(budget: PatchBudget, not_all_listed: bool) -> list[str]:
    """What was cut: patches over the token budget, files not listed."""
    hints: list[str] = []
    if budget.left_out or budget.cut:
        hints.append(
            f"{len(budget.left_out)} patch(es) left out and {len(budget.cut)} cut at "
            f"{MAX_PATCH_CHARS} characters to fit the token budget; getCachedContent "
            '{"handle": contentHandle} reads one whole, or filePaths=[...] gives the files '
            "named the whole budget."
        )
    if not_all_listed:
        hints.append(
            "Not every changed file is listed: name the ones you need with filePaths "
            "(a path or a folder)."
        )
    return hints


def _next_calls(host: CodeHost, query: GetCommitQuery, detail: CommitDetail) -> list[str]:
    """The calls that read on: a file at that commit, the patches (none when filePaths was
    given and the host lists no changed file)."""
    if query.filePaths and not detail.files:
        return []
    hints: list[str] = []
    if not query.includePatch and detail.files:
        hints.append("The patches: the same query with includePatch=true.")
    ref = detail.sha or query.head
    if detail.files and ref:
        first = detail.files[0].filename
        read = call(
            host, "githubGetFileContent", owner=query.owner, repo=query.repo, path=first, branch=ref
        )
        hints.append(f"A file as it is at that commit: {read}.")
    return hints
