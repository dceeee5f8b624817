"""Semantic indexing under a flipping symlink (issue 19): a file and a directory of the tree are
swapped with links to outside content as fast as a thread can while the tree is indexed again
and again; not one run stores the outside content, and a swapped file is skipped and named
rather than failing the run."""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

import pytest

from octo import Config
from octo import Gateway
from octo.semantic.store.interface import ChunkFilter
from octo.semantic.store.sqlite import SqliteStore

pytestmark = pytest.mark.slow
pytest.importorskip("wordllama", reason="semantic indexing needs the semantic extra")

RUNS = 100
OUTSIDE = "outsidesecretmarker"
INSIDE = "insidemarker"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_LIBC = ctypes.CDLL(None, use_errno=True)


def _flip(entry: Path, target: Path, stop: threading.Event, swaps: list[int]) -> None:
    """Swap ``entry`` with a link to ``target`` and back, atomically, until ``stop``."""
    spare = entry.with_name(entry.name + ".link")
    spare.symlink_to(target)
    count = 0
    while not stop.is_set():
        first, second = os.fsencode(entry), os.fsencode(spare)
        if _LIBC.renameat2(_AT_FDCWD, first, _AT_FDCWD, second, _RENAME_EXCHANGE) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")
        count += 1
    swaps.append(count)


def _leaks(store: SqliteStore, name: str) -> list[str]:
    """Where the outside content is in index ``name``: stored file texts and chunks."""
    found = [
        path for path in store.file_states(name) if OUTSIDE in (store.file_text(name, path) or "")
    ]
    hits = store.keyword(name, [OUTSIDE], ChunkFilter(), 10)
    found += [
        c.path for c in store.chunks(name, [i for i, _ in hits]) if OUTSIDE in c.chunk.content
    ]
    return found


async def test_index_runs_under_a_flipping_symlink_never_store_outside_content(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    (outside / "pkg").mkdir(parents=True)
    (outside / "secret.py").write_text(f"def leaked():\n    return '{OUTSIDE}'\n")
    (outside / "pkg" / "mod.py").write_text(f"def leaked_too():\n    return '{OUTSIDE}'\n")
    root = tmp_path / "root"
    (root / "pkg").mkdir(parents=True)
    (root / "flip.py").write_text(f"def kept():\n    return '{INSIDE}'\n")
    (root / "pkg" / "mod.py").write_text(f"def kept_too():\n    return '{INSIDE}'\n")
    (root / "steady.py").write_text("def steady():\n    return 1\n")
    root = root.resolve()
    index_dir = tmp_path / "indexes"
    env = {"HOME": str(tmp_path / "home"), "OCTO_INDEX_DIR": str(index_dir)}
    stop = threading.Event()
    swaps: list[int] = []
    threads = [
        threading.Thread(target=_flip, args=(root / "flip.py", outside / "secret.py", stop, swaps)),
        threading.Thread(target=_flip, args=(root / "pkg", outside / "pkg", stop, swaps)),
    ]
    store = SqliteStore(index_dir)
    leaks: list[str] = []
    skipped = 0
    gateway = Gateway(Config.from_env(env), roots=[root])  # not entered: keyword side only
    try:
        for thread in threads:
            thread.start()
        for _ in range(RUNS):
            response = await gateway.call(
                "semanticIndexCodebase", [{"path": ".", "indexName": "race"}]
            )
            [result] = response.results
            assert result.data is not None, result.error
            skipped += result.data.stats.filesSkipped
            leaks += _leaks(store, "race")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
        await gateway.aclose()
        store.close()
    assert sum(swaps) > RUNS, "the flipping threads barely ran"
    assert leaks == []
    assert skipped > 0, "no run met a swapped file: the race was not exercised"


async def test_unreadable_and_hostile_files_are_skipped_named_and_the_rest_indexed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "good.py").write_text("def good():\n    return 1\n")
    (root / "blob.py").write_bytes(b"def x():\n\x00\x01\x02 binary")
    # Classes nested deeper than Python's recursion limit: the chunker cannot take it.
    nested = "".join(" " * i + f"class C{i}:\n" for i in range(600)) + " " * 600 + "pass\n"
    (root / "nested.py").write_text(nested)
    env = {"HOME": str(tmp_path / "home"), "OCTO_INDEX_DIR": str(tmp_path / "indexes")}
    gateway = Gateway(Config.from_env(env), roots=[root.resolve()])
    try:
        response = await gateway.call("semanticIndexCodebase", [{"path": ".", "indexName": "some"}])
    finally:
        await gateway.aclose()
    [result] = response.results
    assert result.data is not None, result.error
    stats = result.data.stats
    assert stats.filesAdded == 1 and stats.filesSkipped == 2
    assert stats.skipped == [
        "blob.py: 'blob.py' is binary",
        "nested.py: 'nested.py' is nested too deeply to chunk",
    ]
    assert any("skipped" in hint for hint in result.hints)
