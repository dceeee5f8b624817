"""Matching lines as the search and read answers show them: clipped, grouped with context."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence

from octo.local.models import SearchMatch

#: Longest line returned; a longer (minified) line is cut around its match.
MAX_LINE_CHARS = 300


def clip_line(
    text: str, focus: int = 0, limit: int = MAX_LINE_CHARS, keep: Sequence[tuple[int, int]] = ()
) -> str:
    """``text`` cut to ``limit`` characters around ``focus``, saying how much was cut; a span
    of ``keep`` a cut would fall inside is shown whole (:func:`kept_whole`)."""
    if len(text) <= limit:
        return text
    start = max(0, min(focus - limit // 4, len(text) - limit))
    start, end = kept_whole(start, start + limit, keep)
    head = f"[...{start} chars] " if start else ""
    tail = f" [...{len(text) - end} chars]" if end < len(text) else ""
    return head + text[start:end] + tail


def kept_whole(start: int, end: int, keep: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """The window ``start``-``end`` of a text widened so that no cut falls inside a span of
    ``keep`` (in order, apart): a secret's, which the output redaction then finds whole in
    what is shown, and hides (a cut piece of it it might not know)."""
    for low, high in keep:
        if low < start < high:
            start = low
        if low < end < high:
            end = high
    return start, end


def strip_newline(text: str) -> str:
    """``text`` without its line ending ("\\n" or "\\r\\n")."""
    return text[:-1].removesuffix("\r") if text.endswith("\n") else text


def group_matches(
    lines: Iterable[tuple[int, str, bool]], after: int, ends: Mapping[int, int] | None = None
) -> list[SearchMatch]:
    """Matches with their context, from numbered ``(line, text, is_match)`` lines in order.

    Each context line is attached once: after the previous match when within
    ``after`` lines of its end, else before the next match. A match ends on its own
    line, or where ``ends`` says (multiline matches, by their first line). Lines after
    the last match beyond its context are dropped.
    """
    ends = ends or {}
    built: list[tuple[int, str, list[str], list[str]]] = []
    before: list[str] = []
    for number, text, is_match in lines:
        if is_match:
            built.append((number, text, before, []))
            before = []
        elif built and number - ends.get(built[-1][0], built[-1][0]) <= after and not before:
            built[-1][3].append(text)
        else:
            before.append(text)
    return [
        SearchMatch(
            lineNumber=number,
            content=text,
            beforeContext=prior or None,
            afterContext=after or None,
        )
        for number, text, prior, after in built
    ]
