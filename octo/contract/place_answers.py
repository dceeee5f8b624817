"""One answer from several places: each place is asked with the tool's single-place query,
then the answers are put together (the model: :mod:`octo.contract.places`).

``perPlace``: every place answers page N of its share of the page (10 over 3 places: 4, 3, 3)
within its share of the token budget, so the answers add up to one page and one budget.
``global``: every place answers its first N pages' worth of items, ranked as one list (the
tool's ranking, or places in order) and paged; the page then fits the token budget, items
beyond it cut to a stub with a contentHandle.

The query fields that page the items are those the result model declares
(:meth:`~octo.core.queries.ToolResult.paged_by`). An answer paged in a way no query field
sets (a search's countOnly pages, a summary) has none: each place answers the query as it
is (perPlace: within its share of the budget), and the answers are ranked (global) or
listed place after place (perPlace) whole. In every mode the dispatcher's finishing stage
makes the last cut of the whole answer to the budget
(:func:`octo.contract.budget_cut.within_budget`).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Generic
from typing import TypeVar

from pydantic import BaseModel

from octo.contract.context import Answer
from octo.contract.context import QueryContext
from octo.contract.places import Outcome
from octo.contract.places import Place
from octo.contract.places import answered
from octo.contract.places import ask_places
from octo.contract.places import fit_items
from octo.contract.places import labelled
from octo.contract.places import mark_places
from octo.contract.places import split_evenly
from octo.core.budget import with_tokens
from octo.core.errors import OctoError
from octo.core.formats import next_call
from octo.core.queries import PageFields
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult

Q = TypeVar("Q", bound=ToolQuery)
R = TypeVar("R", bound=ToolResult)

#: A token budget no single place reaches: in global mode the page is fitted after ranking.
_UNBOUNDED_TOKENS = 10**7


@dataclass(frozen=True)
class Paging:
    """Where the page of several places sits: ``totalPages`` when it is known."""

    currentPage: int
    totalPages: int | None
    hasMore: bool


@dataclass(frozen=True)
class Places:
    """The places of a query; ``root`` is what their labels are relative to (if anything),
    ``failed`` the errors of places found wanting before being asked, ``notes`` what the
    answer says first of how they were found."""

    places: Sequence[Place]
    root: str = ""
    failed: Mapping[str, OctoError] = field(default_factory=dict)
    #: What the answer says first of how the places were found (a wildcard's matches).
    notes: Sequence[str] = ()


#: How a tool's result of several places is made: ``(root, items, answers, paging)``, totals
#: summed.
Combine = Callable[[str, list[Any], list[R], Paging], R]


@dataclass(frozen=True, kw_only=True)
class PlaceTool(Generic[Q, R]):
    """What putting answers together needs to know of one tool. The items are those its
    result model lists (``items_field``, see :func:`items_field_of`), paged by the query
    fields it declares (:meth:`~octo.core.queries.ToolResult.paged_by`)."""

    name: str
    single: Callable[[QueryContext, Q], Awaitable[Answer[R]]]
    #: The query fields that name a place.
    place_fields: Callable[[Place], dict[str, Any]]
    #: How many items a place has in all, given the answer to a window of that many.
    count: Callable[[R, int], int]
    #: The result of several places: ``(root, items, answers, paging)``, totals summed.
    combine: Combine[R]
    #: The global ranking of an item, given its position in its place's answer; None: places
    #: in order, each in its own order.
    rank: Callable[[Any, int], Any] | None = None
    #: Query fields a global fetch needs to rank (a listing's details for its sort), and the
    #: item fields they add that the caller did not ask for.
    rank_fields: Mapping[str, Any] = field(default_factory=dict)
    unasked: Mapping[str, Any] = field(default_factory=dict)
    #: The most items one place may be asked for at once (an API's page size).
    max_window: int | None = None
    #: False when the content is not local: handles of cut items then ignore roots.
    local: bool = True


@dataclass(frozen=True)
class SeveralPlaces(Generic[Q, R]):
    """How a tool takes several places in one query (its binding names this by reference):
    ``found`` gives the places a query names (None: one place, the handler answers it as it
    is), ``tool`` how their answers are put together. ``at_once``, when a host can answer
    several places in one request, tries that first (None: ask each place)."""

    found: Callable[[QueryContext, Q], Awaitable[Places | None]]
    tool: Callable[[Q], PlaceTool[Q, R]]
    at_once: (
        Callable[[QueryContext, Q, Places, PlaceTool[Q, R]], Awaitable[Answer[R] | None]] | None
    ) = None


def in_places(
    single: Callable[[QueryContext, Q], Awaitable[Answer[R]]],
    several: Callable[[], SeveralPlaces[Q, R]],
    model: type[ToolResult],
) -> Callable[[QueryContext, Q], Awaitable[Answer[R]]]:
    """The handler of a tool over one place (``single``, the function its binding names) or
    several (``several()``, imported on first use like the handler): the one wrapper for
    paths and repositories alike. ``model``, the binding's result model, says which query
    fields page the answer."""

    async def handle(ctx: QueryContext, query: Q) -> Answer[R]:
        how = several()
        found = await how.found(ctx, query)
        if found is None:
            return await single(ctx, query)
        tool = how.tool(query)
        answer = None
        if how.at_once is not None:
            answer = await how.at_once(ctx, query, found, tool)
        if answer is None:
            answer = await answer_places(ctx, query, found, tool, model)
        answer.hints[:0] = found.notes
        return answer

    return handle


def _mode(query: ToolQuery) -> str:
    return str(getattr(query, "aggregationMode", "global"))


async def answer_places(
    ctx: QueryContext, query: Q, found: Places, tool: PlaceTool[Q, R], model: type[ToolResult]
) -> Answer[R]:
    """The answer of ``query`` over ``found``'s places (see the module's docstring), paged by
    the query fields its result ``model`` declares."""
    paged = model.paged_by(query)
    page = 1 if paged is None else int(getattr(query, paged.page))
    per_page = 1 if paged is None else int(getattr(query, paged.per_page))
    places = found.places
    shares = split_evenly(per_page, len(places))
    budgets = split_evenly(ctx.config.max_tokens, len(places))
    window = page * per_page if tool.max_window is None else min(page * per_page, tool.max_window)

    async def ask(index: int, place: Place) -> Answer[R]:
        failure = found.failed.get(place.label)
        if failure is not None:
            raise failure
        # Its share of the budget; or, for a global page ranked after the fact, all of it.
        place_ctx = ctx.with_token_budget(max(1, budgets[index]))
        fields: dict[str, Any] = {}
        if paged is not None and _mode(query) == "perPlace":
            fields = {paged.page: page, paged.per_page: max(1, shares[index])}
        elif paged is not None:
            fields = {paged.page: 1, paged.per_page: window, **tool.rank_fields}
            place_ctx = ctx.with_token_budget(_UNBOUNDED_TOKENS)
        elif _mode(query) == "global":
            # Ranked as one after the fact: the whole answer is cut to the budget then.
            place_ctx = ctx.with_token_budget(_UNBOUNDED_TOKENS)
        # The place's own query: its hints repeat it, so the options of several places go.
        alone = {"aggregationMode": "global", "responseFormat": "flat"}
        update = {**alone, **tool.place_fields(place), **fields}
        return await tool.single(place_ctx, query.model_copy(update=update))

    outcomes = await ask_places(places, ask)
    done = answered(outcomes)
    if paged is None:
        # Every item of every place (their own pages), ranked (global) or place after place.
        shown = _ranked(tool, done, as_one=_mode(query) == "global")
        paging = _places_paging(done)
    elif _mode(query) == "perPlace":
        share = {p.label: shares[i] for i, p in enumerate(places)}
        shown = [
            (place, item) for place, a in done for item in _items(a.result)[: share[place.label]]
        ]
        paging = _places_paging(done)
    else:
        shown, paging = _global_page(tool, done, page, per_page, window)
    return await _combined(ctx, query, tool, paged, found, outcomes, done, shown, paging)


def items_field_of(result: ToolResult) -> str:
    """The field that lists the items of ``result``: the one its model declares."""
    if result.items_field is None:
        raise TypeError(f"{type(result).__name__} declares no items_field to put together")
    return result.items_field


def _items(result: ToolResult) -> list[Any]:
    return list(getattr(result, items_field_of(result)) or [])


def _paging(result: ToolResult) -> Paging:
    pagination = getattr(result, result.pagination_field, None)
    if pagination is None:
        return Paging(1, 1, False)
    return Paging(
        pagination.currentPage, getattr(pagination, "totalPages", None), pagination.hasMore
    )


def _places_paging(done: list[tuple[Place, Answer[R]]]) -> Paging:
    """The pages of answers each paged by its place: the furthest any goes."""
    pages = [_paging(answer.result) for _place, answer in done]
    known = [p.totalPages for p in pages]
    return Paging(
        max(p.currentPage for p in pages),
        None if None in known else max(total or 0 for total in known),
        any(p.hasMore for p in pages),
    )


def _ranked(
    tool: PlaceTool[Q, R], done: list[tuple[Place, Answer[R]]], *, as_one: bool
) -> list[tuple[Place, Any]]:
    """Every item of every place with its place: ranked as one list by the tool's ranking
    (``as_one``; ties, and a tool without one, keep places in order, each in its own), else
    place after place."""
    listed = [
        (tool.rank(item, position) if tool.rank is not None else 0, order, position, place, item)
        for order, (place, answer) in enumerate(done)
        for position, item in enumerate(_items(answer.result))
    ]
    if as_one:
        listed.sort(key=lambda entry: entry[:3])
    return [(place, item) for *_rank, place, item in listed]


def _global_page(
    tool: PlaceTool[Q, R],
    done: list[tuple[Place, Answer[R]]],
    page: int,
    per_page: int,
    window: int,
) -> tuple[list[tuple[Place, Any]], Paging]:
    """One ranking of every place's items, cut to the page asked for."""
    ranked = _ranked(tool, done, as_one=True)
    unasked = dict(tool.unasked)
    shown = [
        (place, item.model_copy(update=unasked))
        for place, item in ranked[(page - 1) * per_page : page * per_page]
    ]
    total = sum(tool.count(answer.result, window) for _place, answer in done)
    return shown, Paging(page, math.ceil(total / per_page), page * per_page < total)


