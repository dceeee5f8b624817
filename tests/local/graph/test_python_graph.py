"""localDependencyGraph over Python: a fixture package's edges equal grimp's, its cycles
grimp's strongly connected components; dependents, paths, unreachable files and flags have
known answers."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grimp
import pytest

import octo
from octo.core.config import Config
from tests.local.conftest import Call
from tests.local.conftest import Tree

FIXTURE = Path(__file__).parent / "fixtures" / "python"


@pytest.fixture
def project(root: Path) -> Path:
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    return root


@pytest.fixture
def grimp_graph(project: Path) -> Iterator[Any]:
    sys.path.insert(0, str(project))
    try:
        yield grimp.build_graph("shop", cache_dir=None)
    finally:
        sys.path.remove(str(project))
        for name in [n for n in sys.modules if n == "shop" or n.startswith("shop.")]:
            del sys.modules[name]


async def _one(call: Call, **query: Any) -> dict[str, Any]:
    return (await call("localDependencyGraph", query))[0]


def _module(rel: str) -> str:
    return rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


async def test_edges_equal_grimps(call: Call, project: Path, grimp_graph: Any) -> None:
    expected = {
        (importer, imported)
        for importer in grimp_graph.modules
        for imported in grimp_graph.find_modules_directly_imported_by(importer)
    }
    found = set()
    for module in grimp_graph.modules:
        answer = await _one(call, operation="dependencies", file=module)
        for item in answer["data"]["items"]:
            if item.get("package") is None and "dynamic" not in (item.get("kinds") or []):
                found.add((module, _module(item["file"])))
    assert found == expected


async def test_cycles_equal_grimps_components(call: Call, project: Path, grimp_graph: Any) -> None:
    components = set()
    for module in grimp_graph.modules:
        down = grimp_graph.find_downstream_modules(module)
        members = {module} | {m for m in down if module in grimp_graph.find_downstream_modules(m)}
        if len(members) > 1:
            components.add(frozenset(members))
    answer = await _one(call, operation="cycles")
    found = {frozenset(_module(m) for m in item["members"]) for item in answer["data"]["items"]}
    assert found == components
    largest = answer["data"]["items"][0]
    hops = largest["hops"]
    assert hops[0]["file"] == largest["members"][0]
    assert hops[-1]["imports"] == largest["members"][0]


async def test_flags_and_externals(call: Call, project: Path) -> None:
    models = await _one(call, operation="dependencies", file="shop/models.py")
    api = next(i for i in models["data"]["items"] if i["file"] == "shop/api.py")
    assert api["kinds"] == ["typeOnly"] and api["line"] == 4
    api_deps = await _one(call, operation="dependencies", file="shop.api")
    by_file = {i["file"]: i for i in api_deps["data"]["items"]}
    assert by_file["shop/cycle_b.py"]["kinds"] == ["lazy"]
    assert by_file["json"]["package"] == "json" and by_file["json"]["standardLibrary"]
    assert "shop/orphan.py" not in by_file  # the docstring's "import" is text
    helpers = await _one(call, operation="dependencies", file="shop/util/helpers.py")
    plugin = next(i for i in helpers["data"]["items"] if i["file"] == "shop/plugins/extra.py")
    assert plugin["kinds"] == ["dynamic"] and plugin["line"] == 4
    extra = await _one(call, operation="dependencies", file="shop/plugins/extra.py")
    assert any(h.startswith("About the package: packageSearch") for h in extra["hints"])


async def test_dependents_ranked_by_distance(call: Call, project: Path) -> None:
    answer = await _one(call, operation="dependents", file="shop/models.py", depth=3)
    reached = [(i["file"], i["distance"]) for i in answer["data"]["items"]]
    assert ("shop/api.py", 1) in reached and ("shop/__init__.py", 1) in reached
    assert ("shop/__main__.py", 2) in reached
    assert [d for _, d in reached] == sorted(d for _, d in reached)
    assert answer["hints"][0].startswith("See the import: localGetFileContent")


async def test_path_hops(call: Call, project: Path) -> None:
    answer = await _one(call, operation="path", file="shop/__main__.py", target="shop.cycle_a")
    hops = answer["data"]["items"][0]["hops"]
    assert [h["file"] for h in hops] == ["shop/__main__.py", "shop/api.py", "shop/cycle_b.py"]
    assert hops[-1]["imports"] == "shop/cycle_a.py"
    none = await _one(call, operation="path", file="shop/orphan.py", target="shop/api.py")
    assert none["status"] == "empty"


async def test_unreachable_and_hotspots(call: Call, project: Path) -> None:
    answer = await _one(call, operation="unreachable")
    items = {i["file"]: i["reason"] for i in answer["data"]["items"]}
    assert items == {"shop/orphan.py": "no file imports it"}
    assert "shop/__main__.py" in answer["data"]["entryPoints"]
    # Loading a module runs its packages' __init__ files: here the whole package.
    given = await _one(call, operation="unreachable", entryPoints=["shop.util.helpers"])
    assert {i["file"] for i in given["data"]["items"]} == {"shop/__main__.py", "shop/orphan.py"}
    hot = await _one(call, operation="hotspots")
    assert hot["data"]["items"][0]["file"] in {"shop/api.py", "shop/models.py"}


async def test_incremental_rebuild_sees_an_edit(call: Call, project: Path) -> None:
    first = await _one(call, operation="dependents", file="shop/orphan.py")
    assert first["status"] == "empty"
    (project / "shop" / "cycle_a.py").write_text("from shop import cycle_b\nimport shop.orphan\n")
    again = await _one(call, operation="dependents", file="shop/orphan.py")
    assert [i["file"] for i in again["data"]["items"]] == ["shop/cycle_a.py"]


async def test_unknown_file_is_not_found(call: Call, project: Path) -> None:
    answer = await _one(call, operation="dependents", file="shop/nothing.py")
    assert answer["error"]["code"] == "NOT_FOUND"


async def test_src_layout_namespace_packages_and_scripts(call: Call, tree: Tree) -> None:
    tree(
        {
            "pyproject.toml": '[project]\nname = "tool"\n[project.scripts]\ntool = "tool.cli:main"\n',
            "src/tool/__init__.py": "",
            "src/tool/cli.py": "from tool.plugins.loader import load\nfrom . import core\n",
            "src/tool/core.py": "",
            # tool/plugins has no __init__.py: a namespace package.
            "src/tool/plugins/loader.py": "from ..core import *\n",
            "src/tool/plugins/unused.py": "",
            "tests/test_cli.py": "import tool.cli\n",
        }
    )
    cli = await _one(call, operation="dependencies", file="tool.cli")
    assert {i["file"] for i in cli["data"]["items"]} == {
        "src/tool/plugins/loader.py",
        "src/tool/core.py",
    }
    loader = await _one(call, operation="dependencies", file="tool.plugins.loader")
    assert [i["file"] for i in loader["data"]["items"]] == ["src/tool/core.py"]
    unreachable = await _one(call, operation="unreachable", includeTests=False)
    assert "src/tool/cli.py" in unreachable["data"]["entryPoints"]
    assert [i["file"] for i in unreachable["data"]["items"]] == [
        "src/tool/plugins/unused.py",
        "tests/test_cli.py",
    ]


async def test_the_graph_is_kept_on_disk(project: Path, tmp_path: Path) -> None:
    config = Config(env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    query = {"operation": "dependents", "file": "shop/models.py", "depth": 2}
    answers = []
    for _ in range(2):
        async with octo.Gateway(config, roots=[project]) as gateway:
            answers.append((await gateway.call("localDependencyGraph", [query])).to_wire())
        assert list((tmp_path / "cache" / "octo" / "graphs").glob("*.json"))
    assert answers[0]["results"][0]["data"] == answers[1]["results"][0]["data"]


async def test_a_cycle_names_the_next_calls(call: Call, project: Path) -> None:
    answer = await _one(call, operation="cycles")
    hints = " ".join(answer["hints"])
    assert "See the import: localGetFileContent" in hints
    assert '"symbolName":"cycle_b"' in hints or '"symbolName":"serve"' in hints


async def test_file_named_from_the_allowed_root(call: Call, project: Path) -> None:
    answer = await _one(call, operation="dependents", path="shop", file="shop/orphan.py")
    assert answer["status"] == "empty" and answer["data"]["root"].endswith("shop")
    absolute = await _one(call, operation="dependencies", file=str(project / "shop" / "orphan.py"))
    assert [i["file"] for i in absolute["data"]["items"]] == ["os"]


async def test_a_gateway_not_opened_builds_in_the_query(project: Path, tmp_path: Path) -> None:
    config = Config(env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    gateway = octo.Gateway(config, roots=[project])
    try:
        for _ in range(2):
            response = await gateway.call(
                "localDependencyGraph", [{"operation": "dependents", "file": "shop/orphan.py"}]
            )
            assert response.to_wire()["results"][0]["status"] == "empty"
    finally:
        await gateway.aclose()
