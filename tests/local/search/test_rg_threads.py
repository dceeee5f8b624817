"""rg runs on one thread where a search's work is small (a page of small files, a walk of a
tree known small from its last walk), and keeps its default threads elsewhere: the answer
is the same either way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from octo.core.files.confined import Opened
from octo.core.files.confined import open_confined
from octo.local.search.models import LocalSearchCodeQuery
from octo.local.search.passes import walk_args
from octo.local.search.rg_output import Searched
from octo.local.search.rg_output import read_counts
from octo.local.search.rg_threads import SMALL_BYTES
from octo.local.search.rg_threads import SMALL_FILES
from octo.local.search.rg_threads import WalkKey
from octo.local.search.rg_threads import files_threads
from octo.local.search.rg_threads import is_small
from octo.local.search.rg_threads import learn_walk
from octo.local.search.rg_threads import page_threads
from octo.local.search.rg_threads import walk_key
from octo.local.search.rg_threads import walk_threads
from tests.local.conftest import Call
from tests.local.conftest import CallOne
from tests.local.conftest import Tree

ONE_THREAD = ["--threads=1"]


def _opened(path: Path, *, directory: bool = False) -> Opened:
    return open_confined(path.parent, path, path.name, directory=directory)


@pytest.fixture
def opened_root(root: Path) -> Iterator[Opened]:
    with _opened(root, directory=True) as opened:
        yield opened


def _search_walk(opened: Opened, **query: Any) -> WalkKey:
    """The walk a localSearchCode query of the whole opened directory makes."""
    checked = LocalSearchCodeQuery(path=str(opened.path), **query)
    return walk_key(opened, ["."], walk_args(checked, ()))


def _without_time(envelope: dict[str, Any]) -> dict[str, Any]:
    data = dict(envelope["data"])
    data["stats"] = {k: v for k, v in data["stats"].items() if k != "searchTimeMs"}
    return {**envelope, "data": data}


def test_small_work_is_at_most_so_many_files_and_bytes() -> None:
    assert is_small(117, 387_314)
    assert is_small(SMALL_FILES, SMALL_BYTES)
    assert not is_small(SMALL_FILES + 1, 1000)
    assert not is_small(2, SMALL_BYTES + 1)


def test_the_files_a_find_chose_are_searched_on_one_thread_when_few_and_small() -> None:
    assert files_threads(20, 80_000) == ONE_THREAD
    assert files_threads(2000, 80_000) == []
    assert files_threads(20, None) == []


async def test_a_find_and_search_of_few_small_files_finds_every_match(
    tree: Tree, call: Call, opened_root: Opened
) -> None:
    tree({f"m{i}.py": f"class E{i}Error(Exception):\n    pass\n" for i in range(12)})
    query = {"path": str(opened_root.path), "name": "*.py", "pattern": r"class \w+Error\("}
    (found,) = await call("localFindAndSearchCode", query)
    assert found["data"]["stats"]["filesWithMatches"] == 12
    assert found["data"]["find"]["searchedFileCount"] == 12


def test_a_page_of_small_files_is_read_on_one_thread_a_large_page_on_rgs_default(
    tmp_path: Path,
) -> None:
    small = tmp_path / "small.py"
    small.write_text("x = 1\n")
    large = tmp_path / "large.txt"
    large.write_bytes(b"y\n" * (SMALL_BYTES // 2 + 1))
    with _opened(small) as one, _opened(large) as other:
        assert page_threads([one]) == ONE_THREAD
        assert page_threads([one, other]) == []


def test_a_walk_known_small_from_complete_stats_runs_on_one_thread(
    opened_root: Opened,
) -> None:
    key = walk_key(opened_root, ["."], ["--no-require-git", "--type=py"])
    other_filters = walk_key(opened_root, ["."], ["--no-require-git", "--type=rust"])
    learn_walk(other_filters, None, None)  # (an earlier test's directory may share the inode)
    learn_walk(key, 117, 387_314)
    assert walk_threads(key) == ONE_THREAD
    assert walk_threads(other_filters) == []
    # Cut short (no stats), or grown: rg's default threads again.
    learn_walk(key, None, None)
    assert walk_threads(key) == []
    learn_walk(key, 117, 387_314)
    learn_walk(key, 5000, 30_000_000)
    assert walk_threads(key) == []


def test_the_counting_pass_reads_what_rg_searched_from_its_stats() -> None:
    stdout = b"./a.py\x002\n\n2 matches\n1 files contained matches\n3 files searched\n"
    stdout += b"0 bytes printed\n120 bytes searched\n"
    found, searched = read_counts(stdout, include_sensitive=False, include_hidden=False)
    assert [(entry.arg, entry.matched_lines) for entry in found] == [(b"./a.py", 2)]
    assert searched == Searched(files=3, bytes=120)
    _, cut_short = read_counts(b"./a.py\x002\n\n\n", include_sensitive=False, include_hidden=False)
    assert cut_short is None


async def test_a_search_of_a_small_tree_teaches_its_next_walk_one_thread(
    tree: Tree, search: CallOne, opened_root: Opened
) -> None:
    tree({f"pkg/m{i}.py": f"class E{i}Error(Exception):\n    pass\n" for i in range(30)})
    walk = _search_walk(opened_root, pattern=r"class \w+Error\(")
    learn_walk(walk, None, None)  # (an earlier test's directory may share the inode)
    first = await search(pattern=r"class \w+Error\(", path=str(opened_root.path))
    assert walk_threads(walk) == ONE_THREAD
    again = await search(pattern=r"class \w+Error\(", path=str(opened_root.path))
    assert first["data"]["stats"]["filesWithMatches"] == 30
    assert _without_time(again) == _without_time(first)


async def test_a_walk_stopped_at_max_count_teaches_nothing(
    tree: Tree, search: CallOne, opened_root: Opened
) -> None:
    tree({"a.py": "x\nx\n", "b.py": "x\n"})
    walk = _search_walk(opened_root, pattern="x", maxCount=1)
    learn_walk(walk, None, None)
    await search(pattern="x", path=str(opened_root.path), maxCount=1)
    assert walk_threads(walk) == []
