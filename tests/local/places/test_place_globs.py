"""Globs in a local query's path, on real trees with the real rg: they match what the walk of
``"."`` visits (ignore files, dot-entries, the query's opt-ins), folders and, for a search,
files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.local.conftest import Call
from tests.local.conftest import Tree

#: Folders each holding a hit; four of them are ignored by one rule file each.
TREE = {
    "app/m.py": "needle app\n",
    "lib/m.py": "needle lib\n",
    "build/m.py": "needle build\n",
    "cache/m.py": "needle cache\n",
    "scratch/m.py": "needle scratch\n",
    "local/m.py": "needle local\n",
    ".github/m.py": "needle github\n",
    "top.py": "needle top\n",
    ".gitignore": "build/\n",
    ".ignore": "cache/\n",
    ".rgignore": "scratch/\n",
    ".git/info/exclude": "local/\n",
    ".git/HEAD": "ref: refs/heads/main\n",
}


async def one(call: Call, tool: str, **query: Any) -> dict[str, Any]:
    return (await call(tool, query))[0]


@pytest.fixture
def ignoring(tree: Tree) -> Path:
    return tree(TREE)


def _searched(row: dict[str, Any]) -> set[str]:
    """Every file a search answer shows, relative to the tree's root."""
    files = row["data"]["files"]
    return {f"{f.get('place', '.')}/{f['path']}".removeprefix("./") for f in files}


async def test_star_searches_what_dot_searches(call: Call, ignoring: Path) -> None:
    dot = await one(call, "localSearchCode", pattern="needle", path=".")
    star = await one(call, "localSearchCode", pattern="needle", path="*")
    assert star["data"]["places"] == ["app", "lib", "top.py"]
    assert _searched(dot) == {"app/m.py", "lib/m.py", "top.py"}
    assert {p.removeprefix("top.py/") for p in _searched(star)} == _searched(dot)


async def test_the_queries_opt_ins_widen_the_glob_as_they_widen_the_walk(
    call: Call, ignoring: Path
) -> None:
    every = await one(call, "localFindFiles", path="*", noIgnore=True, hidden=True)
    assert every["data"]["places"] == [
        ".github",
        "app",
        "build",
        "cache",
        "lib",
        "local",
        "scratch",
    ]
    ignored = await one(call, "localFindFiles", path="*", noIgnore=True)
    assert ".github" not in ignored["data"]["places"]
    assert "build" in ignored["data"]["places"]
    hidden = await one(call, "localViewStructure", path="*", hidden=True)
    assert hidden["data"]["places"] == [".github", "app", "lib"]
    # A component starting with a dot names dot-entries, as in a shell; each then asks for
    # the opt-in a search of it needs.
    named = await one(call, "localSearchCode", pattern="needle", path=".gith*")
    assert named["error"]["code"] == "PATH_NOT_ALLOWED"
    assert '"hidden":true' in named["hints"][0]


async def test_a_double_star_crosses_folders_but_not_ignored_ones(call: Call, tree: Tree) -> None:
    tree(
        {
            "src/tests/t.py": "hit\n",
            "src/a/b/tests/t.py": "hit\n",
            "src/gen/tests/t.py": "hit\n",
            "src/a/notests/t.py": "hit\n",
            ".gitignore": "gen/\n",
        }
    )
    row = await one(call, "localFindFiles", path="src/**/tests")
    assert row["data"]["places"] == ["a/b/tests", "tests"]


async def test_a_folder_tool_says_when_its_glob_names_files_only(
    call: Call, ignoring: Path
) -> None:
    row = await one(call, "localFindFiles", path="*.py")
    assert row["error"]["code"] == "NOT_FOUND"
    assert "(ignored and dot-entries skipped)" in row["error"]["message"]
    assert "matches files only" in row["hints"][0]
    found = await one(call, "localSearchCode", pattern="needle", path="*.py")
    assert found["status"] == "success"
    assert [f["path"] for f in found["data"]["files"]] == ["top.py"]


async def test_a_glob_leaves_credential_files_out_unless_asked(call: Call, tree: Tree) -> None:
    tree({"conf/a.pem": "needle\n", "conf/b.py": "needle\n"})
    row = await one(call, "localSearchCode", pattern="needle", path="conf/*")
    assert row["data"]["places"] == ["b.py"]
    both = await one(
        call, "localSearchCode", pattern="needle", path="conf/*", includeSensitive=True
    )
    assert both["data"]["places"] == ["a.pem", "b.py"]


async def test_a_name_that_is_not_utf8_is_no_place(call: Call, tree: Tree) -> None:
    # The byte 0xE9 alone (Latin-1 "é"), as a surrogate escape: JSON cannot name it.
    tree({"ok.py": "needle\n", "caf\udce9.py": "needle\n"})
    row = await one(call, "localSearchCode", pattern="needle", path="*")
    assert row["status"] == "success", row
    assert row["data"]["places"] == ["ok.py"]
