"""Fitting a page of search matches into the token budget."""

from __future__ import annotations

from dataclasses import dataclass

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
    cut: int | None = None
    cut_after_line: int | None = None
    unshown_lines: tuple[int, ...] = ()


def _match_lines(match: SearchMatch) -> list[str]:
    return [*(match.beforeContext or ()), match.content, *(match.afterContext or ())]


def fit_budget(files: list[SearchFile], budget_chars: int) -> PageFit:
    """Keep matches, in page order, while their lines fit ``budget_chars``.

    The first match always stays, so every page shows something. From the first
    match that does not fit, the files keep their path and matchCount only, and
    their pagination says how many matches they show.
    """
    shown: list[str] = []
    used = 0
    for index, file in enumerate(files):
        shown.append(file.path)
        for position, match in enumerate(file.matches or ()):
            lines = _match_lines(match)
            cost = sum(len(line) + 1 for line in lines)
            if used and used + cost > budget_chars:
                return _cut_page(files, index, position, "\n".join(shown))
            shown += lines
            used += cost
    return PageFit(files, "\n".join(shown))


def _cut_page(files: list[SearchFile], index: int, position: int, text: str) -> PageFit:
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
        cut=index,
        cut_after_line=kept[-1].lineNumber if kept else None,
        unshown_lines=unshown,
    )
