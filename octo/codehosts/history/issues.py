"""githubSearchIssues: issues (never pull requests) by filters, or one issue with its body and
a page of its comments, cut to the token budget with a content handle for the rest."""

from __future__ import annotations

from typing import Any

from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import more_hint
from octo.codehosts.hosts.routing import not_found_hints
from octo.codehosts.models.code import SearchPagination
from octo.codehosts.models.history import Issue
from octo.codehosts.models.history import SearchIssuesQuery
from octo.codehosts.models.history import SearchIssuesResult
from octo.codehosts.shapes.code import short_body
from octo.codehosts.shapes.history import SEARCH_BODY_CHARS
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import with_tokens
from octo.core.errors import InvalidQueryError
from octo.core.formats import compact_json
from octo.core.secrets.redaction import learn


async def search_issues(ctx: QueryContext, query: SearchIssuesQuery) -> Answer[SearchIssuesResult]:
    """Find issues on the query's host, or read one."""
    host = choose_host(ctx, query)
    if query.issueNumber is not None:
        return await _one_issue(ctx, host, query)
    with not_found_hints(*host.not_found_hints("owner and repo")):
        reply = await host.search_issues(query)
    page = reply.value
    issues = [
        issue.model_copy(update={"body": short_body(issue.body, SEARCH_BODY_CHARS)})
        for issue in page.issues
    ]
    result = SearchIssuesResult(
        issues=issues,
        totalCount=page.total,
        pagination=SearchPagination(currentPage=query.page, hasMore=page.has_more),
    )
    answer = Answer(result, cached=reply.cached)
    answer.hint(*reply.notes)
    if not issues:
        answer.hint("Nothing found: drop a filter (state, labels, dates) or widen the query.")
    else:
        top = issues[0]
        owner, _, repo = top.repository.rpartition("/")
        read = call(host, "githubSearchIssues", owner=owner, repo=repo, issueNumber=top.number)
        answer.hint(f"Read one with its comments: {read}.")
    if page.has_more:
        answer.hint(more_hint(query.page, "issues"))
    answer.hint(*follow_up_hints(host))
    return answer


async def _one_issue(
    ctx: QueryContext, host: CodeHost, query: SearchIssuesQuery
) -> Answer[SearchIssuesResult]:
    """The issue ``query.issueNumber`` with its body (cut to half the budget) and a page of
    comments, the whole answer within the budget (the page's last comments, then more of the
    body, behind handles); a pull request asked for here is pointed to
    githubSearchPullRequests."""
    assert query.owner and query.repo and query.issueNumber is not None
    owner, repo, number = query.owner, query.repo, query.issueNumber
    with not_found_hints(*host.not_found_hints("owner, repo and issueNumber")):
        reply = await host.issue(owner, repo, number)
    if reply.value.pull_request:
        pulls = call(host, "githubSearchPullRequests", owner=owner, repo=repo, prNumber=number)
        raise InvalidQueryError(f"#{number} is a pull request, not an issue", hints=[f"{pulls}."])
    comments = await host.issue_comments(owner, repo, number, query.commentPage)
    issue = reply.value.issues[0]
    body = issue.body or ""
    room = ctx.config.max_tokens * ctx.config.chars_per_token // 2
    handle = None
    if len(body) > room:
        learn(body)  # a piece of a secret the cut leaves at the end is hidden too
        handle = await ctx.mint_handle(body, query, local=False)
    shown = issue.model_copy(
        update={
            "body": (body[:room] if handle else body) or None,
            "bodyTruncated": True if handle else None,
            "comments": comments.value.items,
        }
    )
    more_comments = comments.value.next is not None

    def measured(issue: Issue, truncated: bool) -> SearchIssuesResult:
        return with_tokens(
            SearchIssuesResult(
                issues=[issue],
                totalCount=1,
                commentPagination=SearchPagination(
                    currentPage=query.commentPage, hasMore=more_comments
                ),
                contentHandle=handle,
            ),
            ctx.config,
            truncated=truncated,
            next_step=f"commentPage={query.commentPage + 1}" if more_comments else None,
        )

    result = measured(shown, handle is not None)
    # The page's last comments the whole answer has no room for go behind a handle.
    kept = list(shown.comments or [])
    left_out: list[Any] = []
    while kept and _over(result, ctx.config.max_tokens):
        left_out.insert(0, kept.pop())
        result = measured(shown.model_copy(update={"comments": kept or None}), True)
    if _over(result, ctx.config.max_tokens) and result.tokens is not None:
        # Even without comments: the body gives up what the rest of the answer needs.
        budget = ctx.config.max_tokens * ctx.config.chars_per_token
        room = max(0, len(shown.body or "") - (result.tokens.chars - budget) - _MEASURE_SLACK)
        if handle is None:
            handle = await ctx.mint_handle(body, query, local=False)
        shown = shown.model_copy(update={"body": body[:room] or None, "bodyTruncated": True})
        result = measured(shown.model_copy(update={"comments": kept or None}), True)
    comments_handle = None
    if left_out:
        rest = [c.model_dump(mode="json", exclude_none=True) for c in left_out]
        comments_handle = await ctx.mint_handle(compact_json(rest), query, local=False)
    answer = Answer(result, cached=reply.cached and comments.cached)
    if comments_handle:
        answer.hint(
            f"The last {len(left_out)} comments of this page did not fit the token budget: "
            "getCachedContent " + compact_json({"handle": comments_handle})
        )
    answer.hint(*reply.notes, *host.remote.hints(comments))
    if handle:
        answer.hint("The whole body: getCachedContent " + compact_json({"handle": handle}))
    answer.hint(*_linked_hints(host, shown, owner, repo))
    answer.hint(*follow_up_hints(host))
    return answer


#: Characters kept free when the body is cut to what the answer's frame leaves: the frame's
#: own numbers (chars, estimatedTokens) grow a digit or two when measured again.
_MEASURE_SLACK = 64


def _over(result: SearchIssuesResult, max_tokens: int) -> bool:
    return result.tokens is not None and result.tokens.estimatedTokens > max_tokens


def _linked_hints(host: CodeHost, issue: Issue, owner: str, repo: str) -> list[str]:
    """The calls that find what an issue led to: pull requests and commits naming it."""
    mention = f"#{issue.number}"
    pulls = call(host, "githubSearchPullRequests", owner=owner, repo=repo, query=mention)
    commits = call(host, "githubSearchCommits", owner=owner, repo=repo, query=mention)
    return [f"Pull requests that name it: {pulls}.", f"Commits that name it: {commits}."]
