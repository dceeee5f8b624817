"""Parameters of the follow-up calls that every local tool's hints suggest."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from octo.core.sensitive import is_sensitive

_REGEX_SYNTAX = re.compile(r"[\\^$.|?*+()\[\]{}]")


def read_params(start: Path, rel: str) -> dict[str, Any]:
    """localGetFileContent's exact parameters for ``rel`` below ``start``, with the opt-ins
    (hidden, includeSensitive) it needs."""
    params: dict[str, Any] = {"path": str(start / rel)}
    if any(part.startswith(".") for part in rel.split("/")):
        params["hidden"] = True
    if is_sensitive(rel):
        params["includeSensitive"] = True
    return params


def has_regex_syntax(pattern: str) -> bool:
    """True when ``pattern`` holds a character that means something in a regex."""
    return _REGEX_SYNTAX.search(pattern) is not None


# Constructs nobody types by accident in literal text: character classes and escapes (\w, \d,
# \s, \b), wildcards (.* .+), alternation, a bracketed class, an anchor at either end.
_INTENDED_REGEX = re.compile(r"\\[wdsbWDSB]|\.[*+?]|\||\[[^\]]+\]|^\^|(?<!\\)\$$")


def is_intended_regex(pattern: str) -> bool:
    """True when ``pattern`` is plainly written as a regex (``class \\w+Error``, ``foo|bar``),
    so searching its text literally is no way out of an empty answer."""
    return _INTENDED_REGEX.search(pattern) is not None
