"""One pagination model, one page helper and one way to the next (or last) page for every
tool that pages a list."""

from __future__ import annotations

import math
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import TypeVar

from pydantic import BaseModel

from octo.core.formats import compact_json

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
            f"Page {current} is past the last page ({last}): {tool} "
            + compact_json({**params, field: last})
        ]
    if pagination.hasMore:
        return [f"Next page: {tool} {compact_json({**params, field: current + 1})}"]
    return []
