"""githubSearchRepositories: one page of repositories, with the call that explores one."""

from __future__ import annotations

from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import more_hint
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.models.code import SearchPagination
from octo.codehosts.models.code import SearchRepositoriesQuery
from octo.codehosts.models.code import SearchRepositoriesResult
from octo.contract import Answer
from octo.contract import QueryContext


async def search_repositories(
    ctx: QueryContext, query: SearchRepositoriesQuery
) -> Answer[SearchRepositoriesResult]:
    """Search repositories on the query's host."""
    host = choose_host(ctx, query)
    with not_found_hints(*host.not_found_hints("the owner")):
        reply = await host.search_repositories(query)
    page = reply.value
    pagination = SearchPagination(currentPage=query.page, hasMore=page.has_more)
    result = SearchRepositoriesResult(
        repositories=page.repositories, totalCount=page.total, pagination=pagination
    )
    answer = Answer(result, cached=reply.cached)
    answer.hint(*reply.notes, *follow_up_hints(host))
    if not page.repositories:
        answer.hint("Nothing found: drop a filter or use topicsToSearch instead of keywords.")
        return answer
    top = page.repositories[0]
    owner, _, repo = top.full_name.rpartition("/")
    explore = call(
        host, "githubViewRepoStructure", owner=owner, repo=repo, branch=top.default_branch or "main"
    )
    answer.hint(f"Explore one: {explore}.")
    if page.has_more:
        answer.hint(more_hint(query.page))
    return answer
