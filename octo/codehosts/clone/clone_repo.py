"""githubCloneRepo: a snapshot of a repository at a ref, from the host's archive endpoint (no
git needed), extracted safely into the managed clone folder and reused while it lasts.

The clone folder is an extra read root of the gateway (:class:`~octo.core.files.paths.PathPolicy`),
so the local, LSP and semantic tools read a clone's ``localPath`` in the same gateway.
"""

from __future__ import annotations

import re

import httpx

from octo.codehosts.clone.folder import CloneFolder
from octo.codehosts.clone.folder import CloneRecord
from octo.codehosts.clone.folder import clone_name
from octo.codehosts.clone.models import CloneRepoQuery
from octo.codehosts.clone.models import CloneRepoResult
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import not_found_hints
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.errors import FileTooLargeError
from octo.core.formats import compact_json
from octo.transports.http.body import BodySink
from octo.transports.http.body import BodyTooLargeError

_SHA = re.compile(r"^[0-9a-f]{40}$")


async def clone_repo(ctx: QueryContext, query: CloneRepoQuery) -> Answer[CloneRepoResult]:
    """Clone the query's repository at its ref (or reuse the clone of that commit)."""
    host = choose_host(ctx, query)
    folder = ctx.backend(CloneFolder)
    notes: list[str] = []
    cached = True
    with not_found_hints(*host.not_found_hints("owner, repo and ref")):
        if query.ref and _SHA.match(query.ref):
            commit = query.ref  # a full sha names itself: no request
        else:
            resolved = await host.resolve_commit(query.owner, query.repo, query.ref)
            commit, cached = resolved.value, resolved.cached
            notes += resolved.notes
        server = httpx.URL(host.remote.base_url).host
        name = clone_name(server, query.owner, query.repo, commit, query.sparsePath)
        async with folder.lock(name):
            record = None if query.forceRefresh else await folder.reuse(name)
            reused = record is not None
            if record is None:
                cached = False
                now = folder.clock()
                record = await folder.add(
                    CloneRecord(
                        name=name,
                        owner=query.owner,
                        repo=query.repo,
                        commit=commit,
                        sparsePath=query.sparsePath,
                        size=0,
                        files=0,
                        created=now,
                        used=now,
                    ),
                    lambda into: _download(
                        host, query, commit, folder.settings.clone_max_bytes, into
                    ),
                )
    local_path = str(folder.path(name))
    # The clone's facts are its record's (under the same names): its folder name is theirs.
    result = CloneRepoResult(
        localPath=local_path,
        ref=query.ref,
        sizeBytes=record.size,
        fileCount=record.files,
        reused=reused,
        **record.model_dump(include={"owner", "repo", "commit", "sparsePath"}),
    )
    answer = Answer(result, cached=cached and reused)
    answer.hint(*notes, *_next_calls(local_path, query))
    if record.files == 0:
        answer.hint("The snapshot is empty: check sparsePath against githubViewRepoStructure.")
    answer.hint(*follow_up_hints(host))
    return answer


async def _download(
    host: CodeHost, query: CloneRepoQuery, commit: str, cap: int, into: BodySink
) -> None:
    """The archive streamed ``into`` a file, refused past the byte cap (the packed archive
    is smaller than what it unpacks to, so the cap on unpacked bytes bounds it too)."""
    try:
        await host.archive(query.owner, query.repo, commit, query.sparsePath, cap, into)
    except BodyTooLargeError:
        raise FileTooLargeError(
            f"The archive is over {cap} bytes (cap OCTO_CLONE_MAX_BYTES); nothing was extracted",
            hints=["Clone a part with sparsePath, or raise OCTO_CLONE_MAX_BYTES."],
        ) from None


def _next_calls(local_path: str, query: CloneRepoQuery) -> list[str]:
    """The local tools on the clone (read-only), each with its localPath."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", f"{query.owner}-{query.repo}")[:60]
    return [
        "Search it: localSearchCode " + compact_json({"path": local_path, "pattern": "..."}),
        "Go to a definition: lspGotoDefinition "
        + compact_json({"uri": f"{local_path}/FILE", "symbolName": "...", "lineHint": 1}),
        "Index it for meaning: semanticIndexCodebase "
        + compact_json({"path": local_path, "indexName": name}),
        "The clone is read-only research material; forceRefresh=true downloads it again.",
    ]
