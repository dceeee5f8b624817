"""One pagination model and one page helper for every tool that pages a list."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

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
