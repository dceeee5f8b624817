"""githubSearchPullRequests: pull requests (GitLab: merge requests) by number or by filters,
with the parts the query asks for, and what was left out said."""

from __future__ import annotations

from octo.codehosts.history.pull_request_parts import MAX_PATCH_CHARS
from octo.codehosts.history.pull_request_parts import DetailedPullRequests
from octo.codehosts.history.pull_request_parts import detail_pull_requests
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import more_hint
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.models.code import SearchPagination
from octo.codehosts.models.history import SearchPullRequestsQuery
from octo.codehosts.models.history import SearchPullRequestsResult
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import with_tokens


async def search_pull_requests(
    ctx: QueryContext, query: SearchPullRequestsQuery
) -> Answer[SearchPullRequestsResult]:
    """Find pull requests on the query's host; a part that fails leaves a partial answer."""
    host = choose_host(ctx, query)
    if query.prNumber is not None:
        with not_found_hints(host.number_hint, *host.not_found_hints("owner and repo")):
            reply = await host.pull_request(query)
        pagination = None
    else:
        with not_found_hints(*host.not_found_hints("owner and repo")):
            reply = await host.search_pull_requests(query)
        pagination = SearchPagination(currentPage=query.page, hasMore=reply.value.has_more)
    detailed = await detail_pull_requests(ctx, host, reply.value, query)
    more = bool(pagination and pagination.hasMore)
    found = SearchPullRequestsResult(
        pullRequests=detailed.pulls, totalCount=reply.value.total, pagination=pagination
    )
    measured = with_tokens(
        found,
        ctx.config,
        truncated=bool(detailed.budget.whole),
        next_step=f"page={query.page + 1}" if more else None,
    )
    # Bodies, labels and the rest count too: the dispatcher's finishing stage puts the pull
    # requests the whole page has no room for behind a handle (one pull request's diffs are
    # fitted to the budget by detail_pull_requests).
    answer = Answer(
        measured, cached=reply.cached and detailed.cached, partial=bool(detailed.failed)
    )
    answer.hint(*reply.notes, *_hints(host, query, detailed, more), *follow_up_hints(host))
    return answer


def _hints(
    host: CodeHost, query: SearchPullRequestsQuery, detailed: DetailedPullRequests, has_more: bool
) -> list[str]:
    """Next steps after a pull-request search: what was not shown, paging, reading one in full."""
    hints: list[str] = []
    if detailed.failed:
        hints.append(
            f"Left out, as they could not be read: {'; '.join(detailed.failed[:5])}. "
            "The rest is complete; repeat the query later for what failed."
        )
    left_out, cut = detailed.budget.left_out, detailed.budget.cut
    if left_out:
        hints.append(
            f"Diffs of {len(left_out)} file(s) were left out to fit the token budget "
            f'({", ".join(left_out[:5])}); getCachedContent {{"handle": contentHandle}} reads '
            'one, or ask for them with type="partialContent", partialContentMetadata=[{"file": '
            "...}]."
        )
    if cut:
        hints.append(
            f"Diffs of {len(cut)} file(s) were cut at {MAX_PATCH_CHARS} characters "
            f'({", ".join(cut[:5])}); getCachedContent {{"handle": contentHandle}} reads one '
            'whole, or type="partialContent" with one file gives it the whole token budget.'
        )
    if detailed.unread:
        hints.append(
            f"Not everything was read: {'; '.join(detailed.unread[:5])}. "
            'Name the files you need with type="partialContent", or open html_url.'
        )
    if has_more:
        hints.append(more_hint(query.page, host.pulls_noun))
    if not detailed.pulls:
        hints.append("Nothing found: drop a filter (state, label, dates) or widen the query.")
    elif query.type == "metadata" and not query.prNumber:
        hints.append(
            f'Read one in full: prNumber={host.number_word} with type="fullContent" (diffs per '
            "file), withComments, withCommits."
        )
    return hints
