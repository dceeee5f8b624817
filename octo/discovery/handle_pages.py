"""getCachedContent: a page of the content behind a content handle.

Pages are cut at line boundaries within the token budget of the call, so a handle reads the
same way whatever cut the answer that gave it out; the secret values of the whole content are
known to the call, so a page hides them although their names or BEGIN lines are on another.
"""

from __future__ import annotations

import json

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import TokenLimits
from octo.core.budget import text_pages
from octo.core.budget import with_tokens
from octo.core.errors import NotFoundError
from octo.core.formats import compact_json
from octo.core.handles import Origin
from octo.core.secrets.redaction import learn
from octo.discovery.models import GetCachedContentQuery
from octo.discovery.models import GetCachedContentResult


def _again(origin: Origin) -> str:
    return f"Repeat the call that gave it out for a new handle: {origin.tool} " + compact_json(
        origin.query
    )


#: The least content a page carries, whatever the budget: paging must advance.
_MIN_PAGE_CHARS = 200


def _as_sent(text: str) -> int:
    """Characters ``text`` takes in the answer's JSON."""
    return len(json.dumps(text, ensure_ascii=False)) - 2


def _frame_chars(limits: TokenLimits) -> int:
    """Characters of a page's answer beside its content, at their largest."""
    huge = 10**9
    frame = with_tokens(
        GetCachedContentResult(
            content="", page=huge, totalPages=huge, hasMore=True, startLine=huge, endLine=huge
        ),
        limits,
        truncated_at_line=huge,
        next_step=f"page={huge}",
    )
    return frame.tokens.chars if frame.tokens is not None else 0


def _readable(origin: Origin, ctx: QueryContext) -> bool:
    if origin.identity != ctx.runtime.identity:
        return False
    return origin.roots is None or origin.roots == ctx.roots


async def get_cached_content(
    ctx: QueryContext, query: GetCachedContentQuery
) -> Answer[GetCachedContentResult]:
    """Page ``query.page`` of the handle's content; NOT_FOUND once it expired, for a handle
    given out under other roots or credentials, and for one never given out."""
    stored = await ctx.runtime.handles.get(query.handle)
    ttl = round(ctx.config.handle_ttl)
    # A handle of another credential identity or other roots is answered as one never
    # given out: its origin (another caller's query) is not repeated.
    if stored is None or not _readable(stored.origin, ctx):
        raise NotFoundError(
            "No content behind this handle",
            hints=[
                f"Handles come from contentHandle fields of answers and live {ttl} s "
                "(OCTO_HANDLE_TTL), readable with the credentials and roots of the call "
                "that gave them out: repeat that call for a new one."
            ],
        )
    origin = stored.origin
    if stored.content is None:
        raise NotFoundError(f"This handle expired (handles live {ttl} s)", hints=[_again(origin)])

    # A page alone may hold a private key's body lines without their BEGIN line, or a value
    # whose name is on another page: the content's values are made known to the call, so
    # the dispatcher hides them in the page it shows.
    learn(stored.content)
    config = ctx.config
    # The whole answer fits the budget: the content as sent (JSON escapes), and its frame.
    budget = config.max_tokens * config.chars_per_token - _frame_chars(config)
    pages = text_pages(stored.content, max(budget, _MIN_PAGE_CHARS), _as_sent)
    total = len(pages)
    answer_page = pages[query.page - 1] if query.page <= total else ""
    has_more = query.page < total
    start_line = 1 + sum(page.count("\n") for page in pages[: query.page - 1])
    end_line = start_line + answer_page.count("\n") - answer_page.endswith("\n")
    result = with_tokens(
        GetCachedContentResult(
            content=answer_page,
            page=query.page,
            totalPages=total,
            hasMore=has_more,
            startLine=start_line,
            endLine=max(start_line, end_line),
        ),
        config,
        truncated_at_line=max(start_line, end_line) if has_more else None,
        next_step=f"page={query.page + 1}" if has_more else None,
    )
    answer = Answer(result)
    if has_more:
        answer.hint(
            "Next page: getCachedContent "
            + compact_json({"handle": query.handle, "page": query.page + 1})
        )
    if query.page > total:
        answer.hint(f"The content has {total} page(s): ask for page 1 to {total}.")
    return answer
