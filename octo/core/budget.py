"""Token budgets and pages: estimate the size of answers, cut text at line boundaries, and the
one ``Pagination`` with the hints that name the next page."""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import Protocol
from typing import TypeVar

from pydantic import BaseModel
from pydantic import Field

from octo.core.formats import next_call
from octo.core.queries import optional

DataT = TypeVar("DataT", bound=BaseModel)
A = TypeVar("A")


def estimate_tokens(chars: int, chars_per_token: int = 4) -> int:
    """Tokens a model will spend on ``chars`` characters: chars / chars_per_token, rounded up."""
    return math.ceil(chars / chars_per_token)


@dataclass(frozen=True)
class LineCut:
    """The lines of a text that fit a token budget."""

    content: str
    first_line: int
    last_line: int
    truncated: bool


def cut_lines(
    lines: list[str], first_line: int, max_tokens: int, chars_per_token: int = 4
) -> LineCut:
    """Keep whole lines from ``lines`` (numbered from ``first_line``) while they fit the budget.

    ``lines`` keep their line endings. At least one line is kept, so paging
    always advances; a single line longer than the budget is itself cut.
    """
    budget = max_tokens * chars_per_token
    used = 0
    kept: list[str] = []
    for line in lines:
        if used + len(line) > budget:
            break
        kept.append(line)
        used += len(line)
    truncated = len(kept) < len(lines)
    if not kept and lines:
        kept = [lines[0][:budget]]
    return LineCut("".join(kept), first_line, first_line + len(kept) - 1, truncated)


#: How many times an answer is cut again to fit whole in its budget.
FIT_ROUNDS = 4


def fit_whole(build: Callable[[int], A], budget_chars: int, size: Callable[[A], int]) -> A:
    """``build(cut)``'s answer with the largest ``cut`` whose whole answer (``size``: its
    characters as sent, what its estimatedTokens counts) fits ``budget_chars``: the cut
    shrinks by what the rest of the answer (names, the tokens block, JSON escapes) took
    beyond the budget, a few rounds at most. A budget too small to leave the content half
    of it keeps the whole budget for the content, as it cannot hold the whole answer."""
    first = answer = build(budget_chars)
    cut = budget_chars
    for _round in range(FIT_ROUNDS):
        over = size(answer) - budget_chars
        if over <= 0:
            return answer
        cut -= over
        if cut < budget_chars // 2:
            return first
        answer = build(cut)
    return answer


def text_pages(text: str, budget_chars: int, size: Callable[[str], int] = len) -> list[str]:
    """``text`` in pages of at most ``budget_chars`` (as ``size`` measures a piece of text:
    its characters, or its characters as sent), cut at line boundaries.

    A line ends at ``\n`` only, as a file's lines are numbered everywhere else in octo (not
    at the form feeds and lone carriage returns ``str.splitlines`` also cuts at). A line
    longer than a page is split across pages of its own; nothing is lost, and joining the
    pages gives ``text`` back. An empty text is one empty page.
    """
    pages: list[str] = []
    current: list[str] = []
    used = 0
    for line in _lines(text):
        cost = _cost(line, 0, budget_chars, size)
        if current and used + cost > budget_chars:
            pages.append("".join(current))
            current, used = [], 0
        start = 0
        while cost > budget_chars:
            take = _prefix_within(line[start : start + budget_chars], budget_chars, size)
            pages.append(line[start : start + take])
            start += take
            cost = _cost(line, start, budget_chars, size)
        if start < len(line):
            current.append(line[start:])
            used += cost
    if current or not pages:
        pages.append("".join(current))
    return pages


