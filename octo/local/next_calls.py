"""Parameters of the follow-up calls that every local tool's hints suggest."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from octo.core.secrets.sensitive import is_sensitive

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
