"""localFindAndSearchCode on the real rg: localFindFiles' filters choose the files, then
localSearchCode's passes search only those, in one call."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config

from .conftest import Call
from .conftest import CallOne
from .conftest import Tree
from .conftest import hinted_query
from .conftest import paths

TOOL = "localFindAndSearchCode"


@pytest.fixture
def find_search(call: Call) -> CallOne:
    async def run(**query: Any) -> dict[str, Any]:
        return (await call(TOOL, query))[0]

    return run


@pytest.fixture
def project(tree: Tree) -> Path:
    root = tree(
        {
            "src/app.py": "TODO: app\n",
            "src/app.ts": "TODO: ts\n",
            "src/lib/util.py": "TODO: util\nTODO: more\n",
            "src/lib/deep/a/b/c/leaf.py": "TODO: leaf\n",
            "tests/test_app.py": "TODO: test\n",
            "docs/notes.md": "TODO: docs\n",
            "build/out.py": "TODO: built\n",
            ".gitignore": "build/\n",
            ".github/ci.py": "TODO: hidden\n",
            "src/.env": "TODO=secret\n",
        }
    )
    now = time.time()
    for age, rel in enumerate(["tests/test_app.py", "src/app.py", "src/lib/util.py"]):
        os.utime(root / rel, (now - age * 86400, now - age * 86400))
    os.utime(root / "src/app.ts", (now - 30 * 86400, now - 30 * 86400))
    return root


async def test_searches_only_the_files_found(project: Path, find_search: CallOne) -> None:
    found = await find_search(path=".", names=["*.py"], pattern="TODO")
    assert found["status"] == "success"
    data = found["data"]
    # leaf.py is 6 levels down (maxDepth 5); build/ is ignored, .github hidden, .env sensitive.
    assert paths(found) == ["src/app.py", "src/lib/util.py", "tests/test_app.py"]
    assert data["root"] == str(project)
    assert data["stats"]["filesSearched"] == 3 and data["stats"]["totalMatches"] == 4
    find = data["find"]
    assert (find["searchedFileCount"], find["truncated"]) == (3, False)
    assert isinstance(find["findMs"], int) and isinstance(find["searchMs"], int)
    assert data["files"][1]["matches"] == [
        {"lineNumber": 1, "content": "TODO: util"},
        {"lineNumber": 2, "content": "TODO: more"},
    ]
    assert data["tokens"]["chars"] == len(json.dumps(data, separators=(",", ":")))


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"extensions": ["ts", "md"]}, ["docs/notes.md", "src/app.ts"]),
        ({"name": "app*"}, ["src/app.py", "src/app.ts"]),
        ({"iname": "APP.*"}, ["src/app.py", "src/app.ts"]),
        ({"names": ["*.md"], "maxDepth": 1}, []),
        (
            {"names": ["*.py"], "maxDepth": 10, "minDepth": 3},
            ["src/lib/deep/a/b/c/leaf.py", "src/lib/util.py"],
        ),
        ({"names": ["*.py"], "excludeDir": ["lib"]}, ["src/app.py", "tests/test_app.py"]),
        ({"names": ["*.py"], "modifiedWithin": "36h"}, ["src/app.py", "tests/test_app.py"]),
        ({"names": ["*.py"], "sizeGreater": "15"}, ["src/lib/util.py"]),
        ({"fullPathMatch": True, "name": "src/*.py"}, ["src/app.py", "src/lib/util.py"]),
        (
            {"names": ["*.py", "*.md"], "iname": "APP.TS"},
            ["docs/notes.md", "src/app.py", "src/app.ts", "src/lib/util.py", "tests/test_app.py"],
        ),
        ({"names": ["*"], "type": "py"}, ["src/app.py", "src/lib/util.py", "tests/test_app.py"]),
        ({"names": ["*.py"], "include": ["src/**"]}, ["src/app.py", "src/lib/util.py"]),
        ({"names": ["*.py"], "exclude": ["tests/**"]}, ["src/app.py", "src/lib/util.py"]),
        (
            {"names": ["*.py"], "noIgnore": True},
            ["build/out.py", "src/app.py", "src/lib/util.py", "tests/test_app.py"],
        ),
        (
            {"names": ["*.py"], "hidden": True},
            [".github/ci.py", "src/app.py", "src/lib/util.py", "tests/test_app.py"],
        ),
        (
            {
                "names": ["*"],
                "includeSensitive": True,
                "hidden": True,
                "excludeDir": [".github", "src/lib"],
            },
            [
                ".gitignore",
                "docs/notes.md",
                "src/.env",
                "src/app.py",
                "src/app.ts",
                "tests/test_app.py",
            ],
        ),
    ],
)
async def test_find_filters_choose_the_files(
    project: Path, find_search: CallOne, filters: dict[str, Any], expected: list[str]
) -> None:
    found = await find_search(path=".", pattern="TODO|build", **filters)
    assert paths(found) == expected
    assert found["data"]["find"]["searchedFileCount"] >= len(expected)


async def test_hidden_walks_never_search_git_internals(tree: Tree, find_search: CallOne) -> None:
    root = tree({"a.py": "TODO\n", ".git/config": "TODO\n", ".git/hooks/x.py": "TODO\n"})
    found = await find_search(path=str(root), names=["*"], hidden=True, pattern="TODO")
    assert paths(found) == ["a.py"]


async def test_file_limit_keeps_the_first_in_sort_order(project: Path, call: Call) -> None:
    base = {"path": ".", "names": ["*.py"], "pattern": "TODO", "fileLimit": 2}
    by_path, by_time, by_size = await call(
        TOOL, base, {**base, "sortBy": "modified"}, {**base, "sortBy": "size"}
    )
    assert paths(by_path) == ["src/app.py", "src/lib/util.py"]
    assert paths(by_time) == ["src/app.py", "tests/test_app.py"]
    assert paths(by_size)[0] == "src/lib/util.py"
    for answer in (by_path, by_time, by_size):
        assert answer["data"]["find"] == {
            **answer["data"]["find"],
            "searchedFileCount": 2,
            "truncated": True,
        }
    assert any(h.startswith("fileLimit searched the first 2 of 3 files") for h in by_path["hints"])


async def test_output_modes_and_paging_come_from_the_search(project: Path, call: Call) -> None:
    base = {"path": ".", "names": ["*.py", "*.md"], "pattern": "TODO"}
    total, counts, paged = await call(
        TOOL,
        {**base, "outputMode": "totalOnly"},
        {**base, "outputMode": "countOnly"},
        {**base, "filesPerPage": 2},
    )
    assert set(total["data"]) == {"stats", "find"}
    assert total["data"]["stats"]["totalMatches"] == 5
    assert counts["data"]["files"][0] == {"path": "src/lib/util.py", "matchCount": 2}
    following = hinted_query(paged, f"Next page: {TOOL}")
    assert following == {**base, "filesPerPage": 2, "filePageNumber": 2}
    (second,) = await call(TOOL, following)
    assert paths(second) == ["src/lib/util.py", "tests/test_app.py"]


async def test_nothing_found_is_empty_with_a_way_to_look(
    project: Path, find_search: CallOne
) -> None:
    found = await find_search(path="src", names=["*.rs"], pattern="TODO")
    assert found["status"] == "empty"
    assert found["data"]["find"]["searchedFileCount"] == 0
    assert hinted_query(found, "No file passed the find filters") == {
        "path": str(project / "src"),
        "maxDepth": 5,
    }
    assert not any(h.startswith("No file passed the filters:") for h in found["hints"])


async def test_roots_and_bad_queries_fail_alone(project: Path, tmp_path: Path, call: Call) -> None:
    outside, too_many, clash, good = await call(
        TOOL,
        {"path": str(tmp_path), "pattern": "TODO"},
        {"path": ".", "pattern": "TODO", "fileLimit": 20000},
        {"path": ".", "pattern": "TODO", "outputMode": "totalOnly", "contextLines": 1},
        {"path": ".", "pattern": "TODO", "name": "*.md"},
    )
    assert outside["error"]["code"] == "PATH_NOT_ALLOWED"
    assert too_many["error"]["code"] == "VALIDATION_ERROR"
    assert hinted_query(too_many, "Valid form of this query")["fileLimit"] == 10000
    assert "totalOnly" in clash["error"]["message"] and "contextLines" in clash["error"]["message"]
    assert "contextLines" not in hinted_query(clash, "Valid form of this query")
    assert good["status"] == "success"


async def test_spec_003_find_names_are_steered(project: Path, find_search: CallOne) -> None:
    bad = await find_search(path=".", pattern="TODO", file_limit=5, changed_within="1d")
    message = bad["error"]["message"]
    assert "did you mean fileLimit?" in message and "did you mean modifiedWithin?" in message
    assert hinted_query(bad, "Valid form of this query") == {
        "pattern": "TODO",
        "path": ".",
        "fileLimit": 5,
        "modifiedWithin": "1d",
    }


@pytest.mark.slow
async def test_file_sets_beyond_the_command_line_limit_reach_rg(root: Path) -> None:
    """10000 files whose names together exceed Linux's 2 MiB for a whole command line."""
    folder = root / ("d" * 200)
    folder.mkdir()
    for index in range(10_000):
        (folder / f"file_{index:05d}.txt").write_text("needle\n" if index % 2 else "hay\n")
    names = sum(len(f"{folder.name}/file_{i:05d}.txt") + 1 for i in range(10_000))
    assert names > os.sysconf("SC_ARG_MAX")
    async with octo.Gateway(Config(), roots=[root]) as gw:
        response = await gw.local_find_and_search_code(
            [{"path": ".", "pattern": "needle", "fileLimit": 10_000, "outputMode": "totalOnly"}]
        )
    [answer] = response.to_wire()["results"]
    assert answer["status"] == "success"
    assert answer["data"]["find"]["searchedFileCount"] == 10_000
    assert answer["data"]["stats"] == {
        **answer["data"]["stats"],
        "filesSearched": 10_000,
        "filesWithMatches": 5_000,
        "totalMatches": 5_000,
    }


async def test_hidden_files_a_name_matches_stay_out_unless_asked(
    tree: Tree, find_search: CallOne
) -> None:
    tree(
        {
            "a.py": "TODO\n",
            ".x.py": "TODO\n",
            "src/.y.py": "TODO\n",
            "ignored.py": "TODO\n",
            ".gitignore": "ignored.py\n",
        }
    )
    plain = await find_search(path=".", names=["*.py"], pattern="TODO")
    assert paths(plain) == ["a.py"]
    assert plain["data"]["find"]["searchedFileCount"] == 1
    hidden = await find_search(path=".", names=["*.py"], pattern="TODO", hidden=True)
    assert paths(hidden) == [".x.py", "a.py", "src/.y.py"]