def _lines(text: str) -> list[str]:
    """``text``'s lines, each with its ``\n`` (the last without one when the text ends so)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _cost(line: str, start: int, budget_chars: int, size: Callable[[str], int]) -> int:
    """The size of ``line`` from ``start``; past a page's length only more than a page (a
    size is never below the length), so a line of megabytes is never measured whole once
    per page it fills."""
    if len(line) - start > budget_chars:
        return budget_chars + 1
    return size(line[start:])


def _prefix_within(line: str, budget_chars: int, size: Callable[[str], int]) -> int:
    """How many characters of ``line`` fit ``budget_chars`` as ``size`` measures them (one
    at least, so paging always advances)."""
    take = min(len(line), budget_chars)
    while take > 1 and (measured := size(line[:take])) > budget_chars:
        take = max(1, min(take - 1, take * budget_chars // measured))
    return take


class TokenInfo(BaseModel):
    """Size and pagination metadata of an answer (spec 000, section 8)."""

    chars: int = Field(
        description="Characters of the whole answer data as sent (compact JSON), this block "
        "included."
    )
    estimatedTokens: int = Field(description="chars / characters per token, rounded up.")
    maxTokensPerRequest: int
    truncated: bool = Field(description="True when the token budget cut the content.")
    truncatedAtLine: int | None = optional("Last line returned when the budget cut the content.")
    requiresPagination: bool = Field(description="True when more content exists after this.")
    paginationHint: str | None = optional("The exact parameters that continue reading.")


class TokenLimits(Protocol):
    """The limits an answer is measured against (a :class:`~octo.core.config.Config`)."""

    @property
    def max_tokens(self) -> int: ...

    @property
    def chars_per_token(self) -> int: ...


def with_tokens(
    data: DataT,
    limits: TokenLimits,
    *,
    truncated: bool = False,
    truncated_at_line: int | None = None,
    next_step: str | None = None,
) -> DataT:
    """``data`` with its ``tokens`` block: its size (see :func:`measured`), whether the budget
    cut it, and ``next_step``, the parameters that read on."""
    info = TokenInfo(
        chars=0,
        estimatedTokens=0,
        maxTokensPerRequest=limits.max_tokens,
        truncated=truncated or truncated_at_line is not None,
        truncatedAtLine=truncated_at_line,
        requiresPagination=next_step is not None,
        paginationHint=f"More content: continue with {next_step}" if next_step else None,
    )
    return measured(data.model_copy(update={"tokens": info}), limits.chars_per_token)


def measured(data: DataT, chars_per_token: int = 4) -> DataT:
    """``data`` with the size in its ``tokens`` block (a TokenInfo) set to that of ``data``
    itself as sent: the compact JSON without unset fields (its wire form), the block
    included. It is serialised once, its two counts at 0 (one digit each); the counts' own
    digits are then added by arithmetic until they stop growing."""
    info = getattr(data, "tokens", None)
    if not isinstance(info, TokenInfo):
        raise TypeError(f"{type(data).__name__} has no tokens block to measure")
    zeroed = info.model_copy(update={"chars": 0, "estimatedTokens": 0})
    rest = len(data.model_copy(update={"tokens": zeroed}).model_dump_json(exclude_none=True)) - 2
    chars = rest + 2
    while True:
        tokens = estimate_tokens(chars, chars_per_token)
        grown = rest + len(str(chars)) + len(str(tokens))
        if grown == chars:
            break
        chars = grown
    measured_info = info.model_copy(update={"chars": chars, "estimatedTokens": tokens})
    return data.model_copy(update={"tokens": measured_info})


class CharPagination(BaseModel):
    """Character paging of a text: where this page sits and where the next one starts."""

    charOffset: int
    charLength: int
    totalChars: int
    hasMore: bool
    nextCharOffset: int | None = None

    @classmethod
    def of(cls, start: int, end: int, total: int) -> CharPagination:
        """The paging of ``text[start:end]`` in a text of ``total`` characters."""
        return cls(
            charOffset=start,
            charLength=end - start,
            totalChars=total,
            hasMore=end < total,
            nextCharOffset=end if end < total else None,
        )


T = TypeVar("T")


class Pagination(BaseModel):
    """Where this page sits in the whole list."""

    currentPage: int
    totalPages: int
    hasMore: bool


def page_of(items: Sequence[T], per_page: int, page: int) -> tuple[list[T], Pagination]:
    """Page ``page`` (from 1) of ``items``, ``per_page`` a page; an empty list has one page."""
    total_pages = max(1, math.ceil(len(items) / per_page))
    start = (page - 1) * per_page
    return list(items[start : start + per_page]), Pagination(
        currentPage=page, totalPages=total_pages, hasMore=page < total_pages
    )


def page_hints(
    tool: str, params: Mapping[str, Any], field: str, pagination: Pagination, total: int
) -> list[str]:
    """The call for the next page of ``total`` items, or for the last page when the page
    asked for is past it (its answer is ``empty``); ``params`` are the query's own, ``field``
    names its page number."""
    current, last = pagination.currentPage, pagination.totalPages
    if total and current > last:
        return [
            f"Page {current} is past the last page ({last}): "
            + next_call(tool, {**params, field: last})
        ]
    if pagination.hasMore:
        return [f"Next page: {next_call(tool, {**params, field: current + 1})}"]
    return []
