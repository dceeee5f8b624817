"""localFindFiles on real trees: names, types, depth, time, size, permissions, excludes, paging."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.concurrency import RankedLimiter
from octo.core.formats import parse_duration
from octo.core.formats import parse_size
from octo.local.listing.file_walk import rg_files
from octo.transports.ripgrep import RgPlace

from .conftest import paths

TOOL = "localFindFiles"


@pytest.fixture
def project(tree: Any) -> Path:
    root: Path = tree(
        {
            "src/app.py": "app\n",
            "src/App.test.ts": "test\n",
            "src/lib/util.py": "util\n",
            "src/lib/deep/er/est/leaf.py": "leaf\n",
            "tests/test_app.py": "t\n",
            "README.md": "readme\n",
        },
        mtimes={
            "src/app.py": 40,
            "src/App.test.ts": 30,
            "src/lib/util.py": 20,
            "src/lib/deep/er/est/leaf.py": 10,
            "tests/test_app.py": 50,
            "README.md": 0,
        },
    )
    return root


async def test_name_globs_newest_first(run_one: Any, project: Path) -> None:
    result = await run_one(TOOL, {"path": ".", "name": "*.py"})
    assert result["status"] == "success"
    # leaf.py lies 6 levels down, below the default maxDepth of 5.
    assert paths(result) == ["tests/test_app.py", "src/app.py", "src/lib/util.py"]
    first = result["data"]["files"][0]
    # The default sort is by modification time: its date, and nothing the query did not ask.
    assert first == {"path": "tests/test_app.py", "modified": "2023-11-14T22:14:10Z"}
    assert result["data"]["totalCount"] == 3
    assert result["data"]["path"] == str(project)


async def test_ties_in_time_sort_by_path(run_one: Any, tree: Any) -> None:
    tree({"b.txt": "x", "a.txt": "x", "c/a.txt": "x"})
    result = await run_one(TOOL, {"path": ".", "type": "f"})
    assert paths(result) == ["a.txt", "b.txt", "c/a.txt"]


async def test_name_is_case_sensitive_and_iname_is_not(run_one: Any, project: Path) -> None:
    sensitive = await run_one(TOOL, {"path": ".", "name": "app*"})
    assert paths(sensitive) == ["src/app.py"]
    insensitive = await run_one(TOOL, {"path": ".", "iname": "APP*"})
    assert paths(insensitive) == ["src/app.py", "src/App.test.ts"]


async def test_names_and_name_combine_with_or(run_one: Any, project: Path) -> None:
    result = await run_one(TOOL, {"path": ".", "names": ["*.md", "*.ts"], "name": "util.py"})
    assert paths(result) == ["src/App.test.ts", "src/lib/util.py", "README.md"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"name": "src/*.py"}, "name"),
        ({"iname": "a/b"}, "iname"),
        ({"names": ["ok.py", "x/y"]}, "names"),
        ({"names": []}, "names"),
        ({"type": "x"}, "type"),
        ({"maxDepth": 0}, "maxDepth"),
        ({"maxDepth": 11}, "maxDepth"),
        ({"minDepth": -1}, "minDepth"),
        ({"minDepth": 11}, "minDepth"),
        ({"filesPerPage": 21}, "filesPerPage"),
        ({"filePageNumber": 0}, "filePageNumber"),
        ({"limit": 0}, "limit"),
        ({"limit": 10001}, "limit"),
        ({"excludeDir": ["../up"]}, "excludeDir"),
        ({"excludeDir": ["/"]}, "excludeDir"),
    ],
)
async def test_out_of_range_parameters_are_validation_errors(
    run_one: Any, project: Path, query: dict[str, Any], field: str
) -> None:
    result = await run_one(TOOL, {"path": ".", **query})
    assert result["error"]["code"] == "VALIDATION_ERROR"
    assert field in result["error"]["message"]


@pytest.mark.parametrize(
    ("field", "bad", "example"),
    [
        ("modifiedWithin", "7 days", '"7d"'),
        ("modifiedWithin", "1M", '"7d"'),
        ("modifiedBefore", "d", '"7d"'),
        ("sizeGreater", "ten megs", '"10M"'),
        ("sizeLess", "10X", '"10M"'),
        ("permissions", "999", '"755"'),
        ("permissions", "rwx", '"755"'),
    ],
)
async def test_bad_durations_sizes_and_modes_name_the_field_with_an_example(
    run_one: Any, project: Path, field: str, bad: str, example: str
) -> None:
    result = await run_one(TOOL, {"path": ".", field: bad})
    assert result["error"]["code"] == "VALIDATION_ERROR"
    message = result["error"]["message"]
    assert message.startswith(f"{field}:") and example in message


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"minDepth": 4, "maxDepth": 3}, "minDepth (4) must not exceed maxDepth (3)"),
        ({"sizeGreater": "1M", "sizeLess": "1k"}, "sizeGreater (1M) must be below sizeLess (1k)"),
        ({"modifiedWithin": "1d", "modifiedBefore": "2d"}, "modifiedBefore (2d)"),
    ],
)
async def test_contradictory_ranges_are_validation_errors(
    run_one: Any, project: Path, query: dict[str, Any], words: str
) -> None:
    result = await run_one(TOOL, {"path": ".", **query})
    assert result["error"]["code"] == "VALIDATION_ERROR"
    assert words in result["error"]["message"]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("45s", 45), ("30m", 1800), ("2h", 7200), ("7d", 604800), ("1w", 604800), (" 3d ", 259200)],
)
def test_parse_duration(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("2048", 2048),
        ("500k", 512000),
        ("500K", 512000),
        ("10M", 10 * 1024**2),
        ("10MB", 10 * 1024**2),
        ("1.5G", int(1.5 * 1024**3)),
        ("2GiB", 2 * 1024**3),
        ("1T", 1024**4),
        ("12b", 12),
    ],
)
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size


async def test_type_file_dir_and_symlink(run_one: Any, project: Path) -> None:
    (project / "src" / "link.py").symlink_to(project / "src" / "app.py")
    files = await run_one(TOOL, {"path": "src", "type": "f", "maxDepth": 1})
    assert paths(files) == ["app.py", "App.test.ts"]
    dirs = await run_one(TOOL, {"path": ".", "type": "d"})
    assert sorted(paths(dirs)) == [
        "src",
        "src/lib",
        "src/lib/deep",
        "src/lib/deep/er",
        "src/lib/deep/er/est",
        "tests",
    ]
    assert {f["type"] for f in dirs["data"]["files"]} == {"dir"}
    assert all("size" not in f for f in dirs["data"]["files"])
    links = await run_one(TOOL, {"path": ".", "type": "l"})
    assert paths(links) == ["src/link.py"]
    assert links["data"]["files"][0]["type"] == "symlink"
    everything = await run_one(TOOL, {"path": "src", "maxDepth": 1})
    assert sorted(paths(everything)) == ["App.test.ts", "app.py", "lib", "link.py"]


async def test_depth_window(run_one: Any, project: Path) -> None:
    default = await run_one(TOOL, {"path": ".", "name": "leaf.py"})
    assert default["status"] == "empty"  # leaf.py is 6 levels down; maxDepth defaults to 5
    deeper = await run_one(TOOL, {"path": ".", "name": "leaf.py", "maxDepth": 6})
    assert paths(deeper) == ["src/lib/deep/er/est/leaf.py"]
    shallow = await run_one(TOOL, {"path": ".", "type": "f", "maxDepth": 1})
    assert paths(shallow) == ["README.md"]
    window = await run_one(TOOL, {"path": ".", "type": "f", "minDepth": 2, "maxDepth": 2})
    assert paths(window) == ["tests/test_app.py", "src/app.py", "src/App.test.ts"]
    from_zero = await run_one(TOOL, {"path": ".", "type": "d", "minDepth": 0, "maxDepth": 1})
    assert sorted(paths(from_zero)) == ["src", "tests"]


async def test_modified_within_and_before(run_one: Any, tree: Any, tmp_path: Path) -> None:
    tree({"fresh.txt": "x", "week.txt": "x", "old.txt": "x"})
    now = time.time()
    for name, age in (("fresh.txt", 60), ("week.txt", 5 * 86400), ("old.txt", 40 * 86400)):
        os.utime(tmp_path / name, (now - age, now - age))
    within_hour = await run_one(TOOL, {"path": ".", "type": "f", "modifiedWithin": "1h"})
    assert paths(within_hour) == ["fresh.txt"]
    within_week = await run_one(TOOL, {"path": ".", "type": "f", "modifiedWithin": "1w"})
    assert paths(within_week) == ["fresh.txt", "week.txt"]
    before_month = await run_one(TOOL, {"path": ".", "type": "f", "modifiedBefore": "30d"})
    assert paths(before_month) == ["old.txt"]
    between = await run_one(
        TOOL, {"path": ".", "type": "f", "modifiedWithin": "10d", "modifiedBefore": "2h"}
    )
    assert paths(between) == ["week.txt"]
    minutes = await run_one(TOOL, {"path": ".", "type": "f", "modifiedWithin": "30m"})
    assert paths(minutes) == ["fresh.txt"]


async def test_size_filters(run_one: Any, tree: Any) -> None:
    tree(
        {"tiny.txt": b"x" * 10, "mid.bin": b"x" * 600 * 1024, "big.bin": b"x" * (2 * 1024**2 + 1)},
        mtimes={"tiny.txt": 3, "mid.bin": 2, "big.bin": 1},
    )
    over_500k = await run_one(TOOL, {"path": ".", "sizeGreater": "500k"})
    assert paths(over_500k) == ["mid.bin", "big.bin"]
    over_2m = await run_one(TOOL, {"path": ".", "sizeGreater": "2M"})
    assert paths(over_2m) == ["big.bin"]
    under_bytes = await run_one(TOOL, {"path": ".", "sizeLess": "11"})
    assert paths(under_bytes) == ["tiny.txt"]
    between = await run_one(TOOL, {"path": ".", "sizeGreater": "10", "sizeLess": "1M"})
    assert paths(between) == ["mid.bin"]
    assert (await run_one(TOOL, {"path": ".", "sizeGreater": "1G"}))["status"] == "empty"


async def test_permissions_exact_match(run_one: Any, tree: Any, tmp_path: Path) -> None:
    tree({"run.sh": "#!/bin/sh\n", "data.txt": "x", "bin/tool": "x"})
    os.chmod(tmp_path / "run.sh", 0o755)
    os.chmod(tmp_path / "bin" / "tool", 0o4755)
    os.chmod(tmp_path / "data.txt", 0o600)
    three = await run_one(TOOL, {"path": ".", "type": "f", "permissions": "755"})
    assert sorted(paths(three)) == ["bin/tool", "run.sh"]
    setuid = await run_one(TOOL, {"path": ".", "type": "f", "permissions": "4755"})
    assert paths(setuid) == ["bin/tool"]
    private = await run_one(TOOL, {"path": ".", "permissions": "0600"})
    assert paths(private) == ["data.txt"]
    assert private["data"]["files"][0]["permissions"] == "600"


async def test_executable_flag(run_one: Any, tree: Any, tmp_path: Path) -> None:
    tree({"run.sh": "x", "data.txt": "x"})
    os.chmod(tmp_path / "run.sh", 0o755)
    executable = await run_one(TOOL, {"path": ".", "type": "f", "executable": True})
    assert paths(executable) == ["run.sh"]
    not_executable = await run_one(TOOL, {"path": ".", "type": "f", "executable": False})
    assert paths(not_executable) == ["data.txt"]


async def test_readable_and_writable_flags(run_one: Any, tree: Any, tmp_path: Path) -> None:
    tree({"open.txt": "x", "locked.txt": "x"})
    os.chmod(tmp_path / "locked.txt", 0o000)
    readable = await run_one(TOOL, {"path": ".", "type": "f", "readable": True, "writable": True})
    unreadable = await run_one(TOOL, {"path": ".", "type": "f", "readable": False})
    if os.geteuid() == 0:
        # root may read and write anything: access(2) says so, and we report what it says.
        assert sorted(paths(readable)) == ["locked.txt", "open.txt"]
        assert unreadable["status"] == "empty"
    else:
        assert paths(readable) == ["open.txt"]
        assert paths(unreadable) == ["locked.txt"]


async def test_exclude_dir_by_name_and_by_path(run_one: Any, tree: Any) -> None:
    tree(
        {
            "node_modules/pkg/index.js": "x",
            "web/node_modules/dep/index.js": "x",
            "src/gen/out.js": "x",
            "lib/gen/keep.js": "x",
            "src/main.js": "x",
        }
    )
    by_name = await run_one(TOOL, {"path": ".", "name": "*.js", "excludeDir": ["node_modules"]})
    assert sorted(paths(by_name)) == ["lib/gen/keep.js", "src/gen/out.js", "src/main.js"]
    by_path = await run_one(
        TOOL, {"path": ".", "name": "*.js", "excludeDir": ["node_modules", "src/gen/"]}
    )
    assert sorted(paths(by_path)) == ["lib/gen/keep.js", "src/main.js"]
    dirs = await run_one(TOOL, {"path": ".", "type": "d", "excludeDir": ["./node_modules", "gen"]})
    # lib holds nothing but gen, so it has no visible file left and is not shown.
    assert sorted(paths(dirs)) == ["src", "web", "web/node_modules", "web/node_modules/dep"]


async def test_bad_exclude_glob_is_an_invalid_query(run_one: Any, project: Path) -> None:
    result = await run_one(TOOL, {"path": ".", "excludeDir": ["[oops"]})
    assert result["error"]["code"] == "INVALID_QUERY"
    assert "excludeDir" in " ".join(result["hints"])


async def test_paging_limit_and_hints(run_one: Any, tree: Any) -> None:
    tree(
        {f"f{i:02}.log.txt": "x" for i in range(50)},
        mtimes={f"f{i:02}.log.txt": i for i in range(50)},
    )
    first = await run_one(TOOL, {"path": ".", "name": "*.txt", "filesPerPage": 20})
    assert paths(first)[:2] == ["f49.log.txt", "f48.log.txt"]
    assert first["data"]["pagination"] == {"currentPage": 1, "totalPages": 3, "hasMore": True}
    assert first["data"]["totalCount"] == 50
    assert "truncated" not in first["data"]
    next_hint = next(h for h in first["hints"] if h.startswith("Next page"))
    params = json.loads(next_hint.split(f"{TOOL} ", 1)[1])
    assert params == {"path": ".", "name": "*.txt", "filePageNumber": 2}
    second = await run_one(TOOL, params)
    assert paths(second)[0] == "f29.log.txt"
    past = await run_one(TOOL, {**params, "filePageNumber": 7})
    assert past["status"] == "empty"
    assert past["hints"] == [
        "Page 7 is past the last page (3): localFindFiles "
        '{"path":".","name":"*.txt","filePageNumber":3}'
    ]
    limited = await run_one(
        TOOL, {"path": ".", "limit": 15, "filesPerPage": 10, "filePageNumber": 2}
    )
    assert paths(limited) == [f"f{i:02}.log.txt" for i in range(39, 34, -1)]
    assert limited["data"]["totalCount"] == 15
    assert limited["data"]["truncated"] is True
    assert limited["data"]["pagination"] == {"currentPage": 2, "totalPages": 2, "hasMore": False}
    assert any(
        "limit kept the first 15 of 50 matches (modified order)" in h for h in limited["hints"]
    )
    past = await run_one(TOOL, {"path": ".", "filePageNumber": 5})
    assert past["status"] == "empty"
    assert any('"filePageNumber":3' in h for h in past["hints"])


async def test_gitignore_hidden_and_sensitive(run_one: Any, tree: Any) -> None:
    tree(
        {
            ".gitignore": "dist/\n",
            "dist/bundle.js": "x",
            "app.js": "x",
            ".env": "SECRET=test-token-not-real",
            ".cache/x.js": "x",
        }
    )
    default = await run_one(TOOL, {"path": ".", "type": "f"})
    assert paths(default) == ["app.js"]
    with_ignored = await run_one(TOOL, {"path": ".", "type": "f", "noIgnore": True})
    assert sorted(paths(with_ignored)) == ["app.js", "dist/bundle.js"]
    with_hidden = await run_one(TOOL, {"path": ".", "type": "f", "hidden": True})
    assert sorted(paths(with_hidden)) == [".cache/x.js", ".env", ".gitignore", "app.js"]
    env = next(f for f in with_hidden["data"]["files"] if f["path"] == ".env")
    assert env["sensitive"] is True
    assert any("may hold secrets" in h for h in with_hidden["hints"])


async def test_empty_result_names_filters_to_relax(run_one: Any, project: Path) -> None:
    result = await run_one(TOOL, {"path": ".", "name": "*.rs", "sizeGreater": "1k"})
    assert result["status"] == "empty"
    hint = next(h for h in result["hints"] if h.startswith("Nothing matched"))
    assert "name '*.rs'" in hint and "sizeGreater '1k'" in hint and "maxDepth" in hint


async def test_success_hints_point_to_reading_and_searching(run_one: Any, project: Path) -> None:
    result = await run_one(TOOL, {"path": "src", "name": "app.py"})
    hints = result["hints"]
    assert f'Read a file: localGetFileContent {{"path":"{project / "src" / "app.py"}"}}' in hints
    assert any(h.startswith("Search inside: localSearchCode") for h in hints)


async def test_walk_never_leaves_the_root(
    run_one: Any, tree: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "stolen.py").write_text("x")
    root: Path = tree({"mine.py": "x"})
    (root / "out").symlink_to(outside)
    found = await run_one(TOOL, {"path": ".", "name": "*.py"})
    assert paths(found) == ["mine.py"]
    via_link = await run_one(TOOL, {"path": "out"})
    assert via_link["error"]["code"] == "PATH_NOT_ALLOWED"
    outside_root = await run_one(TOOL, {"path": str(outside)})
    assert outside_root["error"]["code"] == "PATH_NOT_ALLOWED"


async def test_missing_path_and_file_path(run_one: Any, project: Path) -> None:
    missing = await run_one(TOOL, {"path": "nowhere/deeper"})
    assert missing["error"]["code"] == "NOT_FOUND"
    assert any(f'localViewStructure {{"path":"{project}"}}' in h for h in missing["hints"])
    a_file = await run_one(TOOL, {"path": "README.md"})
    assert a_file["error"]["code"] == "INVALID_QUERY"
    assert any("localGetFileContent" in h for h in a_file["hints"])


async def test_bulk_with_one_invalid_query(gateway: octo.Gateway, project: Path) -> None:
    response = await gateway.local_find_files(
        [
            {"path": ".", "name": "*.md"},
            {"path": ".", "sizeGreater": "huge"},
            {"path": "tests", "type": "f"},
            {"path": ".", "modifiedWithin": "2h", "type": "f"},
            {"path": "missing"},
        ]
    )
    results = response.to_wire()["results"]
    assert [r["queryIndex"] for r in results] == [0, 1, 2, 3, 4]
    assert [r["status"] for r in results] == ["success", "error", "success", "empty", "error"]
    assert results[1]["error"]["code"] == "VALIDATION_ERROR"
    assert [f["path"] for f in results[2]["data"]["files"]] == ["test_app.py"]
    assert results[4]["error"]["code"] == "NOT_FOUND"


async def test_listing_stops_at_the_file_cap(tree: Any) -> None:
    root: Path = tree({f"f{i}.txt": "x" for i in range(30)})
    listed, cut_short = await rg_files(
        [], cwd=root, place=RgPlace(RankedLimiter(1), None), max_files=7, timeout_ms=30_000
    )
    assert len(listed) == 7 and cut_short
    listed, cut_short = await rg_files(
        [], cwd=root, place=RgPlace(RankedLimiter(1), None), max_files=100, timeout_ms=30_000
    )
    assert len(listed) == 30 and not cut_short


async def test_names_that_are_not_utf8_still_serialise(
    gateway: octo.Gateway, tree: Any, tmp_path: Path
) -> None:
    tree({"ok.txt": "x"})
    os.close(os.open(os.fsencode(tmp_path) + b"/bad\xff.txt", os.O_CREAT | os.O_WRONLY))
    found = await gateway.local_find_files([{"path": ".", "type": "f"}])
    view = await gateway.local_view_structure([{"path": ".", "sortBy": "name"}])
    found_files = json.loads(found.to_compact_json())["results"][0]["data"]["files"]
    assert [f["path"] for f in found_files] == ["bad\ufffd.txt", "ok.txt"]  # newest first
    entries = json.loads(view.to_compact_json())["results"][0]["data"]["entries"]
    assert [e["name"] for e in entries] == ["bad\ufffd.txt", "ok.txt"]


async def test_an_entry_carries_the_details_its_query_asks_for(run_one: Any, project: Path) -> None:
    async def first(**query: Any) -> dict[str, Any]:
        found: dict[str, Any] = (await run_one(TOOL, {"path": ".", **query}))["data"]["files"][0]
        return found

    assert await first(name="*.py", sortBy="path") == {"path": "src/app.py"}
    assert await first(name="*.py", sortBy="size") == {"path": "src/lib/util.py", "size": 5}
    by_size = await first(name="*.py", sortBy="path", sizeLess="1k")
    assert by_size == {"path": "src/app.py", "size": 4}
    dated = await first(name="*.py", sortBy="path", modifiedWithin="3650d")
    assert set(dated) == {"path", "modified"}
    moded = await first(name="*.py", sortBy="path", permissions="644")
    assert moded == {"path": "src/app.py", "permissions": "644"}
    # Not a plain file: its type says so.
    assert await first(type="d", sortBy="path") == {"path": "src", "type": "dir"}
    every = await first(name="*.py", sortBy="path", details=True)
    assert set(every) == {"path", "type", "size", "modified", "permissions"}
    assert every["type"] == "file"
