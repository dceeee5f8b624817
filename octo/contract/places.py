"""Several places in one query (directories, repositories): what the families share to ask
each place and answer once.

A place is asked with the single-place query; the answers are then put together, ranked
over all places (``aggregationMode: "global"``) or with the page split between them
(``"perPlace"``: 10 over 3 places is 4, 3 and 3), listed with each item's place (``"flat"``) or
place by place (``"grouped"``). A place that fails is reported in ``errors`` and the others
still answer; only when every place fails does the query fail, with the first place's error.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import Generic
from typing import Literal
from typing import TypeVar

from pydantic import BaseModel
from pydantic import Field
from pydantic import PrivateAttr

from octo.contract.context import Answer
from octo.contract.context import QueryContext
from octo.core.concurrency import map_settled
from octo.core.errors import ErrorCode
from octo.core.errors import OctoError
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import optional

#: The most places one query may name (a glob's expansion included).
MAX_PLACES = 10
#: Items of a multi-place answer longer than this (as JSON) are cut to a preview with a handle.
MAX_ITEM_CHARS = 2000

AggregationMode = Literal["global", "perPlace"]
ResponseFormat = Literal["flat", "grouped"]

R = TypeVar("R", bound=ToolResult)
M = TypeVar("M", bound=BaseModel)


def aggregation_field() -> Any:
    """The ``aggregationMode`` field of a query that may name several places."""
    return Field(
        default="global",
        description="With several places.",
    )


def format_field() -> Any:
    """The ``responseFormat`` field of a query that may name several places."""
    return Field(
        default="flat",
        description="With several places.",
    )


def groups_field(per: str) -> Any:
    """The ``groups`` field of a result: one answer per place (``per`` names a place)."""
    return optional(f"Grouped answers of several places: one per {per}.")


class PlaceOptions(BaseModel):
    """How the places of a query share its answer (query fields)."""

    aggregationMode: AggregationMode = aggregation_field()
    responseFormat: ResponseFormat = format_field()


_CUT = "octo cut this item: getCachedContent gives all of it."
_FROM = "The place it came from (flat answers of several places)."


class PlacedItem(BaseModel):
    """What an item of an answer may carry besides its own fields."""

    place: str | None = optional(_FROM)
    contentHandle: str | None = optional(_CUT)


class PlaceError(BaseModel):
    """A place of the query that could not answer."""

    place: str
    code: ErrorCode
    message: str
    hints: list[str] = Field(default_factory=list)


class PlacesPart(ToolResult):
    """A result whose query may name several places, and what it then holds."""

    place: str | None = optional("The place of this group.")
    places: list[str] | None = optional("Several places: every place asked, in order.")
    errors: list[PlaceError] | None = optional("Places that failed; the others answered.")
    _places_empty: bool | None = PrivateAttr(default=None)

    def is_empty(self) -> bool:
        """An answer of several places is empty when every place found nothing."""
        return self.found_nothing() if self._places_empty is None else self._places_empty

    def found_nothing(self) -> bool:
        """Whether the answer of a single place found nothing: by default, its
        ``items_field`` is empty."""
        return super().is_empty()


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` in ``parts`` shares, the remainder to the first: 10 over 3 is 4, 3, 3."""
    share, remainder = divmod(total, parts)
    return [share + (1 if index < remainder else 0) for index in range(parts)]


@dataclass(frozen=True)
class Place:
    """A place of a query: how answers name it (``label``) and what its query names
    (``target``: a path, ``owner/repo``)."""

    label: str
    target: str


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """What one place answered, or why it could not."""

    place: Place
    answer: Answer[R] | None = None
    error: OctoError | None = None


async def ask_places(
    places: Sequence[Place],
    ask: Callable[[int, Place], Awaitable[Answer[R]]],
) -> list[Outcome[R]]:
    """``ask(index, place)`` for every place, concurrently; a place's OctoError is its outcome."""
    settled = await map_settled(lambda item: ask(*item), list(enumerate(places)))
    return [
        Outcome(place, outcome.value, outcome.error)
        for place, outcome in zip(places, settled, strict=True)
    ]


