"""githubViewRepoStructure: the files and folders below a path, to a depth, a page at a time."""

from __future__ import annotations

from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.models.code import RepoStructureQuery
from octo.codehosts.models.code import RepoStructureResult
from octo.codehosts.models.code import StructureSummary
from octo.codehosts.models.code import TreeEntry
from octo.codehosts.shapes.code import RepoTree
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_hints
from octo.core.budget import page_of
from octo.core.errors import NotFoundError


async def view_repo_structure(
    ctx: QueryContext, query: RepoStructureQuery
) -> Answer[RepoStructureResult]:
    """View a repository's tree on the query's host."""
    host = choose_host(ctx, query)
    with not_found_hints(
        *host.not_found_hints("owner, repo, branch and path"),
        f"{call(host, 'githubSearchRepositories')} shows the default branch.",
    ):
        reply = await host.tree(query)
    result, hints = repo_structure_answer(query, reply.value)
    answer = Answer(result, cached=reply.cached)
    answer.hint(*reply.notes, *hints, *follow_up_hints(host))
    return answer


def repo_structure_answer(
    query: RepoStructureQuery, tree: RepoTree
) -> tuple[RepoStructureResult, list[str]]:
    """A structure query's answer from a repository tree, and its next-step hints.

    ``tree`` holds full paths from the repository root; this applies depth, paging and summary.
    """
    prefix = query.path.strip("/")
    below = f"{prefix}/" if prefix else ""
    if (
        prefix
        and not tree.truncated
        and not any(p == prefix and kind == "dir" for p, kind, *_ in tree.entries)
    ):
        raise NotFoundError(
            f"{prefix} is not a directory of {query.owner}/{query.repo}@{query.branch}",
            hints=[f'View the root first: path="", branch="{query.branch}".'],
        )
    chosen = [
        (p[len(below) :], kind, size, sha)
        for p, kind, size, sha in tree.entries
        if p.startswith(below) and p[len(below) :].count("/") < query.depth
    ]
    chosen.sort(key=lambda e: (e[0].split("/")[0], e[1] != "dir", e[0]))
    shown, pagination = page_of(chosen, query.entriesPerPage, query.entryPageNumber)
    result = RepoStructureResult(
        owner=query.owner,
        repo=query.repo,
        branch=query.branch,
        path=prefix,
        structure={
            p: TreeEntry(
                type="file" if kind == "file" else "dir",
                size=size if kind == "file" else None,
                sha=sha,
            )
            for p, kind, size, sha in shown
        },
        summary=StructureSummary(
            totalFiles=sum(1 for _, kind, *_ in chosen if kind == "file"),
            totalFolders=sum(1 for _, kind, *_ in chosen if kind == "dir"),
            truncated=tree.truncated,
        ),
        pagination=pagination if pagination.totalPages > 1 or query.entryPageNumber > 1 else None,
    )
    hints = page_hints(
        "githubViewRepoStructure", query.params(), "entryPageNumber", pagination, len(chosen)
    )
    first_dir = next((p for p, kind, *_ in shown if kind == "dir"), None)
    if first_dir and query.depth == 1:
        hints.append(f'Look inside a folder: path="{below}{first_dir}", depth=2.')
    hints.append("Read a file with githubGetFileContent (same owner, repo, branch).")
    return result, hints
