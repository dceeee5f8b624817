"""localViewStructure on real trees: depth, filters, sorting, paging, ignore rules and paths."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.errors import CallError
from octo.faces.tool_schemas import input_schema

TOOL = "localViewStructure"


def names(result: dict[str, Any]) -> list[str]:
    return [entry["name"] for entry in result["data"]["entries"]]


@pytest.fixture
def project(tree: Any) -> Path:
    root: Path = tree(
        {
            "README.md": "# demo\n",
            "setup.cfg": "[x]\n",
            "src/app.py": "print('app')\n",
            "src/util.ts": "export const x = 1\n",
            "src/deep/a/b/c/d/e/leaf.py": "x = 1\n",
            "docs/guide.md": "guide\n" * 50,
        },
        mtimes={"README.md": 300, "setup.cfg": 100, "src": 200, "docs": 50},
    )
    return root


async def test_default_lists_direct_children_by_name(run_one: Any, project: Path) -> None:
    # By name, not time: page 1 of an installed package is its modules, not __pycache__.
    result = await run_one(TOOL, {"path": str(project)})
    assert result["status"] == "success"
    data = result["data"]
    assert data["path"] == str(project)
    assert names(result) == ["docs", "README.md", "setup.cfg", "src"]
    assert data["entries"][3] == {"name": "src", "type": "dir"}
    assert data["summary"] == {"totalFiles": 2, "totalDirs": 2, "totalSize": 11}
    assert data["pagination"] == {"currentPage": 1, "totalPages": 1, "hasMore": False}
    hints = " ".join(result["hints"])
    assert "localGetFileContent" in hints and "localSearchCode" in hints
    assert f'"path":"{project / "docs"}"' in hints


async def test_relative_path_resolves_against_the_root(run_one: Any, project: Path) -> None:
    result = await run_one(TOOL, {"path": "src", "sortBy": "name"})
    assert result["data"]["path"] == str(project / "src")
    assert names(result) == ["app.py", "deep", "util.ts"]


async def test_recursive_shows_paths_relative_to_the_listed_dir(
    run_one: Any, project: Path
) -> None:
    result = await run_one(TOOL, {"path": "src", "recursive": True, "sortBy": "name"})
    assert names(result) == [
        "app.py",
        "deep",
        "deep/a",
        "deep/a/b",
        "deep/a/b/c",
        "deep/a/b/c/d",
        "util.ts",
    ]


async def test_depth_limits_levels(run_one: Any, project: Path) -> None:
    result = await run_one(TOOL, {"path": "src", "depth": 2, "sortBy": "name"})
    assert names(result) == ["app.py", "deep", "deep/a", "util.ts"]
    deepest = await run_one(TOOL, {"path": "src/deep", "depth": 5, "filesOnly": True})
    assert names(deepest) == []
    assert deepest["status"] == "empty"
    full = await run_one(TOOL, {"path": "src/deep/a", "depth": 5, "filesOnly": True})
    assert names(full) == ["b/c/d/e/leaf.py"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"depth": 0}, "depth"),
        ({"depth": 6}, "depth"),
        ({"entriesPerPage": 21}, "entriesPerPage"),
        ({"entriesPerPage": 0}, "entriesPerPage"),
        ({"entryPageNumber": 0}, "entryPageNumber"),
        ({"limit": 0}, "limit"),
        ({"limit": 10001}, "limit"),
        ({"sortBy": "date"}, "sortBy"),
        ({"pattern": ""}, "pattern"),
        ({"unknownField": 1}, "unknownField"),
    ],
)
async def test_out_of_range_parameters_are_validation_errors(
    run_one: Any, project: Path, query: dict[str, Any], field: str
) -> None:
    result = await run_one(TOOL, {"path": ".", **query})
    assert result["status"] == "error"
    assert result["error"]["code"] == "VALIDATION_ERROR"
    assert field in result["error"]["message"]
    [hint] = result["hints"]
    assert hint.startswith(("Valid form of this query: localViewStructure {", "Valid example"))


async def test_path_is_required(run_one: Any, project: Path) -> None:
    result = await run_one(TOOL, {"depth": 1})
    assert result["error"]["code"] == "VALIDATION_ERROR"
    assert "path" in result["error"]["message"]


async def test_files_only_and_directories_only(run_one: Any, project: Path) -> None:
    files = await run_one(TOOL, {"path": ".", "filesOnly": True, "sortBy": "name"})
    assert names(files) == ["README.md", "setup.cfg"]  # names sort case-insensitively
    dirs = await run_one(TOOL, {"path": ".", "directoriesOnly": True, "sortBy": "name"})
    assert names(dirs) == ["docs", "src"]
    both = await run_one(TOOL, {"path": ".", "filesOnly": True, "directoriesOnly": True})
    assert both["error"]["code"] == "VALIDATION_ERROR"
    assert "filesOnly and directoriesOnly" in both["error"]["message"]


async def test_details_add_size_time_and_permissions(run_one: Any, project: Path) -> None:
    os.chmod(project / "setup.cfg", 0o640)
    result = await run_one(TOOL, {"path": ".", "details": True, "sortBy": "name"})
    entries = {e["name"]: e for e in result["data"]["entries"]}
    assert entries["setup.cfg"] == {
        "name": "setup.cfg",
        "type": "file",
        "size": 4,
        "modified": "2023-11-14T22:15:00Z",
        "permissions": "640",
    }
    assert "size" not in entries["src"]
    assert entries["src"]["modified"] == "2023-11-14T22:16:40Z"
    plain = await run_one(TOOL, {"path": "."})
    # A plain file is a name alone; a directory says so.
    assert all(set(e) <= {"name", "type"} for e in plain["data"]["entries"])
    assert all(e.get("type") in (None, "dir") for e in plain["data"]["entries"])


@pytest.mark.parametrize(
    ("sort_by", "expected"),
    [
        ("name", ["big.bin", "docs", "README.md", "setup.cfg", "src", "z.a"]),
        ("size", ["big.bin", "README.md", "setup.cfg", "z.a", "docs", "src"]),
        ("time", ["z.a", "README.md", "src", "setup.cfg", "docs", "big.bin"]),
        ("extension", ["docs", "src", "z.a", "big.bin", "setup.cfg", "README.md"]),
    ],
)
async def test_sort_orders(
    run_one: Any, tree: Any, project: Path, sort_by: str, expected: list[str]
) -> None:
    tree({"big.bin": b"\0" * 4096, "z.a": "ab"}, mtimes={"big.bin": -10, "z.a": 400})
    result = await run_one(TOOL, {"path": ".", "sortBy": sort_by})
    assert names(result) == expected


async def test_extension_filters_files_and_keeps_directories(run_one: Any, project: Path) -> None:
    one_ext = await run_one(TOOL, {"path": "src", "extension": ".TS", "sortBy": "name"})
    assert names(one_ext) == ["deep", "util.ts"]
    several = await run_one(
        TOOL,
        {
            "path": "src",
            "extensions": ["py", "ts"],
            "filesOnly": True,
            "recursive": True,
            "sortBy": "name",
        },
    )
    # leaf.py lies 6 levels down, below the deepest level a listing reaches.
    assert names(several) == ["app.py", "util.ts"]


async def test_pattern_glob_substring_and_path(run_one: Any, project: Path) -> None:
    glob = await run_one(
        TOOL, {"path": ".", "recursive": True, "pattern": "*.MD", "sortBy": "name"}
    )
    assert names(glob) == ["docs/guide.md", "README.md"]
    substring = await run_one(TOOL, {"path": ".", "recursive": True, "pattern": "uti"})
    assert names(substring) == ["src/util.ts"]
    on_path = await run_one(TOOL, {"path": ".", "recursive": True, "pattern": "src/*.py"})
    assert names(on_path) == ["src/app.py"]


async def test_paging_with_next_page_hint(run_one: Any, tree: Any) -> None:
    tree({f"f{i:02}.txt": "x" for i in range(45)}, mtimes={f"f{i:02}.txt": i for i in range(45)})
    first = await run_one(TOOL, {"path": ".", "entriesPerPage": 20})
    assert names(first)[:2] == ["f00.txt", "f01.txt"]
    assert first["data"]["pagination"] == {"currentPage": 1, "totalPages": 3, "hasMore": True}
    assert first["data"]["summary"]["totalFiles"] == 45
    next_hint = next(h for h in first["hints"] if h.startswith("Next page"))
    params = json.loads(next_hint.split(f"{TOOL} ", 1)[1])
    assert params == {"path": ".", "entryPageNumber": 2}
    third = await run_one(TOOL, params | {"entryPageNumber": 3})
    assert names(third) == ["f40.txt", "f41.txt", "f42.txt", "f43.txt", "f44.txt"]
    assert third["data"]["pagination"]["hasMore"] is False
    assert not any(h.startswith("Next page") for h in third["hints"])
    past = await run_one(TOOL, {"path": ".", "entryPageNumber": 9})
    assert past["status"] == "empty"
    assert past["hints"] == [
        'Page 9 is past the last page (3): localViewStructure {"path":".","entryPageNumber":3}'
    ]


async def test_entries_per_page_and_limit(run_one: Any, tree: Any) -> None:
    tree({f"f{i:02}.txt": "x" for i in range(12)})
    small = await run_one(TOOL, {"path": ".", "entriesPerPage": 5, "sortBy": "name"})
    assert names(small) == [f"f{i:02}.txt" for i in range(5)]
    assert small["data"]["pagination"]["totalPages"] == 3
    limited = await run_one(TOOL, {"path": ".", "limit": 7, "entriesPerPage": 5, "sortBy": "name"})
    assert limited["data"]["pagination"]["totalPages"] == 2
    assert limited["data"]["summary"]["totalFiles"] == 12
    second = await run_one(
        TOOL, {"path": ".", "limit": 7, "entriesPerPage": 5, "entryPageNumber": 2, "sortBy": "name"}
    )
    assert names(second) == ["f05.txt", "f06.txt"]
    assert any("limit kept 7 of 12" in h for h in limited["hints"])


async def test_gitignore_is_respected_without_a_git_repo(run_one: Any, tree: Any) -> None:
    tree(
        {
            ".gitignore": "build/\n*.log\n",
            "build/out.o": "o",
            "app.log": "log",
            "main.c": "int main;",
            "sub/.gitignore": "local.txt\n",
            "sub/local.txt": "x",
            "sub/kept.txt": "x",
        }
    )
    default = await run_one(TOOL, {"path": ".", "recursive": True, "sortBy": "name"})
    assert names(default) == ["main.c", "sub", "sub/kept.txt"]
    everything = await run_one(
        TOOL, {"path": ".", "recursive": True, "sortBy": "name", "noIgnore": True}
    )
    assert names(everything) == [
        "app.log",
        "build",
        "build/out.o",
        "main.c",
        "sub",
        "sub/kept.txt",
        "sub/local.txt",
    ]


async def test_hidden_entries_need_opt_in_and_git_internals_stay_out(
    run_one: Any, tree: Any
) -> None:
    tree(
        {
            ".config/settings.json": "{}",
            ".profile": "x",
            "visible.txt": "x",
            ".git/HEAD": "ref: refs/heads/main\n",
            ".git/objects/ab/cdef": "blob",
        }
    )
    default = await run_one(TOOL, {"path": ".", "recursive": True})
    assert names(default) == ["visible.txt"]
    hidden = await run_one(TOOL, {"path": ".", "recursive": True, "hidden": True, "sortBy": "name"})
    assert names(hidden) == [".config", ".config/settings.json", ".profile", "visible.txt"]


async def test_sensitive_files_are_listed_and_marked(
    run_one: Any, tree: Any, tmp_path: Path
) -> None:
    tree({".env": "TOKEN=test-token-not-real", "server.pem": "x", "main.py": "x"})
    result = await run_one(TOOL, {"path": ".", "hidden": True, "sortBy": "name"})
    entries = {e["name"]: e for e in result["data"]["entries"]}
    assert entries[".env"]["sensitive"] is True
    assert entries["server.pem"]["sensitive"] is True
    assert "sensitive" not in entries["main.py"]
    secret_hint = next(h for h in result["hints"] if "may hold secrets" in h)
    call = json.loads(secret_hint.split("localGetFileContent ", 1)[1])
    assert call == {"path": str(tmp_path / ".env"), "hidden": True, "includeSensitive": True}
    read_hint = next(h for h in result["hints"] if h.startswith("Read a file"))
    assert json.loads(read_hint.split("localGetFileContent ", 1)[1]) == {
        "path": str(tmp_path / "main.py")
    }


async def test_empty_directories_are_left_out(run_one: Any, tree: Any, tmp_path: Path) -> None:
    tree({"only/file.txt": "x"})
    (tmp_path / "empty").mkdir()
    result = await run_one(TOOL, {"path": ".", "sortBy": "name"})
    assert names(result) == ["only"]
    empty = await run_one(TOOL, {"path": "empty"})
    assert empty["status"] == "empty"
    assert empty["data"]["summary"] == {"totalFiles": 0, "totalDirs": 0, "totalSize": 0}
    assert any("Relax" in h for h in empty["hints"])


async def test_empty_result_names_the_filters_to_relax(run_one: Any, project: Path) -> None:
    result = await run_one(TOOL, {"path": ".", "pattern": "nomatch*", "extensions": ["rs"]})
    assert result["status"] == "empty"
    hint = next(h for h in result["hints"] if h.startswith("Nothing matched"))
    assert "pattern 'nomatch*'" in hint and "extension" in hint and "hidden=true" in hint


async def test_many_entries_suggest_narrowing(run_one: Any, tree: Any) -> None:
    tree({f"d{i // 50}/f{i:03}.txt": "x" for i in range(150)})
    result = await run_one(TOOL, {"path": ".", "recursive": True})
    assert result["data"]["summary"] == {"totalFiles": 150, "totalDirs": 3, "totalSize": 150}
    assert any("153 entries: narrow" in h for h in result["hints"])


async def test_symlinks_are_listed_but_never_followed(
    run_one: Any, tree: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.txt").write_text("outside")
    root: Path = tree({"inside/file.txt": "x", "target.txt": "x"})
    (root / "escape").symlink_to(outside)
    (root / "inside" / "to_target").symlink_to(root / "target.txt")
    result = await run_one(TOOL, {"path": ".", "recursive": True, "sortBy": "name"})
    assert names(result) == [
        "escape",
        "inside",
        "inside/file.txt",
        "inside/to_target",
        "target.txt",
    ]
    types = {e["name"]: e.get("type", "file") for e in result["data"]["entries"]}
    assert types["escape"] == "symlink" and types["inside/to_target"] == "symlink"
    assert types["target.txt"] == "file" and types["inside"] == "dir"
    assert not any("secret" in name for name in names(result))


async def test_symlink_escape_and_outside_paths_are_refused(
    run_one: Any, tree: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere")
    (outside / "x.txt").write_text("x")
    root: Path = tree({"a.txt": "x"})
    (root / "link").symlink_to(outside)
    for path in ["link", str(outside), "../", f"file://{outside}"]:
        result = await run_one(TOOL, {"path": path})
        assert result["error"]["code"] == "PATH_NOT_ALLOWED", path


async def test_missing_directory_and_file_path(run_one: Any, project: Path) -> None:
    missing = await run_one(TOOL, {"path": "src/nope"})
    assert missing["error"]["code"] == "NOT_FOUND"
    assert any(f'"path":"{project / "src"}"' in h for h in missing["hints"])
    a_file = await run_one(TOOL, {"path": "src/app.py"})
    assert a_file["error"]["code"] == "INVALID_QUERY"
    assert "is a file" in a_file["error"]["message"]
    assert any(h.startswith("Read it with localGetFileContent") for h in a_file["hints"])


async def test_bulk_keeps_order_and_isolates_the_invalid_query(
    gateway: octo.Gateway, project: Path
) -> None:
    response = await gateway.local_view_structure(
        [
            {"path": "src", "sortBy": "name", "researchGoal": "layout"},
            {"path": ".", "depth": 9},
            {"path": "docs"},
            {"path": "/"},
        ]
    )
    results = response.to_wire()["results"]
    assert [r["status"] for r in results] == ["success", "error", "success", "error"]
    assert results[0]["researchGoal"] == "layout"
    assert results[1]["error"]["code"] == "VALIDATION_ERROR"
    assert [e["name"] for e in results[2]["data"]["entries"]] == ["guide.md"]
    assert results[3]["error"]["code"] == "PATH_NOT_ALLOWED"


async def test_more_than_five_queries_is_a_call_error(gateway: octo.Gateway, project: Path) -> None:
    with pytest.raises(CallError, match="1-5 queries"):
        await gateway.call(TOOL, [{"path": "."}] * 6)


def test_registered_as_a_local_tool() -> None:
    spec = octo.Gateway.tools()
    found = {s.name: s for s in spec}
    view = found[TOOL]
    assert view.category == "local" and view.max_queries == 5 and not view.open_world
    schema = input_schema(view)["properties"]["queries"]["items"]["properties"]
    assert ".gitignore" in schema["noIgnore"]["description"]
    assert set(schema) >= {
        "path",
        "depth",
        "recursive",
        "details",
        "hidden",
        "sortBy",
        "filesOnly",
        "directoriesOnly",
        "extension",
        "extensions",
        "pattern",
        "entriesPerPage",
        "entryPageNumber",
        "limit",
    }


async def test_walk_out_of_time_returns_what_it_has_marked_truncated(
    tree: Any, tmp_path: Path
) -> None:
    tree({"a.txt": "x", "sub/b.txt": "x"})
    config = octo.Config(roots=(tmp_path,), rg_timeout_ms=0)
    async with octo.Gateway(config) as gw:
        view = (await gw.local_view_structure([{"path": "."}])).to_wire()["results"][0]
        found = (await gw.local_find_files([{"path": "."}])).to_wire()["results"][0]
    for result in (view, found):
        assert result["data"]["truncated"] is True
        assert any("walk stopped early" in h for h in result["hints"])


def hint_calls(hints: list[str]) -> list[dict[str, Any]]:
    """The JSON argument of every hint that suggests a call (the first ``{`` onwards)."""
    decoder = json.JSONDecoder()
    return [decoder.raw_decode(h, h.index("{"))[0] for h in hints if "{" in h]


async def test_hints_quote_paths_as_json(run_one: Any, tree: Any) -> None:
    # A quote or backslash in a name must not break the JSON a hint hands back as a query.
    root: Path = tree({'we"ird\\dir/sub/x.py': "x\n", 'we"ird\\dir/y.py': "y\n"})
    odd = root / 'we"ird\\dir'
    listing = await run_one(TOOL, {"path": str(odd)})
    assert {c["path"] for c in hint_calls(listing["hints"])} == {
        str(odd / "sub"),
        str(odd / "y.py"),
        str(odd),
    }
    missing = await run_one(TOOL, {"path": str(odd / "nope" / "deeper")})
    assert missing["error"]["code"] == "NOT_FOUND"
    assert [c["path"] for c in hint_calls(missing["hints"])] == [str(odd)]
    a_file = await run_one(TOOL, {"path": str(odd / "y.py")})
    assert a_file["error"]["code"] == "INVALID_QUERY"
    assert [c["path"] for c in hint_calls(a_file["hints"])] == [str(odd / "y.py"), str(odd)]


async def test_hints_never_look_inside_generated_folders(run_one: Any, tree: Any) -> None:
    root = tree(
        {
            "__pycache__/a.cpython-311.pyc": "x",
            "build/lib/a.py": "x",
            "node_modules/m/index.js": "x",
            "octo_gateway.egg-info/PKG-INFO": "x",
            "src/a.py": "x",
            "pkg/__pycache__/mod.cpython-311.pyc": "x",
            "pkg/mod.py": "x",
        }
    )
    listing = await run_one(TOOL, {"path": ".", "noIgnore": True})
    assert {e["name"] for e in listing["data"]["entries"]} >= {"__pycache__", "node_modules", "src"}
    inside = [h for h in listing["hints"] if h.startswith("Look inside")]
    assert inside == [
        f'Look inside: localViewStructure {{"path":"{root / "pkg"}"}} or add "depth":2.'
    ]
    only_generated = await run_one(TOOL, {"path": "pkg", "noIgnore": True})
    assert [e["name"] for e in only_generated["data"]["entries"]] == ["__pycache__", "mod.py"]
    assert not any(h.startswith("Look inside") for h in only_generated["hints"])