def answered(outcomes: Sequence[Outcome[R]]) -> list[tuple[Place, Answer[R]]]:
    """The places that answered, with their answers; raises the first place's error, with
    the others named in a hint, when none did."""
    done = [(o.place, o.answer) for o in outcomes if o.answer is not None]
    if done:
        return done
    first = outcomes[0].error
    assert first is not None
    others = [f"{o.place.label}: {o.error.code}" for o in outcomes[1:] if o.error is not None]
    if not others:
        raise first
    raise first.with_hints(f"Every place failed; the others: {'; '.join(others)}.") from None


def place_errors(outcomes: Sequence[Outcome[R]]) -> list[PlaceError] | None:
    """``errors`` of a multi-place answer: one per place that failed."""
    errors = [
        PlaceError(
            place=o.place.label, code=o.error.code, message=o.error.message, hints=o.error.hints
        )
        for o in outcomes
        if o.error is not None
    ]
    return errors or None


def labelled(items: Sequence[M], place: str) -> list[M]:
    """``items`` with their place set."""
    return [item.model_copy(update={"place": place}) for item in items]


def _json_size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def _preview(data: dict[str, Any], limit: int) -> dict[str, Any]:
    """``data`` cut to about ``limit`` characters: the longest lists lose their last items
    (one is kept), then the longest strings their ends."""
    data = dict(data)
    while _json_size(data) > limit:
        lists = [(len(v), k) for k, v in data.items() if isinstance(v, list) and len(v) > 1]
        if lists:
            key = max(lists)[1]
            data[key] = data[key][:-1]
            continue
        texts = [(len(v), k) for k, v in data.items() if isinstance(v, str) and len(v) > 80]
        if not texts:
            break
        length, key = max(texts)
        excess = _json_size(data) - limit
        data[key] = data[key][: max(80, length - excess - 8)] + " [...]"
    return data


#: What an item cut to fit the token budget keeps, at most.
_STUB_CHARS = 300


@dataclass(frozen=True)
class Fitted(Generic[M]):
    """Items as an answer carries them; ``handed`` of them were cut and carry a handle,
    ``cut`` is True when the token budget cut some."""

    items: list[M]
    handed: int
    cut: bool


def stub(item: BaseModel, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the optional lists and objects of its model: what an item past the
    token budget keeps (a search file keeps its path and count, as a single place does)."""
    fields = type(item).model_fields
    return {
        key: value
        for key, value in data.items()
        if not (isinstance(value, list | dict) and key in fields and not fields[key].is_required())
    }


async def fit_items(
    ctx: QueryContext,
    query: ToolQuery,
    items: Sequence[M],
    budget_chars: int | None,
    *,
    local: bool = True,
) -> Fitted[M]:
    """``items`` in order, each over MAX_ITEM_CHARS (as JSON) cut to a preview, and those
    beyond ``budget_chars`` (when given) to a stub; a cut item carries a contentHandle to
    the whole of it. The first item always keeps its preview."""
    kept: list[M] = []
    used = handed = 0
    cut = False
    for item in items:
        data = item.model_dump(mode="json", exclude_none=True)
        limit = MAX_ITEM_CHARS
        if budget_chars is not None and kept and used + min(_json_size(data), limit) > budget_chars:
            limit, cut = _STUB_CHARS, True
        if _json_size(data) <= limit:
            kept.append(item)
            used += _json_size(data)
            continue
        whole = json.dumps(data, indent=1, ensure_ascii=False)
        handle = data.get("contentHandle") or await ctx.mint_handle(whole, query, local=local)
        preview = _preview(stub(item, data) if limit == _STUB_CHARS else data, limit)
        kept.append(type(item).model_validate({**preview, "contentHandle": handle}))
        used += _json_size(preview)
        handed += 1
    return Fitted(kept, handed, cut)


def mark_places(
    result: R, places: Sequence[Place], outcomes: Sequence[Outcome[Any]], empty: bool
) -> R:
    """``result`` as the answer of several places: their labels, their failures, and whether
    nothing was found anywhere (its status)."""
    if not isinstance(result, PlacesPart):
        raise TypeError(f"{type(result).__name__} cannot hold several places")
    errors = place_errors(outcomes)
    marked = result.model_copy(update={"places": [p.label for p in places], "errors": errors})
    marked._places_empty = empty and errors is None
    return marked
