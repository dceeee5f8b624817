"""Close places of one file show each line of code once: a reference's lines after stop
before the next reference, whose lines before start after what was shown."""

from __future__ import annotations

from octo.lsp.models import CodeLocation
from octo.lsp.navigation.locations import without_repeated_lines


def _place(path: str, line: int, context: int = 2) -> CodeLocation:
    return CodeLocation(
        path=path,
        line=line,
        character=0,
        content=f"line {line}",
        contextBefore=[f"line {n}" for n in range(line - context, line)],
        contextAfter=[f"line {n}" for n in range(line + 1, line + 1 + context)],
    )


def _shown(place: CodeLocation) -> list[str]:
    return [*place.contextBefore, place.content or "", *place.contextAfter]


def test_close_places_show_each_line_once() -> None:
    places = [_place("a.py", 10), _place("a.py", 12), _place("a.py", 13), _place("b.py", 13)]
    kept = without_repeated_lines(places)
    in_a = [line for place in kept[:3] for line in _shown(place)]
    assert in_a == [f"line {n}" for n in range(8, 16)]  # 8-15, none twice
    assert kept[1].contextBefore == [] and kept[1].contextAfter == []
    assert kept[3] == places[3]  # another file: untouched


def test_far_places_keep_their_context() -> None:
    places = [_place("a.py", 10), _place("a.py", 20)]
    assert without_repeated_lines(places) == places
