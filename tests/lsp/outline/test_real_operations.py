"""The outline, symbol, hover, implementation, type-hierarchy and diagnostics answers of real
language servers (ty, basedpyright, typescript-language-server) on the committed fixture
projects, with known answers; what a server lacks is answered LSP_NOT_AVAILABLE naming one
that has it."""

from __future__ import annotations

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
from tests.lsp.conftest import FIXTURES
from tests.lsp.conftest import assert_no_leftovers
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import result_of
from tests.lsp.conftest import server_sessions
from tests.security.planted import PLANTED

# Real language servers index their fixture projects: seconds each.
pytestmark = pytest.mark.slow

PY, TS = FIXTURES / "py_project", FIXTURES / "ts_project"
KINDS = str(PY / "kinds.py")
PYTHON_SERVERS = ("ty", "basedpyright")
TOKEN = next(p.value for p in PLANTED if p.name == "github classic")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def gateways() -> AsyncIterator[dict[str, Gateway]]:
    async with AsyncExitStack() as stack:
        made = {
            server: await stack.enter_async_context(
                Gateway(Config.from_env(lsp_env(OCTO_LSP_PYTHON_SERVERS=server)), roots=[PY, TS])
            )
            for server in PYTHON_SERVERS
        }
        yield made
        sessions = server_sessions()
    await assert_no_leftovers(sessions)


def _gateway(gateways: dict[str, Gateway], server: str) -> Gateway:
    try:
        found = find_servers("python", lsp_env(OCTO_LSP_PYTHON_SERVERS=server))[0].server_id
    except LspNotAvailableError:
        found = None
    if found != server:
        pytest.skip(f"{server} is not installed")
    return gateways[server]


def _typescript() -> None:
    try:
        find_servers(
            "typescript", lsp_env(OCTO_LSP_TYPESCRIPT_SERVERS="typescript-language-server")
        )[0]
    except LspNotAvailableError:
        pytest.skip("typescript-language-server is not installed (.ci/run installs it)")


async def _result(gw: Gateway, tool: str, **query: Any) -> Mapping[str, Any]:
    return result_of(await gw.call(tool, [query]))


async def _data(gw: Gateway, tool: str, **query: Any) -> Mapping[str, Any]:
    result = await _result(gw, tool, **query)
    assert result["status"] == "success", result
    data: Mapping[str, Any] = result["data"]
    return data


def _names(symbols: list[Mapping[str, Any]]) -> list[Any]:
    return [(s["name"], s["kind"], s["startLine"], _names(s.get("children", []))) for s in symbols]


@pytest.mark.parametrize("server", PYTHON_SERVERS)
async def test_outline_with_nested_classes(gateways: dict[str, Gateway], server: str) -> None:
    data = await _data(_gateway(gateways, server), "lspDocumentSymbols", uri=KINDS, depth=5)
    assert (data["server"], data["source"]) == (server, "lsp")
    outer = data["symbols"][-1]
    assert _names([outer]) == [
        (
            "Outer",
            "class",
            33,
            [
                (
                    "Inner",
                    "class",
                    34,
                    [
                        ("Innermost", "class", 35, [("deep", "method", 36, [])]),
                        ("method", "method", 39, []),
                    ],
                )
            ],
        )
    ]
    assert [s["name"] for s in data["symbols"]] == ["Drawable", "Animal", "Dog", "Puppy", "Outer"]


@pytest.mark.parametrize("server", PYTHON_SERVERS)
async def test_workspace_symbol_found_by_name_from_the_root(
    gateways: dict[str, Gateway], server: str
) -> None:
    result = await _result(
        _gateway(gateways, server), "lspWorkspaceSymbols", query="Puppy", uri=str(PY)
    )
    (found,) = result["data"]["symbols"]
    assert (found["name"], found["kind"], found["path"], found["line"], found["match"]) == (
        "Puppy",
        "class",
        "kinds.py",
        28,
        "exact",
    )
    assert result["hints"][0].startswith("Its uses: lspFindReferences")


@pytest.mark.parametrize("server", PYTHON_SERVERS)
async def test_hover_holds_the_docstring(gateways: dict[str, Gateway], server: str) -> None:
    gw = _gateway(gateways, server)
    data = await _data(gw, "lspHover", uri=KINDS, symbolName="speak", lineHint=16)
    assert "The animal's sound." in data["markdown"]
    assert "speak" in data["markdown"]


@pytest.mark.parametrize("server", PYTHON_SERVERS)
async def test_implementations_of_an_abstract_method(
    gateways: dict[str, Gateway], server: str
) -> None:
    gw = _gateway(gateways, server)
    data = await _data(
        gw, "lspGotoDefinition", uri=KINDS, symbolName="speak", lineHint=16, kind="implementation"
    )
    lines = {d["line"] for d in data["definitions"]}
    # The overrides in Dog and Puppy (servers may list the abstract one too).
    assert {21, 29} <= lines <= {16, 21, 29}


