"""The code paths of platforms without setpriv and /proc (macOS, Windows), forced on Linux:
children start as they are, a checked file reaches a child by its path (no /proc/self/fd),
and the tools that start children still answer."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from octo.core.files import confined
from octo.transports import processes
from tests.limits.conftest import Run


@pytest.fixture
def without_setpriv(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """sys.platform says macOS; the cached platform lookups are made again, before and after."""
    monkeypatch.setattr(sys, "platform", "darwin")
    processes._setpriv.cache_clear()
    confined._proc_fds.cache_clear()
    yield
    monkeypatch.undo()
    processes._setpriv.cache_clear()
    confined._proc_fds.cache_clear()


def test_a_child_starts_as_it_is_where_there_is_no_setpriv(without_setpriv: None) -> None:
    assert processes.child_command(["rg", "--version"]) == ["rg", "--version"]
    assert not confined._proc_fds()
    argv = processes.child_command(["server", "--stdio"], with_children=True)
    assert argv == ["server", "--stdio"]


async def test_searches_that_start_children_answer_without_setpriv(
    without_setpriv: None, run: Run, root: Path
) -> None:
    (root / "app.py").write_text("def main():\n    return helper(1)\n")
    [search] = await run("localSearchCode", [{"pattern": "def main", "path": "."}])
    [structure] = await run(
        "localSearchStructure", [{"pattern": "helper($A)", "language": "python", "path": "."}]
    )
    [files] = await run("localFindFiles", [{"path": ".", "name": "*.py"}])
    assert [search["status"], structure["status"], files["status"]] == ["success"] * 3
