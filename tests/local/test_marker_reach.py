"""Which patterns can touch a redaction marker: a superset, never a miss."""

from __future__ import annotations

import pytest
import re2

from octo.local.marker_reach import MARKERS
from octo.local.marker_reach import may_match_marker


@pytest.mark.parametrize(
    "pattern",
    [
        r'TOKEN = "(\[|ghp_a)',
        "token",
        "ACTED",
        r"\w+",
        "foo.*bar",
        "[A-z]+",
        "[^a]x",
        r"\W",
        r"\S+secret",
        r"\pL+",
        r"x\x5b",
        "(?P<n>a)|]",
        "[[:alpha:]]",
        "((",
    ],
)
def test_a_pattern_that_can_touch_a_marker_is_told(pattern: str) -> None:
    assert may_match_marker(pattern, fixed=False, case_sensitive=True)


@pytest.mark.parametrize(
    "pattern", ["def main", r"def \w+\(", "useState", "x[0-9]+y", "get_(user|name)", r"^\s*import"]
)
def test_a_pattern_that_cannot_is_searched_as_before(pattern: str) -> None:
    assert not may_match_marker(pattern, fixed=False, case_sensitive=False)


def test_fixed_strings_and_case() -> None:
    assert may_match_marker("a[b", fixed=True, case_sensitive=True)
    assert may_match_marker("(a]", fixed=True, case_sensitive=True)
    assert may_match_marker("REDACT", fixed=True, case_sensitive=True)
    assert not may_match_marker("Token", fixed=True, case_sensitive=True)
    assert may_match_marker("Token", fixed=True, case_sensitive=False)


def test_every_marker_holds_its_word() -> None:
    assert all(re2.search(r"\[REDACTED:[a-z-]+\]", marker) for marker in MARKERS)
    assert "[REDACTED:secret]" in MARKERS and "[REDACTED:private-key]" in MARKERS
