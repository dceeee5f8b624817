"""Matching lines as the search and read answers show them: clipped, grouped with context."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping

from octo.local.models import SearchMatch

#: Longest line returned; a longer (minified) line is cut around its match.
MAX_LINE_CHARS = 300


def clip_line(text: str, focus: int = 0, limit: int = MAX_LINE_CHARS) -> str:
    """``text`` cut to ``limit`` characters around ``focus``, saying how much was cut."""
    if len(text) <= limit:
        return text
    start = max(0, min(focus - limit // 4, len(text) - limit))
    end = start + limit
    head = f"[...{start} chars] " if start else ""
    tail = f" [...{len(text) - end} chars]" if end < len(text) else ""
    return head + text[start:end] + tail


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
