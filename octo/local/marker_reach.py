"""Whether a search pattern can match a redaction marker, told before the search runs.

A file that holds a secret is counted over its redacted text, where each hidden value is a
marker (``[REDACTED:github-token]``). A match that touches a marker exists in the redacted
text but not in the raw one, so such a file would be missed by a search of raw text alone:
a pattern with one alternative matching the marker and one probing the hidden value
(``TOKEN = "(\\[|ghp_a)``) would learn from whether the file is listed. Patterns that can
touch a marker therefore also search every secret-holding file of the searched tree.

A match touches a marker either inside its body (it then matches the marker string itself,
whose context the brackets fix) or across one of its brackets (the pattern can match ``[``
or ``]``). The second is read from the pattern's syntax tree, conservatively: whatever is
not understood counts as reaching a marker.
"""

from __future__ import annotations

import importlib
from typing import Any

import re2

from octo.core.secrets.detectors import DETECTORS

#: Every marker redaction writes.
MARKERS = tuple(sorted({f"[REDACTED:{kind}]" for kind in ("secret", *(s.kind for s in DETECTORS))}))
_BRACKETS = (ord("["), ord("]"))

# Python's own regex parser: rg's syntax is close to it, and what it cannot parse, or
# parses in a way not read here, counts as reaching a marker.
_parser: Any = importlib.import_module("re._parser")
_constants: Any = importlib.import_module("re._constants")
_NOT_BRACKET_CATEGORIES = {
    _constants.CATEGORY_DIGIT,
    _constants.CATEGORY_SPACE,
    _constants.CATEGORY_WORD,
    _constants.CATEGORY_LINEBREAK,
}
_NO_CHARACTER = {_constants.AT}
_NESTED = {
    _constants.SUBPATTERN,
    _constants.MAX_REPEAT,
    _constants.MIN_REPEAT,
    _constants.POSSESSIVE_REPEAT,
    _constants.ATOMIC_GROUP,
}


def may_match_marker(pattern: str, *, fixed: bool, case_sensitive: bool) -> bool:
    """Whether a match of ``pattern`` could touch a marker (a superset: never a miss).

    ``case_sensitive`` only when the search certainly is (smart case may not be).
    """
    if fixed:
        if "[" in pattern or "]" in pattern:
            return True
        return _in_marker(re2.escape(pattern), case_sensitive)
    return _in_marker(pattern, case_sensitive) or _may_match_bracket(pattern)


def _quiet_options(case_sensitive: bool) -> Any:
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False  # a caller's bad regex is their error, not lines on our stderr
    return options


def _in_marker(pattern: str, case_sensitive: bool) -> bool:
    try:
        compiled = re2.compile(pattern, options=_quiet_options(case_sensitive))
    except re2.error:
        return True
    return any(compiled.search(marker) for marker in MARKERS)


def _may_match_bracket(pattern: str) -> bool:
    try:
        tree = _parser.parse(pattern)
    except Exception:  # noqa: BLE001 - any pattern Python cannot read counts as reaching
        return True
    return _reaches(tree)


def _reaches(items: Any) -> bool:
    """Whether the parsed ``items`` can consume ``[`` or ``]``."""
    for op, arg in items:
        if op in _NO_CHARACTER:
            continue
        if op == _constants.LITERAL:
            if arg in _BRACKETS:
                return True
        elif op == _constants.IN:
            if _class_reaches(arg):
                return True
        elif op == _constants.BRANCH:
            if any(_reaches(branch) for branch in arg[1]):
                return True
        elif op in _NESTED:
            if _reaches(arg[-1]):
                return True
        else:  # ANY, NOT_LITERAL, back references, lookarounds, whatever comes next
            return True
    return False


def _class_reaches(items: Any) -> bool:
    for op, arg in items:
        if op == _constants.LITERAL:
            if arg in _BRACKETS:
                return True
        elif op == _constants.RANGE:
            low, high = arg
            if any(low <= bracket <= high for bracket in _BRACKETS):
                return True
        elif op != _constants.CATEGORY or arg not in _NOT_BRACKET_CATEGORIES:
            return True  # a negation, a negated category
    return False
