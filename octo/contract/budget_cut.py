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
from pydantic import ValidationError

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


def _holders(result: BaseModel, items: str) -> tuple[str | None, str]:
    """Where ``items`` lie: ``"pullRequests.files"`` is the ``files`` of each pull request;
    a plain name, the groups' (grouped answers) or the answer's own."""
    holder, dot, name = items.rpartition(".")
    if dot:
        return holder, name
    return ("groups" if getattr(result, "groups", None) else None), items


def _lists(result: BaseModel, items: str) -> list[tuple[int | None, list[Any]]]:
    """The item lists of ``result``: each holder's, else its own."""
    holder, name = _holders(result, items)
    if holder is not None:
        held = getattr(result, holder, None) or []
        return [(i, list(getattr(h, name) or [])) for i, h in enumerate(held)]
    return [(None, list(getattr(result, name, None) or []))]


def _with_lists(result: R, items: str, lists: list[tuple[int | None, list[Any]]]) -> R:
    """``result`` holding ``lists`` as its ``items``."""
    holder, name = _holders(result, items)
    if holder is None:
        return result.model_copy(update={name: lists[0][1]})
    held = [
        h.model_copy(update={name: kept})
        for h, (_i, kept) in zip(getattr(result, holder), lists, strict=True)
    ]
    return result.model_copy(update={holder: held})


def _without_last(result: R, items: str, count: int) -> tuple[R, list[Any]]:
    """``result`` without its last ``count`` items (from its last holders first), and those."""
    lists = _lists(result, items)
    dropped: list[Any] = []
    for index in reversed(range(len(lists))):
        group, kept = lists[index]
        while kept and len(dropped) < count:
            dropped.append(kept.pop())
        lists[index] = (group, kept)
    dropped.reverse()
    return _with_lists(result, items, lists), dropped


def _first_stubbed(result: R, items: str) -> R:
    """``result`` whose only item keeps just its required fields and plain values."""
    lists = _lists(result, items)
    index = next(i for i, (_g, kept) in enumerate(lists) if kept)
    first = lists[index][1][0]
    lists[index] = (
        lists[index][0],
        [type(first).model_validate(stub(first, first.model_dump(exclude_none=True)))],
    )
    return _with_lists(result, items, lists)


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
    if not local and "tokens" in type(result).model_fields and getattr(result, "tokens") is None:  # noqa: B009
        # A remote answer is measured here when its handler did not: hosts send any size.
        result = with_tokens(result, ctx.config)
    if not isinstance(getattr(result, "tokens", None), TokenInfo):
        return result, []
    hints: list[str] = []
    for items in reversed(result.cut_lists()):
        if _is_list(result, items):
            result, cut = await _cut_list(ctx, query, result, items, local=local)
            hints[:0] = cut
    if not local and _tokens(result).estimatedTokens > ctx.config.max_tokens:
        # Local answers page their texts themselves (a file's lines); a host's texts are cut here.
        result, clipped = await _clipped(ctx, query, result, local=local)
        hints += clipped
    return result, hints


#: The shortest a clipped text is cut to.
_SHORTEST_CLIP = 40


async def _clipped(
    ctx: QueryContext, query: ToolQuery, result: R, *, local: bool
) -> tuple[R, list[str]]:
    """``result`` still over the budget once its lists are cut (a title, a message, a body
    of megabytes, thousands of labels): its longest texts and lists clipped, halving their
    length until it fits, the whole answer in one content handle."""
    config = ctx.config
    tokens = _tokens(result)
    whole = result.model_dump(mode="json", exclude_none=True)
    private = result.__pydantic_private__
    length = config.max_tokens * config.chars_per_token // 2
    clipped = result
    while length >= _SHORTEST_CLIP:
        try:
            candidate = type(result).model_validate(_clip(whole, length))
        except ValidationError:
            # A text its model constrains (a pattern, a URL) does not take every cut.
            length //= 2
            continue
        candidate.__pydantic_private__ = private
        clipped = with_tokens(
            candidate,
            config,
            truncated=True,
            truncated_at_line=tokens.truncatedAtLine,
            next_step=(tokens.paginationHint or "").removeprefix(_CONTINUE) or None,
        )
        if _tokens(clipped).chars <= config.max_tokens * config.chars_per_token - _HANDLE_CHARS:
            break
        length //= 2
    if clipped is result:
        return result, []
    # Indented: the handle's pages are cut at line boundaries.
    handle = await ctx.mint_handle(
        json.dumps(whole, indent=1, ensure_ascii=False), query, local=local
    )
    hint = (
        f"The token budget ({config.max_tokens} tokens) clipped texts of this answer to "
        f"{max(length, _SHORTEST_CLIP)} characters: getCachedContent "
        f"{compact_json({'handle': handle})} reads the whole answer."
    )
    return clipped, [hint]


def _clip(value: Any, length: int) -> Any:
    """``value`` with every text longer than ``length`` cut to it (an ellipsis marks the cut)
    and every list to a tenth as many items (thousands of labels)."""
    if isinstance(value, str):
        return value if len(value) <= length else value[: length - 1] + "…"
    if isinstance(value, dict):
        return {key: _clip(item, length) for key, item in value.items()}
    if isinstance(value, list):
        return [_clip(item, length) for item in value[: max(1, length // 10)]]
    return value


def _is_list(result: BaseModel, items: str) -> bool:
    """Whether ``items`` holds lists of models in ``result`` (or in its holders)."""
    return all(all(isinstance(v, BaseModel) for v in kept) for _i, kept in _lists(result, items))


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
        f"{items.rpartition('.')[2]} of this page out: getCachedContent {compact_json({'handle': handle})} "
        "reads them."
    )
    return measured(cut, handle, len(dropped)), [hint]
