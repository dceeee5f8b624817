"""Fitting a page of search matches into the token budget."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from octo.core.budget import FIT_ROUNDS
from octo.local.models import SearchMatch
from octo.local.search.models import MatchPagination
from octo.local.search.models import SearchFile


@dataclass(frozen=True)
class PageFit:
    """A page's files with their matches cut to the token budget, in page order.

    ``cut`` is the index of the file where matches stopped (None: all fit);
    ``text`` is what the page shows, for its size.
    """

    files: list[SearchFile]
    text: str
    used: int
    cut: int | None = None
    cut_after_line: int | None = None
    unshown_lines: tuple[int, ...] = ()


def _match_lines(match: SearchMatch) -> list[str]:
    return [*(match.beforeContext or ()), match.content, *(match.afterContext or ())]


#: What a file's entry costs beside its matches: its path's JSON, matchCount, pagination.
FILE_ENTRY_CHARS = 80


def fit_page(
    files: list[SearchFile], budget_chars: int, answer_chars: Callable[[PageFit], int]
) -> PageFit:
    """The page cut so that the whole answer (``answer_chars``: its characters as sent, what
    its estimatedTokens counts) fits ``budget_chars``: each round takes what the rest of the
    answer (root, stats, the tokens block, hints in it) took beyond the budget off what the
    matches used, a few rounds at most; the first match always stays."""
    fit = fit_budget(files, budget_chars)
    for _round in range(FIT_ROUNDS):
        over = answer_chars(fit) - budget_chars
        if over <= 0 or fit.used <= 0:
            return fit
        fit = fit_budget(files, max(0, fit.used - over))
    return fit


def fit_budget(files: list[SearchFile], budget_chars: int) -> PageFit:
    """Keep matches, in page order, while they fit ``budget_chars`` as sent (each match's
    compact JSON, so field names count as the answer's estimatedTokens counts them).

    The first match always stays, so every page shows something. From the first
    match that does not fit, the files keep their path and matchCount only, and
    their pagination says how many matches they show.
    """
    shown: list[str] = []
    used = 0
    for index, file in enumerate(files):
        shown.append(file.path)
        used += len(file.path) + FILE_ENTRY_CHARS
        for position, match in enumerate(file.matches or ()):
            lines = _match_lines(match)
            cost = len(match.model_dump_json(exclude_none=True)) + 1
            if (index or position) and used + cost > budget_chars:
                return _cut_page(files, index, position, "\n".join(shown), used)
            shown += lines
            used += cost
    return PageFit(files, "\n".join(shown), used)


def _cut_page(files: list[SearchFile], index: int, position: int, text: str, used: int) -> PageFit:
    cut_file = files[index]
    kept = (cut_file.matches or [])[:position]
    unshown = tuple(m.lineNumber for m in (cut_file.matches or [])[position:])
    partial = cut_file.model_copy(
        update={
            "matches": kept or None,
            "pagination": MatchPagination(hasMore=True, matchesOnPage=len(kept)),
        }
    )
    rest = [
        file.model_copy(
            update={"matches": None, "pagination": MatchPagination(hasMore=True, matchesOnPage=0)}
        )
        for file in files[index + 1 :]
    ]
    text += "".join("\n" + file.path for file in rest)
    return PageFit(
        [*files[:index], partial, *rest],
        text,
        used,
        cut=index,
        cut_after_line=kept[-1].lineNumber if kept else None,
        unshown_lines=unshown,
    )
