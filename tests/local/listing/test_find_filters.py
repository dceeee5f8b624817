"""localFindFiles' spec-003 filters on real trees: extensions, emptiness, whole-path name
matching and the sort order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import paths

TOOL = "localFindFiles"


#: Files of several sizes, kinds and ages; two of them empty.
FILES = {
    "src/app.py": "app = 1\n",
    "src/App.TS": "let a = 1;\n",
    "src/types.d.ts": "declare const x: number;\n",
    "src/lib/util.py": "def util():\n    return 'a longer file'\n",
    "src/empty.py": "",
    "docs/readme.md": "# docs\n",
    "pyproject.toml": "",
}


@pytest.fixture
def project(tree: Any) -> Path:
    """FILES, newest first app.py, util.py, readme.md; and three empty directories."""
    root: Path = tree(FILES, mtimes={"src/app.py": 50, "src/lib/util.py": 40, "docs/readme.md": 30})
    for empty in ("src/blank", "docs/drafts", ".hidden-empty"):
        (root / empty).mkdir()
    return root


async def test_extensions_keep_files_with_any_of_them(run_one: Any, project: Path) -> None:
    found = await run_one(TOOL, {"path": ".", "extensions": ["py", "TS"], "sortBy": "path"})
    assert paths(found) == [
        "src/App.TS",
        "src/app.py",
        "src/empty.py",
        "src/lib/util.py",
        "src/types.d.ts",
    ]
    compound = await run_one(TOOL, {"path": ".", "extensions": ["d.ts"]})
    assert paths(compound) == ["src/types.d.ts"]


async def test_bad_extensions_are_validation_errors(run_one: Any, project: Path) -> None:
    for bad in ([], [""], ["."], ["a/b"]):
        result = await run_one(TOOL, {"path": ".", "extensions": bad})
        assert result["error"]["code"] == "VALIDATION_ERROR"
        assert "extensions" in result["error"]["message"]


async def test_empty_finds_empty_files_and_directories(run_one: Any, project: Path) -> None:
    found = await run_one(TOOL, {"path": ".", "empty": True, "sortBy": "path"})
    # A plain file's type is left out: only what is not a file says what it is.
    assert [(f["path"], f.get("type")) for f in found["data"]["files"]] == [
        ("docs/drafts", "dir"),
        ("pyproject.toml", None),
        ("src/blank", "dir"),
        ("src/empty.py", None),
    ]
    dirs = await run_one(TOOL, {"path": ".", "empty": True, "type": "d", "hidden": True})
    assert sorted(paths(dirs)) == [".hidden-empty", "docs/drafts", "src/blank"]
    files = await run_one(TOOL, {"path": ".", "empty": True, "type": "f", "sortBy": "path"})
    assert paths(files) == ["pyproject.toml", "src/empty.py"]


async def test_full_path_match_matches_the_path_below_the_start(
    run_one: Any, project: Path
) -> None:
    found = await run_one(
        TOOL, {"path": ".", "name": "src/*.py", "fullPathMatch": True, "sortBy": "path"}
    )
    # fnmatch's * crosses "/": src/lib/util.py matches src/*.py.
    assert paths(found) == ["src/app.py", "src/empty.py", "src/lib/util.py"]
    by_name = await run_one(TOOL, {"path": ".", "iname": "SRC/LIB/*", "fullPathMatch": True})
    assert paths(by_name) == ["src/lib/util.py"]


async def test_a_path_pattern_without_full_path_match_is_mended(
    run_one: Any, project: Path
) -> None:
    bad = await run_one(TOOL, {"path": ".", "names": ["*.md", "src/*.py"]})
    assert bad["error"]["code"] == "VALIDATION_ERROR"
    assert "names 'src/*.py' has a '/'" in bad["error"]["message"]
    hint = bad["hints"][0]
    assert json.loads(hint[hint.index("{") :]) == {
        "path": ".",
        "names": ["*.md", "src/*.py"],
        "fullPathMatch": True,
    }


async def test_sort_by_modified_path_or_size(run_one: Any, project: Path) -> None:
    query = {"path": ".", "type": "f", "extensions": ["py", "md"]}
    newest = await run_one(TOOL, query)
    assert paths(newest)[:3] == ["src/app.py", "src/lib/util.py", "docs/readme.md"]
    by_path = await run_one(TOOL, {**query, "sortBy": "path"})
    assert paths(by_path) == ["docs/readme.md", "src/app.py", "src/empty.py", "src/lib/util.py"]
    by_size = await run_one(TOOL, {**query, "sortBy": "size"})
    assert paths(by_size) == ["src/lib/util.py", "src/app.py", "docs/readme.md", "src/empty.py"]
    limited = await run_one(TOOL, {**query, "sortBy": "size", "limit": 1})
    assert any("limit kept the first 1 of 4 matches (size order)" in h for h in limited["hints"])


async def test_spec_003_names_are_steered(run_one: Any, project: Path) -> None:
    bad = await run_one(TOOL, {"path": ".", "full_path_match": True, "name": "src/*"})
    assert "did you mean fullPathMatch?" in bad["error"]["message"]
    hint = bad["hints"][0]
    assert json.loads(hint[hint.index("{") :]) == {
        "path": ".",
        "name": "src/*",
        "fullPathMatch": True,
    }


async def test_pattern_is_an_re2_regex_on_the_name(run_one: Any, project: Path) -> None:
    found = await run_one(TOOL, {"path": ".", "pattern": r"^(app|util)\.py$", "sortBy": "path"})
    assert paths(found) == ["src/app.py", "src/lib/util.py"]
    whole = {"path": ".", "pattern": r"^src/lib/", "fullPathMatch": True, "sortBy": "path"}
    assert paths(await run_one(TOOL, whole)) == ["src/lib/util.py"]
    bad = await run_one(TOOL, {"path": ".", "pattern": r"(?<=a)b"})  # look-behind: not RE2
    assert bad["error"]["code"] == "VALIDATION_ERROR"
    assert "pattern '(?<=a)b' is not a regex RE2 takes" in bad["error"]["message"]


async def test_exclude_files_leaves_those_names_out(run_one: Any, project: Path) -> None:
    query = {"path": ".", "type": "f", "excludeFiles": ["*.py", "*.toml"], "sortBy": "path"}
    assert paths(await run_one(TOOL, query)) == ["docs/readme.md", "src/App.TS", "src/types.d.ts"]
    folders = await run_one(TOOL, {"path": ".", "type": "d", "excludeFiles": ["src"]})
    assert "src" in paths(folders)  # file names only: excludeDir is for folders
    bad = await run_one(TOOL, {"path": ".", "excludeFiles": ["src/*.py"]})
    assert bad["error"]["code"] == "VALIDATION_ERROR"
    assert "excludeFiles" in bad["error"]["message"]
