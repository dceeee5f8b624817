"""The clone folder is fenced in every walk: a root above it (OCTO_CLONE_DIR under an allowed
root, a root of the home folder) lists, searches, counts and indexes this credential
identity's clones, never another identity's, nor the records or work in progress."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from octo import Gateway
from octo.core.config import Config
from octo.core.files.paths import PathPolicy
from octo.core.files.paths import clone_root
from octo.core.handles import credential_identity
from octo.lsp.servers.running.warm import sample_source

#: One line of each file holds it: what a walk sees is what the answers name or count.
WORD = "fencepost"
MINE = "mine-token-not-real"
THEIRS = "their-token-not-real"


def _plant(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _source(name: str) -> str:
    return f"import util\n\n\ndef {WORD}_{name}():\n    return util.VALUE\n"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path / "home"),
        "GITHUB_TOKEN": MINE,
        "OCTO_CLONE_DIR": str(tmp_path / "root" / "clones"),
        "OCTO_INDEX_DIR": str(tmp_path / "indexes"),
        "OCTO_EMBED_URL": "http://embed.test/v1",
        "OCTO_EMBED_MODEL": "bag-of-words-test",
    }


@pytest.fixture
def root(tmp_path: Path, env: dict[str, str]) -> Path:
    """The one root: a project, and below it the clone folder holding a clone of this
    identity, one of another identity, records and an extraction in progress."""
    root = tmp_path / "root"
    clones = root / "clones"
    mine = credential_identity(env)
    theirs = credential_identity({**env, "GITHUB_TOKEN": THEIRS})
    _plant(root / "app" / "main.py", _source("app"))
    _plant(root / "app" / "util.py", "VALUE = 1\n")
    _plant(clones / mine / "gh-o-r-aaaa" / "pkg" / "ours.py", _source("ours"))
    _plant(clones / mine / "gh-o-r-aaaa" / "pkg" / "util.py", "VALUE = 2\n")
    _plant(clones / theirs / "gh-o-private-bbbb" / "pkg" / "theirs.py", _source("theirs"))
    _plant(clones / theirs / "gh-o-private-bbbb" / "pkg" / "util.py", "VALUE = 3\n")
    _plant(clones / theirs / "gh-o-private-bbbb" / "package.json", f'{{"name": "{WORD}"}}\n')
    _plant(clones / ".records" / theirs / "gh-o-private-bbbb.json", f'{{"{WORD}": 1}}\n')
    _plant(clones / ".work" / "x1" / "pkg" / "working.py", _source("working"))
    return root.resolve()


@pytest.fixture
async def gateway(env: dict[str, str], root: Path) -> AsyncIterator[Gateway]:
    # Not entered: the semantic index is its keyword side only.
    gw = Gateway(Config.from_env(env), roots=[root])
    try:
        yield gw
    finally:
        await gw.aclose()


def _forbidden(env: dict[str, str]) -> list[str]:
    theirs = credential_identity({**env, "GITHUB_TOKEN": THEIRS})
    return [theirs, "theirs", "private", ".records", "records", ".work", "working", "x1"]


async def answer(gw: Gateway, tool: str, **query: Any) -> dict[str, Any]:
    [result] = (await gw.call(tool, [query])).to_wire()["results"]
    assert result["status"] != "error", result
    return dict(result)


#: Every walking tool over the root, hidden entries included where a tool takes them.
QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("localFindFiles", {"path": ".", "hidden": True, "maxDepth": 10}),
    ("localFindFiles", {"path": ".", "hidden": True, "noIgnore": True, "name": "*.py"}),
    ("localViewStructure", {"path": ".", "hidden": True, "recursive": True, "depth": 5}),
    ("localViewStructure", {"path": "*/*", "hidden": True}),
    ("localFindFiles", {"path": "*/*/*", "hidden": True}),
    ("localSearchCode", {"path": ".", "pattern": WORD, "hidden": True}),
    ("localSearchCode", {"path": ".", "pattern": WORD, "hidden": True, "filesOnly": True}),
    ("localSearchCode", {"path": ".", "pattern": WORD, "hidden": True, "outputMode": "countOnly"}),
    ("localSearchCode", {"path": ".", "pattern": WORD, "hidden": True, "outputMode": "totalOnly"}),
    ("localSearchCode", {"path": ".", "pattern": WORD, "include": ["clones/**"], "hidden": True}),
    ("localSearchCode", {"path": "*/*/*/pkg", "pattern": WORD, "hidden": True}),
    ("localFindAndSearchCode", {"path": ".", "pattern": WORD, "hidden": True, "maxDepth": 10}),
    ("localSearchStructure", {"path": ".", "pattern": "def $F(): $$$B", "language": "python"}),
    ("localDependencyGraph", {"path": ".", "operation": "hotspots"}),
    ("localDependencyGraph", {"path": ".", "operation": "unreachable"}),
    ("semanticIndexCodebase", {"path": "."}),
    ("semanticSearchCode", {"query": f"{WORD} theirs working", "limit": 50}),
]


@pytest.mark.parametrize(
    ("tool", "query"), QUERIES, ids=[f"{t}-{i}" for i, (t, _) in enumerate(QUERIES)]
)
async def test_no_walk_names_another_identitys_clone_nor_the_records(
    gateway: Gateway, env: dict[str, str], tool: str, query: dict[str, Any]
) -> None:
    if tool == "semanticSearchCode":
        await answer(gateway, "semanticIndexCodebase", path=".")
    text = str(await answer(gateway, tool, **query))
    assert [word for word in _forbidden(env) if word in text] == []


async def test_counts_count_this_identitys_clones_and_nothing_else(gateway: Gateway) -> None:
    total = await answer(
        gateway, "localSearchCode", path=".", pattern=WORD, hidden=True, outputMode="totalOnly"
    )
    # main.py and this identity's ours.py: one line each.
    assert total["data"]["stats"]["totalMatches"] == 2, total
    found = await answer(gateway, "localFindFiles", path=".", hidden=True, name="ours.py")
    assert "ours.py" in str(found)


async def test_diagnostics_of_a_folder_check_no_file_of_another_identity(
    env: dict[str, str], root: Path
) -> None:
    theirs = credential_identity({**env, "GITHUB_TOKEN": THEIRS})
    _plant(root / "clones" / theirs / "gh-o-private-bbbb" / "bad.py", 'count: int = "theirs"\n')
    async with Gateway(Config.from_env(env), roots=[root]) as gw:
        result = await answer(gw, "lspDiagnostics", uri=".")
    assert [word for word in _forbidden(env) if word in str(result)] == []


def test_the_fence_of_a_walk_above_the_clone_folder(env: dict[str, str], root: Path) -> None:
    clones = root / "clones"
    mine = clone_root(clones, credential_identity(env))
    paths = PathPolicy([root], [mine], [clones])
    theirs = credential_identity({**env, "GITHUB_TOKEN": THEIRS})
    assert paths.fenced_below(root) == ("clones/.records", "clones/.work", f"clones/{theirs}")
    # What every identity reads alike, and a walk from inside one clone.
    assert paths.fenced_below(root, shared=True) == ("clones",)
    assert paths.fenced_below(mine / "gh-o-r-aaaa") == ()
    # No folder of this identity there: the whole clone folder.
    assert PathPolicy([root], [clones / "none"], [clones]).fenced_below(root) == ("clones",)
    # A language server is warmed with no file of the fenced folders.
    sample = sample_source(paths, root)
    assert sample is not None and theirs not in str(sample)
