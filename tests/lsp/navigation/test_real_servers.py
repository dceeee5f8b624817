"""Real language servers on the committed fixture projects, with known answers.

One warm gateway per Python server for the whole module (each server cold-starts once);
after every test, every process we have is a live pool server, and after the module none.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from octo import Gateway
from octo.core.config import Config
from octo.core.errors import LspNotAvailableError
from octo.lsp.servers.table.commands import find_servers
from octo.transports.processes import running
from tests.lsp.conftest import FIXTURES
from tests.lsp.conftest import assert_no_leftovers
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import result_of
from tests.lsp.conftest import server_sessions

# Real language servers index their fixture projects: seconds each.
pytestmark = pytest.mark.slow

PY, C, TS = (FIXTURES / name for name in ("py_project", "c_project", "ts_project"))
PYTHON_SERVERS = ("basedpyright", "ty")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def _available(family: str, **env: str) -> str | None:
    try:
        return find_servers(family, lsp_env(**env))[0].server_id
    except LspNotAvailableError:
        return None


@pytest.fixture(scope="module")
async def gateways() -> AsyncIterator[dict[str, Gateway]]:
    async with AsyncExitStack() as stack:
        made = {
            server: await stack.enter_async_context(
                Gateway(Config.from_env(lsp_env(OCTO_LSP_PYTHON_SERVERS=server)), roots=[PY, C, TS])
            )
            for server in PYTHON_SERVERS
        }
        yield made
        sessions = server_sessions()
    await assert_no_leftovers(sessions)


@pytest.fixture(autouse=True)
async def only_pool_servers_run(gateways: dict[str, Gateway]) -> AsyncIterator[None]:
    yield
    # Every process we have is in the session of a language server octo counts as running.
    assert len(server_sessions()) <= running().get("lsp", 0)


def _gateway(gateways: dict[str, Gateway], server: str) -> Gateway:
    if _available("python", OCTO_LSP_PYTHON_SERVERS=server) != server:
        pytest.skip(f"{server} is not installed")
    return gateways[server]


async def _data(gw: Gateway, tool: str, **query: Any) -> Mapping[str, Any]:
    result = result_of(await gw.call(tool, [query]))
    assert result["status"] == "success", result
    data: Mapping[str, Any] = result["data"]
    return data


def _json(value: Mapping[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"))


def _where(locations: list[Mapping[str, Any]]) -> set[tuple[str, int]]:
    return {(loc["path"], loc["line"]) for loc in locations}


def _edges(data: Mapping[str, Any]) -> set[tuple[str, str, int]]:
    """Each call as (caller, callee, depth); the end left out is the asked function (item)."""
    asked = data["item"]
    return {
        (c.get("from", asked)["name"], c.get("to", asked)["name"], c["depth"])
        for c in data["calls"]
    }


# -- Python -------------------------------------------------------------------------------


@pytest.mark.parametrize("server", PYTHON_SERVERS)
async def test_python_definition_across_files(gateways: dict[str, Gateway], server: str) -> None:
    gw = _gateway(gateways, server)
    query = {"uri": str(PY / "main.py"), "symbolName": "total_area", "lineHint": 7}
    result = result_of(await gw.lsp_goto_definition([query]))
    data = result["data"]
    assert data["server"] == server
    assert data["resolved"]["line"] == 7
    (definition,) = data["definitions"]
    assert definition["path"] == "geometry.py"
    assert (definition["line"], definition["character"]) == (4, 4)
    assert definition["content"] == "def total_area(shapes: list[Square]) -> float:"
    assert definition["contextAfter"][0] == "    return sum(area(s) for s in shapes)"
    geometry = str(PY / "geometry.py")
    # ty names the whole function (lines 4-5); basedpyright only its name: 30 lines are read.
    body_end = 5 if server == "ty" else 34
    place = {"uri": geometry, "symbolName": "total_area", "lineHint": 4}
    assert result["hints"] == [
        "Read the definition: localGetFileContent "
        + _json({"path": geometry, "startLine": 4, "endLine": body_end}),
        f"Its uses: lspFindReferences {_json(place)}",
        f"Its callers: lspCallHierarchy {_json({**place, 'direction': 'incoming'})}",
    ]


@pytest.mark.parametrize("server", PYTHON_SERVERS)
async def test_python_references_with_and_without_declaration(
    gateways: dict[str, Gateway], server: str
) -> None:
    gw = _gateway(gateways, server)
    query = {"uri": str(PY / "shapes.py"), "symbolName": "area", "lineHint": 9}
    both = await _data(gw, "lspFindReferences", **query)
    assert {("shapes.py", 9), ("geometry.py", 5), ("geometry.py", 9)} <= _where(both["references"])
    assert both["totalReferences"] == len(both["references"])
    uses = await _data(gw, "lspFindReferences", **query, includeDeclaration=False)
    assert ("shapes.py", 9) not in _where(uses["references"])
    assert {("geometry.py", 5), ("geometry.py", 9)} <= _where(uses["references"])
    bare = await _data(gw, "lspFindReferences", **query, contextLines=0)
    for ref in bare["references"]:  # spec 002's shape: the context lists are always there
        assert set(ref) == {"path", "line", "character", "content"}
    paged = await _data(gw, "lspFindReferences", **query, referencesPerPage=1, page=2)
    assert len(paged["references"]) == 1
    assert paged["pagination"] == {
        "currentPage": 2,
        "totalPages": both["totalReferences"],
        "hasMore": both["totalReferences"] > 2,
    }
    # Spec 000's tokens block: the answer's size, and the page that continues it.
    assert paged["tokens"]["requiresPagination"] is paged["pagination"]["hasMore"]
    assert paged["tokens"]["paginationHint"] == "More content: continue with page=3"
    assert both["tokens"]["truncated"] is False and both["tokens"]["estimatedTokens"] > 0


@pytest.mark.parametrize("server", PYTHON_SERVERS)
async def test_a_cold_server_finds_references_in_files_not_yet_opened(
    server: str, tmp_path: Path
) -> None:
    # basedpyright answers from the open files alone until it has listed the workspace.
    if _available("python", OCTO_LSP_PYTHON_SERVERS=server) != server:
        pytest.skip(f"{server} is not installed")
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "lib.py").write_text("def helper(value: int) -> int:\n    return value * 2\n")
    for name in "abcd":
        uses = [f"def use_{i}(n: int) -> int:\n    return helper(n + {i})\n" for i in range(5)]
        (tmp_path / f"{name}.py").write_text("from lib import helper\n\n" + "\n".join(uses))
    config = Config.from_env(lsp_env(OCTO_LSP_PYTHON_SERVERS=server))
    async with Gateway(config, roots=[tmp_path]) as gw:
        query = {"uri": "lib.py", "symbolName": "helper", "lineHint": 1}
        data = await _data(gw, "lspFindReferences", **query)
    assert data["totalReferences"] == 1 + 4 * 6  # the definition, 4 imports, 20 calls


@pytest.mark.parametrize("server", PYTHON_SERVERS)
async def test_python_calls_at_depth_two(gateways: dict[str, Gateway], server: str) -> None:
    gw = _gateway(gateways, server)
    incoming = await _data(
        gw,
        "lspCallHierarchy",
        uri=str(PY / "shapes.py"),
        symbolName="area",
        lineHint=9,
        direction="incoming",
        depth=2,
    )
    assert _edges(incoming) == {
        ("total_area", "area", 1),
        ("largest", "area", 1),
        ("report", "total_area", 2),
    }
    paged = await _data(
        gw,
        "lspCallHierarchy",
        uri=str(PY / "shapes.py"),
        symbolName="area",
        lineHint=9,
        direction="incoming",
        depth=2,
        callsPerPage=1,
        page=2,
    )
    assert paged["calls"] == incoming["calls"][1:2]
    assert paged["totalCalls"] == 3
    assert paged["pagination"] == {"currentPage": 2, "totalPages": 3, "hasMore": True}
    site = next(c for c in incoming["calls"] if c["from"]["name"] == "total_area")
    assert site["from"]["path"] == "geometry.py"
    assert site["callSites"][0] == {"line": 5, "character": 15}
    assert site["content"] == "    return sum(area(s) for s in shapes)"
    outgoing = await _data(
        gw,
        "lspCallHierarchy",
        uri=str(PY / "main.py"),
        symbolName="main",
        lineHint=10,
        direction="outgoing",
        depth=2,
    )
    edges = _edges(outgoing)
    assert {("main", "report", 1), ("main", "print", 1), ("report", "total_area", 2)} <= edges
    printed = next(c for c in outgoing["calls"] if c.get("to", {}).get("name") == "print")
    assert printed["to"]["external"] is True
    assert printed["to"]["path"].startswith("/")
    nobody = await gw.call(
        "lspCallHierarchy",
        [
            {
                "uri": str(PY / "main.py"),
                "symbolName": "main",
                "lineHint": 10,
                "direction": "incoming",
            }
        ],
    )
    (unused,) = nobody.to_wire()["results"]
    assert unused["status"] == "empty"
    uses = {"uri": str(PY / "main.py"), "symbolName": "main", "lineHint": 10}
    assert unused["hints"] == [
        "Nothing in the workspace calls main; its other uses (passed as a value, tests): "
        f"lspFindReferences {_json(uses)}"
    ]


# -- C (clangd) ---------------------------------------------------------------------------


async def test_c_definition_references_and_calls(gateways: dict[str, Gateway]) -> None:
    if _available("c") is None:
        pytest.skip("clangd is not installed")
    gw = gateways[PYTHON_SERVERS[0]]
    main_c, util_c = str(C / "main.c"), str(C / "util.c")
    data = await _data(gw, "lspGotoDefinition", uri=main_c, symbolName="add", lineHint=5)
    assert data["resolved"]["character"] == 23  # the call, not the comment above it
    assert _where(data["definitions"]) <= {("util.h", 4), ("util.c", 3)}
    assert data["definitions"]
    query = {"uri": util_c, "symbolName": "add", "lineHint": 3}
    both = await _data(gw, "lspFindReferences", **query)
    assert {("util.c", 3), ("util.c", 8), ("main.c", 5)} <= _where(both["references"])
    uses = await _data(gw, "lspFindReferences", **query, includeDeclaration=False)
    assert _where(uses["references"]) == {("util.c", 8), ("main.c", 5)}
    incoming = await _data(gw, "lspCallHierarchy", **query, direction="incoming", depth=2)
    assert _edges(incoming) == {
        ("main", "add", 1),
        ("twice", "add", 1),
        ("main", "twice", 2),
    }
    outgoing = await _data(
        gw,
        "lspCallHierarchy",
        uri=main_c,
        symbolName="main",
        lineHint=3,
        direction="outgoing",
        depth=2,
    )
    assert _edges(outgoing) == {
        ("main", "add", 1),
        ("main", "twice", 1),
        ("twice", "add", 2),
    }


# -- TypeScript (npm servers from .ci/run) ------------------------------------------------


async def test_typescript_definition_references_and_calls(gateways: dict[str, Gateway]) -> None:
    if shutil.which("node") is None or _available("typescript") is None:
        pytest.skip("no TypeScript language server (npm install in .ci/run)")
    gw = gateways[PYTHON_SERVERS[0]]
    app, math = str(TS / "app.ts"), str(TS / "math.ts")
    data = await _data(gw, "lspGotoDefinition", uri=app, symbolName="add", lineHint=5)
    assert _where(data["definitions"]) == {("math.ts", 1)}
    query = {"uri": math, "symbolName": "add", "lineHint": 1}
    both = await _data(gw, "lspFindReferences", **query)
    assert {("math.ts", 1), ("math.ts", 6), ("app.ts", 5)} <= _where(both["references"])
    uses = await _data(gw, "lspFindReferences", **query, includeDeclaration=False)
    assert ("math.ts", 1) not in _where(uses["references"])
    assert {("math.ts", 6), ("app.ts", 5)} <= _where(uses["references"])
    incoming = await _data(gw, "lspCallHierarchy", **query, direction="incoming", depth=2)
    assert _edges(incoming) == {("run", "add", 1), ("sum", "add", 1), ("run", "sum", 2)}
    outgoing = await _data(
        gw,
        "lspCallHierarchy",
        uri=app,
        symbolName="run",
        lineHint=3,
        direction="outgoing",
        depth=2,
    )
    assert {("run", "add", 1), ("run", "sum", 1), ("sum", "add", 2)} <= _edges(outgoing)
