"""githubSearchCode: one page of code-search hits, with the next call that reads one."""

from __future__ import annotations

from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import more_hint
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.models.code import CodeSearchHit
from octo.codehosts.models.code import SearchCodeQuery
from octo.codehosts.models.code import SearchCodeResult
from octo.codehosts.models.code import SearchPagination
from octo.contract import Answer
from octo.contract import QueryContext


def _read_hint(host: CodeHost, hit: CodeSearchHit, line: int | None, query: SearchCodeQuery) -> str:
    """The call that reads ``hit``: its lines when the host said where it is, else around
    its first match."""
    owner, _, repo = hit.repository.rpartition("/")
    where: dict[str, str | int] = {"owner": owner, "repo": repo, "path": hit.file}
    if line is not None:
        read = call(host, "githubGetFileContent", **where, startLine=line, endLine=line + 30)
        return f"Read a hit with {read}."
    needle = next(
        (m.text for tm in hit.text_matches or [] for m in tm.matches), query.keywordsToSearch[0]
    )
    read = call(host, "githubGetFileContent", **where, matchString=needle)
    return f"Fragments carry no line numbers: read a hit with {read}."


async def search_code(ctx: QueryContext, query: SearchCodeQuery) -> Answer[SearchCodeResult]:
    """Search code on the query's host."""
    host = choose_host(ctx, query)
    with not_found_hints(*host.not_found_hints("owner and repo")):
        reply = await host.search_code(query)
    page = reply.value
    answer = Answer(
        SearchCodeResult(
            results=page.hits,
            totalCount=page.total,
            pagination=SearchPagination(currentPage=query.page, hasMore=page.has_more),
            incompleteResults=True if page.incomplete else None,
        ),
        cached=reply.cached,
    )
    answer.hint(*reply.notes, *follow_up_hints(host))
    if page.incomplete:
        answer.hint(f"{host.name} timed out and returned partial results: narrow with owner/repo.")
    if not page.hits:
        answer.hint(*host.nothing_found)
        return answer
    answer.hint(_read_hint(host, page.hits[0], page.first_line, query))
    if page.has_more:
        answer.hint(more_hint(query.page))
    return answer
