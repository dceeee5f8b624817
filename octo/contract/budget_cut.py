"""The last cut of an answer to its token budget, made by the dispatcher's finishing stage
once per query: what a tool's own paging left over the budget (a page of 200 counts,
several places' stats and stubs, a grouped answer's groups, 250 commits of a comparison)
leaves the page from its end, into one content handle per list.

The lists are those the result model declares (``ToolResult.cut_lists``: its
``items_field``, or its ``budget_items``). The whole answer counts, as its ``tokens`` block
measures it (paths, stats, the block itself); a cut answer says so (``truncated``) and its
``paginationHint`` and a hint name the handle that holds the items it left out, then the
page after. Handlers never call it: they return their answer uncut.
"""

from __future__ import annotations

import json
from typing import Any
from typing import TypeVar

from pydantic import BaseModel

from octo.contract.context import QueryContext
from octo.contract.places import stub
from octo.core.budget import TokenInfo
from octo.core.budget import with_tokens
from octo.core.formats import compact_json
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult

R = TypeVar("R", bound=ToolResult)

_CONTINUE = "More content: continue with "
#: Characters held back for the handle's name, unknown until it is minted.
_HANDLE_CHARS = 48


def _tokens(result: BaseModel) -> TokenInfo:
    tokens = getattr(result, "tokens", None)
    if not isinstance(tokens, TokenInfo):
        raise TypeError(f"{type(result).__name__} has no measured tokens block")
    return tokens


def _lists(result: BaseModel, items: str) -> list[tuple[int | None, list[Any]]]:
    """The item lists of ``result``: its groups' (grouped answers), else its own."""
    groups = getattr(result, "groups", None)
    if groups:
        return [(i, list(getattr(g, items) or [])) for i, g in enumerate(groups)]
    return [(None, list(getattr(result, items, None) or []))]


def _without_last(result: R, items: str, count: int) -> tuple[R, list[Any]]:
    """``result`` without its last ``count`` items (from its last groups first), and those."""
    lists = _lists(result, items)
    dropped: list[Any] = []
    for index in reversed(range(len(lists))):
        group, kept = lists[index]
        while kept and len(dropped) < count:
            dropped.append(kept.pop())
        lists[index] = (group, kept)
    dropped.reverse()
    if lists and lists[0][0] is None:
        return result.model_copy(update={items: lists[0][1]}), dropped
    groups = [
        g.model_copy(update={items: kept})
        for g, (_i, kept) in zip(getattr(result, "groups"), lists, strict=True)  # noqa: B009
    ]
    return result.model_copy(update={"groups": groups}), dropped


def _first_stubbed(result: R, items: str) -> R:
    """``result`` whose only item keeps just its required fields and plain values."""
    lists = _lists(result, items)
    group, kept = next((g, k) for g, k in lists if k)
    first = kept[0]
    kept = [type(first).model_validate(stub(first, first.model_dump(exclude_none=True)))]
    if group is None:
        return result.model_copy(update={items: kept})
    groups = list(getattr(result, "groups"))  # noqa: B009
    groups[group] = groups[group].model_copy(update={items: kept})
    return result.model_copy(update={"groups": groups})


def _size(item: Any) -> int:
    data = item.model_dump(mode="json", exclude_none=True) if isinstance(item, BaseModel) else item
    return len(json.dumps(data, separators=(",", ":"), ensure_ascii=False)) + 1


async def within_budget(
    ctx: QueryContext, query: ToolQuery, result: R, *, local: bool
) -> tuple[R, list[str]]:
    """``result`` cut to ``ctx.config.max_tokens`` as a whole, list by list (its model's
    ``cut_lists``, the last first), and the hints naming the handles that hold the rest.

    A result without a measured ``tokens`` block, or that fits, comes back as it is.
    ``local``: the content is local, so its handles are read under this call's roots only.
    """
    if not isinstance(getattr(result, "tokens", None), TokenInfo):
        return result, []
    hints: list[str] = []
    for items in reversed(result.cut_lists()):
        if _is_list(result, items):
            result, cut = await _cut_list(ctx, query, result, items, local=local)
            hints[:0] = cut
    return result, hints


def _is_list(result: BaseModel, items: str) -> bool:
    """Whether ``items`` holds a list of models in ``result`` (or in its groups)."""
    groups = getattr(result, "groups", None)
    value = getattr(groups[0] if groups else result, items, None)
    return value is None or (
        isinstance(value, list) and all(isinstance(v, BaseModel) for v in value)
    )


async def _cut_list(
    ctx: QueryContext, query: ToolQuery, result: R, items: str, *, local: bool
) -> tuple[R, list[str]]:
    """``result`` (its tokens block measured) cut to ``ctx.config.max_tokens`` as a whole:
    its last ``items`` go into one content handle, named by its paginationHint and the hint
    returned. A result that fits comes back as it is; the first item always stays."""
    config = ctx.config
    tokens = _tokens(result)
    if tokens.estimatedTokens <= config.max_tokens:
        return result, []
    budget = config.max_tokens * config.chars_per_token - _HANDLE_CHARS
    later = (tokens.paginationHint or "").removeprefix(_CONTINUE) or None

    def measured(cut: R, handle: str, left_out: int) -> R:
        step = f"getCachedContent {compact_json({'handle': handle})} ({left_out} left out)"
        return with_tokens(
            cut,
            config,
            truncated=True,
            truncated_at_line=tokens.truncatedAtLine,
            next_step=f"{step}, then {later}" if later else step,
        )

    held = "h" * (_HANDLE_CHARS // 2)
    cut = result
    dropped: list[Any] = []
    current = measured(result, held, 0)
    while _tokens(current).chars > budget:
        over = _tokens(current).chars - budget
        # The first item always stays, so every page shows something: as a stub when it
        # alone is too much (the handle then holds all of it).
        shown = [item for _group, kept in _lists(cut, items) for item in kept]
        if len(shown) <= 1:
            if shown:
                cut = _first_stubbed(cut, items)
                dropped = shown[:1] + dropped
                current = measured(cut, held, len(dropped))
            break
        shown = shown[1:]
        count, freed = 0, 0
        for item in reversed(shown):
            count += 1
            freed += _size(item)
            if freed >= over:
                break
        cut, more = _without_last(cut, items, count)
        dropped = more + dropped
        current = measured(cut, held, len(dropped))
    if not dropped:
        return result, []
    # One item a line: the handle's pages are cut at line boundaries.
    lines = [compact_json(i.model_dump(mode="json", exclude_none=True)) for i in dropped]
    whole = "[\n" + ",\n".join(lines) + "\n]"
    handle = await ctx.mint_handle(whole, query, local=local)
    hint = (
        f"The token budget ({config.max_tokens} tokens) left the last {len(dropped)} "
        f"{items} of this page out: getCachedContent {compact_json({'handle': handle})} "
        "reads them."
    )
    return measured(cut, handle, len(dropped)), [hint]
