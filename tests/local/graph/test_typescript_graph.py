"""localDependencyGraph over JavaScript and TypeScript: tsconfig paths through extends,
index files, extension resolution, re-exports, workspace packages, dynamic imports and
require; bad settings are diagnostics."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from octo.local.graph.languages.script_modules import read_jsonc
from tests.local.conftest import Call
from tests.local.conftest import Tree

FIXTURE = Path(__file__).parent / "fixtures" / "typescript"


@pytest.fixture
def project(root: Path) -> Path:
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    return root


async def _one(call: Call, **query: Any) -> dict[str, Any]:
    return (await call("localDependencyGraph", query))[0]


async def test_every_edge_resolves(call: Call, project: Path) -> None:
    answer = await _one(call, operation="dependencies", file="src/index.ts")
    found = {(i["file"], i["line"], tuple(i.get("kinds") or ())) for i in answer["data"]["items"]}
    assert found == {
        ("src/feature/index.ts", 1, ()),
        ("packages/lib/src/util.ts", 2, ()),
        ("src/types.d.ts", 3, ("typeOnly",)),
        ("src/reexport.ts", 4, ()),
        ("packages/shared/index.js", 5, ()),
        ("react", 6, ()),
        ("fs", 7, ()),
        ("packages/shared/lib/pad.js", 9, ()),
        ("src/lazy.mjs", 12, ("dynamic",)),
    }
    items = {i["file"]: i for i in answer["data"]["items"]}
    assert items["fs"]["standardLibrary"] is True
    assert items["react"]["package"] == "react"
    assert 'packageSearch {"name":"react","ecosystem":"npm"}' in " ".join(answer["hints"])
    shared = await _one(call, operation="dependencies", file="packages/shared/index.js")
    assert [i["file"] for i in shared["data"]["items"]] == ["packages/shared/impl.cjs"]


async def test_dependents_cycles_paths_unreachable(call: Call, project: Path) -> None:
    dependents = await _one(call, operation="dependents", file="src/feature/index.ts")
    assert {i["file"] for i in dependents["data"]["items"]} == {
        "src/index.ts",
        "src/feature/b.ts",
        "src/index.test.ts",
    }
    cycles = await _one(call, operation="cycles")
    assert [i["members"] for i in cycles["data"]["items"]] == [
        ["src/feature/b.ts", "src/feature/index.ts"]
    ]
    path = await _one(call, operation="path", file="src/index.ts", target="src/feature/b.ts")
    assert [h["file"] for h in path["data"]["items"][0]["hops"]] == [
        "src/index.ts",
        "src/feature/index.ts",
    ]
    unreachable = await _one(call, operation="unreachable")
    assert {i["file"] for i in unreachable["data"]["items"]} == {
        "src/dead.ts",
        "bad/x.ts",
        "bad2/z.ts",
    }
    assert "src/index.ts" in unreachable["data"]["entryPoints"]
    no_tests = await _one(call, operation="unreachable", includeTests=False)
    assert "src/index.test.ts" in {i["file"] for i in no_tests["data"]["items"]}


async def test_bad_settings_are_diagnostics(call: Call, project: Path) -> None:
    answer = await _one(call, operation="dependencies", file="bad/x.ts")
    diagnostics = "\n".join(answer["data"]["diagnostics"])
    assert "bad/tsconfig.json: extends itself" in diagnostics
    assert "bad2/tsconfig.json: extends bad2/missing.json, which is not in the root" in diagnostics
    assert "bad/x.ts:2: '../../../outside' is outside the root" in diagnostics
    assert [i.get("kinds") for i in answer["data"]["items"]] == [["unresolved"], ["unresolved"]]


async def test_a_huge_minified_file_is_skipped(call: Call, project: Path) -> None:
    (project / "src" / "bundle.min.js").write_bytes(b"var a=1;" * 6_500_000)
    answer = await _one(call, operation="hotspots")
    assert any("src/bundle.min.js: larger than" in d for d in answer["data"]["diagnostics"])


def test_jsonc_comments_and_trailing_commas() -> None:
    text = '{"a": "// not a comment", /* c */ "b": [1, 2,], // end\n "c": {"d": 1,},}'
    assert read_jsonc(text) == {"a": "// not a comment", "b": [1, 2], "c": {"d": 1}}


async def test_jsconfig_paths(call: Call, tree: Tree) -> None:
    tree(
        {
            "web/jsconfig.json": '{"compilerOptions": {"paths": {"~/*": ["./src/*"]}}}',
            "web/src/app.jsx": 'import Button from "~/ui/button";\n',
            "web/src/ui/button.jsx": "export default function Button() {}\n",
        }
    )
    answer = await _one(call, operation="dependencies", file="web/src/app.jsx")
    assert [i["file"] for i in answer["data"]["items"]] == ["web/src/ui/button.jsx"]
