"""A symlink flipped against a regular file (or directory) as fast as a thread can, while
reads, searches and listings repeat: not one answer holds the outside content."""

from __future__ import annotations

import ctypes
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from octo.faces.library import Gateway

pytestmark = pytest.mark.slow

OUTSIDE = "OUTSIDE-SECRET-MARKER"
INSIDE = "inside marker"
NAME = "inside-only-name.txt"


@dataclass
class Flipping:
    root: Path
    flips: int = 0


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_LIBC = ctypes.CDLL(None, use_errno=True)


def _exchange(first: Path, second: Path) -> None:
    """Swap two directory entries in one step (renameat2 RENAME_EXCHANGE, Linux)."""
    done = _LIBC.renameat2(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    if done != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error), str(first))


def _flip(entry: Path, link_target: Path, stop: threading.Event) -> int:
    """Swap ``entry`` (a regular file or directory) with a link to ``link_target`` and back,
    each swap atomic, as fast as the thread can until ``stop``; returns the swaps made."""
    spare = entry.with_name(entry.name + ".link")
    spare.symlink_to(link_target)
    swaps = 0
    while not stop.is_set():
        _exchange(entry, spare)
        swaps += 1
    return swaps


@pytest.fixture
def flipping(tmp_path: Path) -> Iterator[Flipping]:
    """``root/flip`` (a file) and ``root/dirflip`` (a directory) flip against links to files
    outside the root for as long as the test runs."""
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.txt").write_text(f"{OUTSIDE} marker\n")
    (outside / "dir" / "file.txt").write_text(f"{OUTSIDE} marker\n")
    (outside / "dir" / "outside-only-name.txt").write_text(f"{OUTSIDE}\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "flip").write_text(f"{INSIDE}\n")
    (root / "dirflip").mkdir()
    (root / "dirflip" / "file.txt").write_text(f"{INSIDE}\n")
    (root / "dirflip" / NAME).write_text(f"{INSIDE}\n")
    stop = threading.Event()
    state = Flipping(root)
    counts: list[int] = []
    jobs = [(root / "flip", outside / "secret.txt"), (root / "dirflip", outside / "dir")]
    threads = [
        threading.Thread(target=lambda job=job: counts.append(_flip(job[0], job[1], stop)))
        for job in jobs
    ]
    for thread in threads:
        thread.start()
    try:
        yield state
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
        state.flips = sum(counts)
        assert state.flips > 100, "the flipping threads barely ran"


async def _run(
    gateway: Gateway, tool: str, query: dict[str, Any], times: int, inside: str = INSIDE
) -> list[str]:
    """The answers of ``times`` calls, as JSON; none may be an INTERNAL_ERROR, and both
    sides of the flip must have been met (an inside answer and a refusal or absence)."""
    answers: list[str] = []
    for _ in range(times):
        response = await gateway.call(tool, [query])
        [row] = response.to_wire()["results"]
        assert row.get("error", {}).get("code") != "INTERNAL_ERROR", row
        answers.append(json.dumps(row))
    assert any(inside in answer for answer in answers)
    return answers


def _leaks(answers: list[str], marker: str = OUTSIDE) -> list[str]:
    return [answer for answer in answers if marker in answer]


async def test_reads_never_show_the_outside_file(flipping: Flipping) -> None:
    async with Gateway(roots=[flipping.root]) as gateway:
        answers = await _run(gateway, "localGetFileContent", {"path": "flip"}, 600)
        answers += await _run(gateway, "localGetFileContent", {"path": "dirflip/file.txt"}, 600)
    assert _leaks(answers) == []


async def test_searches_never_show_the_outside_file(flipping: Flipping) -> None:
    marker = {"pattern": "marker", "contextLines": 1}
    async with Gateway(roots=[flipping.root]) as gateway:
        answers = await _run(gateway, "localSearchCode", {**marker, "path": "flip"}, 200)
        answers += await _run(gateway, "localSearchCode", {**marker, "path": "dirflip"}, 200)
        answers += await _run(gateway, "localSearchCode", {**marker, "path": "."}, 200)
    assert _leaks(answers) == []


async def test_listings_never_show_the_outside_directory(flipping: Flipping) -> None:
    async with Gateway(roots=[flipping.root]) as gateway:
        answers = await _run(gateway, "localViewStructure", {"path": "dirflip"}, 200, NAME)
        answers += await _run(gateway, "localFindFiles", {"path": "dirflip"}, 200, NAME)
    assert _leaks(answers, "outside-only-name") == []
