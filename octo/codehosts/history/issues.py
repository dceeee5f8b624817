"""githubSearchIssues: issues (never pull requests) by filters, or one issue with its body and
a page of its comments, cut to the token budget with a content handle for the rest."""

from __future__ import annotations

from octo.codehosts.history_models import Issue
from octo.codehosts.history_models import SearchIssuesQuery
from octo.codehosts.history_models import SearchIssuesResult
from octo.codehosts.history_shapes import SEARCH_BODY_CHARS
from octo.codehosts.host import CodeHost
from octo.codehosts.models import SearchPagination
from octo.codehosts.routing import call
from octo.codehosts.routing import choose_host
from octo.codehosts.routing import follow_up_hints
from octo.codehosts.routing import more_hint
from octo.codehosts.routing import not_found_hints
from octo.codehosts.shapes import short_body
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import with_tokens
from octo.core.errors import InvalidQueryError
from octo.core.formats import compact_json
from octo.core.secrets.redaction import redact


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
    comments; a pull request asked for here is pointed to githubSearchPullRequests."""
    assert query.owner and query.repo and query.issueNumber is not None
    owner, repo, number = query.owner, query.repo, query.issueNumber
    with not_found_hints(*host.not_found_hints("owner, repo and issueNumber")):
        reply = await host.issue(owner, repo, number)
    if reply.value.pull_request:
        pulls = call(host, "githubSearchPullRequests", owner=owner, repo=repo, prNumber=number)
        raise InvalidQueryError(f"#{number} is a pull request, not an issue", hints=[f"{pulls}."])
    comments = await host.issue_comments(owner, repo, number, query.commentPage)
    issue = reply.value.issues[0]
    body = redact(issue.body or "")
    room = ctx.config.max_tokens * ctx.config.chars_per_token // 2
    handle = None
    if len(body) > room:
        handle = await ctx.mint_handle(body, query, local=False)
    shown = issue.model_copy(
        update={
            "body": (body[:room] if handle else body) or None,
            "bodyTruncated": True if handle else None,
            "comments": comments.value.items,
        }
    )
    more_comments = comments.value.next is not None
    result = with_tokens(
        SearchIssuesResult(
            issues=[shown],
            totalCount=1,
            commentPagination=SearchPagination(
                currentPage=query.commentPage, hasMore=more_comments
            ),
            contentHandle=handle,
        ),
        max_tokens=ctx.config.max_tokens,
        chars_per_token=ctx.config.chars_per_token,
        truncated=handle is not None,
        next_step=f"commentPage={query.commentPage + 1}" if more_comments else None,
    )
    answer = Answer(result, cached=reply.cached and comments.cached)
    answer.hint(*reply.notes, *host.remote.hints(comments))
    if handle:
        answer.hint("The whole body: getCachedContent " + compact_json({"handle": handle}))
    answer.hint(*_linked_hints(host, shown, owner, repo))
    answer.hint(*follow_up_hints(host))
    return answer


def _linked_hints(host: CodeHost, issue: Issue, owner: str, repo: str) -> list[str]:
    """The calls that find what an issue led to: pull requests and commits naming it."""
    mention = f"#{issue.number}"
    pulls = call(host, "githubSearchPullRequests", owner=owner, repo=repo, query=mention)
    commits = call(host, "githubSearchCommits", owner=owner, repo=repo, query=mention)
    return [f"Pull requests that name it: {pulls}.", f"Commits that name it: {commits}."]
