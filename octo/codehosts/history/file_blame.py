"""githubGetFileBlame: who last changed each line of a remote file at a ref (GitHub's
GraphQL blame, GitLab's blame API), as ranges of one commit, cut to the query's lines."""

from __future__ import annotations

import re

from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.models.lines import BlameRange
from octo.codehosts.models.lines import FileBlameQuery
from octo.codehosts.models.lines import FileBlameResult
from octo.codehosts.shapes.code import Reply
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import with_tokens

_FULL_SHA = re.compile(r"^[0-9a-f]{40}$")


def lines_of(ranges: list[BlameRange], start: int | None, end: int | None) -> list[BlameRange]:
    """The ranges that hold lines ``start``..``end`` (all without ``start``), clipped."""
    if start is None:
        return ranges
    last = end or start
    return [
        r.model_copy(update={"startLine": max(r.startLine, start), "endLine": min(r.endLine, last)})
        for r in ranges
        if r.endLine >= start and r.startLine <= last
    ]


async def remote_blame(
    host: CodeHost, owner: str, repo: str, path: str, ref: str | None
) -> tuple[str, Reply[list[BlameRange]]]:
    """The sha ``ref`` names (a full sha as is, without a request) and the file's blame."""
    await host.check_blame()
    with not_found_hints(*host.not_found_hints("owner, repo, ref and path")):
        if ref and _FULL_SHA.match(ref):
            sha, cached = ref, True
        else:
            resolved = await host.resolve_commit(owner, repo, ref)
            sha, cached = resolved.value, resolved.cached
        reply = await host.blame(owner, repo, path.strip("/"), sha)
    return sha, Reply(reply.value, reply.cached and cached, reply.notes)


async def get_file_blame(ctx: QueryContext, query: FileBlameQuery) -> Answer[FileBlameResult]:
    """The blame ranges of the query's file (or its lines) at its ref."""
    host = choose_host(ctx, query)
    sha, reply = await remote_blame(host, query.owner, query.repo, query.path, query.ref)
    ranges = lines_of(reply.value, query.startLine, query.endLine)
    result = with_tokens(
        FileBlameResult(
            owner=query.owner, repo=query.repo, path=query.path, sha=sha, ranges=ranges
        ),
        ctx.config,
    )
    answer = Answer(result, cached=reply.cached)
    answer.hint(*reply.notes)
    if ranges:
        first = ranges[0]
        answer.hint(
            "Why these lines are here (pull request, issue): "
            + call(
                host,
                "traceLine",
                owner=query.owner,
                repo=query.repo,
                path=query.path,
                ref=sha,
                startLine=first.startLine,
                endLine=first.endLine,
            )
        )
    answer.hint(*follow_up_hints(host))
    return answer
