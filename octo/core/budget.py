"""Token budgets: estimate the size of text answers and cut them at line boundaries."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel
from pydantic import Field


def estimate_tokens(text: str, chars_per_token: int = 4) -> int:
    """Tokens a model will spend on ``text``, estimated as characters / chars_per_token."""
    return math.ceil(len(text) / chars_per_token)


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


class TokenInfo(BaseModel):
    """Size and pagination metadata of a text answer (spec 000, section 8)."""

    chars: int
    estimatedTokens: int
    maxTokensPerRequest: int
    truncated: bool = Field(description="True when the token budget cut the content.")
    truncatedAtLine: int | None = Field(
        default=None, description="Last line returned when the budget cut the content."
    )
    requiresPagination: bool = Field(description="True when more content exists after this.")
    paginationHint: str | None = Field(
        default=None, description="The exact parameters that continue reading."
    )


def token_info(
    content: str,
    *,
    max_tokens: int,
    chars_per_token: int = 4,
    truncated_at_line: int | None = None,
    next_step: str | None = None,
    truncated: bool | None = None,
) -> TokenInfo:
    """Metadata for ``content``; ``next_step`` names the parameters that read on.

    ``truncated`` defaults to whether ``truncated_at_line`` is given.
    """
    return TokenInfo(
        chars=len(content),
        estimatedTokens=estimate_tokens(content, chars_per_token),
        maxTokensPerRequest=max_tokens,
        truncated=truncated_at_line is not None if truncated is None else truncated,
        truncatedAtLine=truncated_at_line,
        requiresPagination=next_step is not None,
        paginationHint=f"More content: continue with {next_step}" if next_step else None,
    )


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


def fair_shares(needs: Sequence[int], budget: int) -> list[int]:
    """Split ``budget`` among ``needs`` fairly (water-filling): each gets what it needs up to
    one common level, and what a small need leaves goes to the larger ones."""
    shares = [0] * len(needs)
    left = budget
    for rank, index in enumerate(sorted(range(len(needs)), key=needs.__getitem__)):
        shares[index] = min(needs[index], left // (len(needs) - rank))
        left -= shares[index]
    return shares
