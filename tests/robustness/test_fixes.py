"""Focused tests of the bugs the fuzz tests found, one per fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from octo.errors import InvalidQueryError
from octo.security import PathPolicy


@pytest.mark.parametrize("raw", ["loop", "loop/inner.py", "~nosuchuser-octo/x", "a/" * 3000])
def test_unresolvable_paths_are_invalid_queries(tmp_path: Path, raw: str) -> None:
    # pathlib raised RuntimeError (symlink loop, unknown ~user) or OSError (path too long).
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(InvalidQueryError, match="cannot be resolved") as info:
        PathPolicy([tmp_path]).resolve(raw)
    assert info.value.hints
    assert len(info.value.message) < 200