async def _combined(
    ctx: QueryContext,
    query: Q,
    tool: PlaceTool[Q, R],
    paged: PageFields | None,
    found: Places,
    outcomes: Sequence[Outcome[R]],
    done: list[tuple[Place, Answer[R]]],
    shown: list[tuple[Place, Any]],
    paging: Paging,
) -> Answer[R]:
    """The one answer of several places, flat (in ranking order) or grouped (in place order)."""
    config = ctx.config
    mode = _mode(query)
    grouped = getattr(query, "responseFormat", "flat") == "grouped"
    groups = [(place, [item for at, item in shown if at is place]) for place, _a in done]
    if grouped:
        listed = [item for _place, items in groups for item in items]
    else:
        listed = [labelled([item], place.label)[0] for place, item in shown]
    paged_as_one = mode == "global" and paged is not None
    budget = config.max_tokens * config.chars_per_token if paged_as_one else None
    fitted = await fit_items(ctx, query, listed, budget, local=tool.local)
    answers = [answer.result for _place, answer in done]
    result = tool.combine(found.root, [] if grouped else fitted.items, answers, paging)
    update: dict[str, Any] = {}
    if grouped:
        cut = iter(fitted.items)
        # A global page is paged as one: its groups show that paging, not their own.
        pagination = result.pagination_field
        shared = {pagination: getattr(result, pagination, None)} if paged_as_one else {}
        update["groups"] = [
            answer.result.model_copy(
                update={
                    items_field_of(answer.result): [next(cut) for _item in items],
                    "place": place.label,
                    "tokens": None,
                    **shared,
                }
            )
            for (place, answer), (_place, items) in zip(done, groups, strict=True)
        ]
    empty = all(answer.result.is_empty() for _place, answer in done)
    result = mark_places(result.model_copy(update=update), found.places, outcomes, empty)
    if "tokens" in type(result).model_fields:
        result = with_tokens(
            result,
            config,
            next_step=f"{paged.page}={paging.currentPage + 1}"
            if paging.hasMore and paged is not None
            else None,
            truncated=fitted.cut or any(_truncated(a.result) for _p, a in done),
        )
    answer = Answer(
        result,
        cached=all(a.cached for _p, a in done),
        partial=len(done) < len(outcomes) or any(a.partial for _p, a in done),
    )
    answer.hint(*_hints(query, tool, paged, outcomes, done, paging, fitted.handed, empty))
    return answer


