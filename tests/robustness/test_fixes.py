"""Focused tests of the bugs the fuzz tests found, one per fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from octo.errors import InvalidQueryError
from octo.providers.ripgrep import run_rg
from octo.security import PathPolicy


@pytest.mark.parametrize("raw", ["loop", "loop/inner.py", "~nosuchuser-octo/x", "a/" * 3000])
def test_unresolvable_paths_are_invalid_queries(tmp_path: Path, raw: str) -> None:
    # pathlib raised RuntimeError (symlink loop, unknown ~user) or OSError (path too long).
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(InvalidQueryError, match="cannot be resolved") as info:
        PathPolicy([tmp_path]).resolve(raw)
    assert info.value.hints
    assert len(info.value.message) < 200


@pytest.mark.parametrize(
    ("arg", "message"),
    [("a\0b", "NUL character"), ("x" * 200_000, "too long for ripgrep")],
)
async def test_arguments_no_program_can_receive_are_invalid_queries(
    tmp_path: Path, arg: str, message: str
) -> None:
    # subprocess raised ValueError (NUL) or OSError E2BIG (one argument over 128 KiB).
    with pytest.raises(InvalidQueryError, match=message) as info:
        await run_rg(["--", arg, "."], cwd=tmp_path, timeout_ms=5000)
    assert info.value.hints


async def test_too_many_long_globs_together_are_an_invalid_query(tmp_path: Path) -> None:
    # Each glob fits, but together they pass the kernel's limit on all arguments.
    globs = [f"--glob={'g' * 100_000}{i}" for i in range(100)]
    with pytest.raises(InvalidQueryError, match="together are too long"):
        await run_rg([*globs, "x", "."], cwd=tmp_path, timeout_ms=5000)