@pytest.mark.parametrize("server", PYTHON_SERVERS)
async def test_type_definition_and_declaration(gateways: dict[str, Gateway], server: str) -> None:
    gw = _gateway(gateways, server)
    main = str(PY / "main.py")
    declared = await _data(
        gw, "lspGotoDefinition", uri=main, symbolName="total_area", lineHint=7, kind="declaration"
    )
    assert [d["path"] for d in declared["definitions"]] == ["geometry.py"]


async def test_ty_subtypes_and_supertypes(gateways: dict[str, Gateway]) -> None:
    gw = _gateway(gateways, "ty")
    data = await _data(
        gw, "lspTypeHierarchy", uri=KINDS, symbolName="Dog", lineHint=20, direction="both", depth=2
    )
    assert data["item"]["name"] == "Dog"
    assert [(t["name"], t["depth"], t["of"]) for t in data["subtypes"]] == [("Puppy", 1, "Dog")]
    supers = [(t["name"], t["depth"]) for t in data["supertypes"]]
    assert supers[0] == ("Animal", 1)
    assert ("ABC", 2) in supers


async def test_basedpyright_type_hierarchy_names_a_server_that_has_it(
    gateways: dict[str, Gateway],
) -> None:
    gw = _gateway(gateways, "basedpyright")
    result = await _result(gw, "lspTypeHierarchy", uri=KINDS, symbolName="Dog", lineHint=20)
    assert result["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert result["error"]["message"] == "basedpyright does not support type hierarchy"
    assert result["hints"][0].startswith("ty answers type hierarchy for Python")


@pytest.mark.parametrize("server", PYTHON_SERVERS)
async def test_diagnostics_of_a_planted_type_error(
    gateways: dict[str, Gateway], server: str
) -> None:
    gw = _gateway(gateways, server)
    data = await _data(gw, "lspDiagnostics", uri=str(PY / "planted_error.py"), severity="error")
    (found,) = data["diagnostics"]
    assert (found["path"], found["line"], found["severity"], found["source"]) == (
        "planted_error.py",
        5,
        "error",
        server,
    )
    assert found["content"] == 'broken: int = double("two")'


async def test_typescript_interface_implementations_and_outline(
    gateways: dict[str, Gateway],
) -> None:
    _typescript()
    gw = gateways["ty"]
    animals = str(TS / "animals.ts")
    data = await _data(
        gw,
        "lspGotoDefinition",
        uri=animals,
        symbolName="Speaker",
        lineHint=1,
        kind="implementation",
    )
    assert data["server"] == "typescript-language-server"
    assert [d["content"] for d in data["definitions"]] == [
        "export class Cat implements Speaker {",
        "export class Robot implements Speaker {",
    ]
    outline = await _data(gw, "lspDocumentSymbols", uri=animals)
    assert [(s["name"], s["kind"]) for s in outline["symbols"]] == [
        ("Speaker", "interface"),
        ("Cat", "class"),
        ("Robot", "class"),
    ]
    found = await _data(gw, "lspWorkspaceSymbols", query="Robot", uri=str(TS))
    assert [(s["name"], s["path"], s["line"]) for s in found["symbols"]] == [
        ("Robot", "animals.ts", 11)
    ]
    hover = await _data(gw, "lspHover", uri=animals, symbolName="Cat", lineHint=5)
    assert "class Cat" in hover["markdown"]
    refused = await _result(gw, "lspTypeHierarchy", uri=animals, symbolName="Cat", lineHint=5)
    assert refused["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert any("kind 'implementation'" in hint for hint in refused["hints"])


async def test_gates_and_redaction_on_a_real_server(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "creds.py").write_text(
        f'def connect():\n    """Uses {TOKEN} to log in."""\n\n\nconnect()\n'
    )
    (tmp_path / ".private.py").write_text("def tucked():\n    return 1\n")
    env = lsp_env(OCTO_LSP_PYTHON_SERVERS="ty,basedpyright")
    async with Gateway(Config.from_env(env), roots=[tmp_path]) as gw:
        hover = await _result(gw, "lspHover", uri="creds.py", symbolName="connect", lineHint=5)
        assert hover["status"] == "success", hover
        assert "Uses" in hover["data"]["markdown"]
        assert TOKEN not in str(hover)
        for tool, extra in (
            ("lspHover", {"symbolName": "tucked", "lineHint": 1}),
            ("lspTypeHierarchy", {"symbolName": "tucked", "lineHint": 1}),
            ("lspDocumentSymbols", {}),
            ("lspDiagnostics", {}),
        ):
            refused = await _result(gw, tool, uri=".private.py", **extra)
            assert refused["error"]["code"] == "PATH_NOT_ALLOWED", (tool, refused)
            assert '"hidden":true' in refused["hints"][0]
        found = await _result(gw, "lspWorkspaceSymbols", query="tucked")
        assert (found["status"], found["data"]["symbols"]) == ("empty", [])
        assert found["hints"][-1].endswith('lspWorkspaceSymbols {"query":"tucked","hidden":true}')
        shown = await _data(gw, "lspWorkspaceSymbols", query="tucked", hidden=True)
        assert [s["path"] for s in shown["symbols"]] == [".private.py"]