def _truncated(result: BaseModel) -> bool:
    tokens = getattr(result, "tokens", None)
    return bool(getattr(tokens, "truncated", False))


def _hints(
    query: Q,
    tool: PlaceTool[Q, R],
    paged: PageFields | None,
    outcomes: Sequence[Outcome[R]],
    done: list[tuple[Place, Answer[R]]],
    paging: Paging,
    handed: int,
    empty: bool,
) -> list[str]:
    hints: list[str] = []
    if paging.hasMore and paged is not None:
        following = {**query.params(), paged.page: paging.currentPage + 1}
        hints.append(f"Next page: {next_call(tool.name, following)}")
    failed = [o.place.label for o in outcomes if o.error is not None]
    if failed:
        hints.append(
            f"{len(failed)} of {len(outcomes)} places failed ({', '.join(failed)}): "
            "data.errors says why and what to do."
        )
    if handed:
        hints.append(
            f'{handed} item(s) were cut to fit: getCachedContent {{"handle": contentHandle}} '
            "reads one whole."
        )
    # A place's own hints fit its page in perPlace mode, and say what to relax when nothing
    # was found; the first two of each are kept.
    if _mode(query) == "perPlace" or empty or paged is None:
        for place, answer in done:
            hints += [f"{place.label}: {hint}" for hint in answer.hints[:2]]
    return hints
