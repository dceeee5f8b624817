"""lspDocumentSymbols where no language server is installed: octo's tree-sitter outline, the
hidden/credential gates on it, and redaction of what it shows."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from octo import Gateway
from octo.core.config import Config
from tests.lsp.conftest import FIXTURES
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import result_of
from tests.security.planted import PLANTED

TOKEN = next(p.value for p in PLANTED if p.name == "github classic")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "kinds.py").write_text((FIXTURES / "py_project" / "kinds.py").read_text())
    (tmp_path / "animals.ts").write_text((FIXTURES / "ts_project" / "animals.ts").read_text())
    (tmp_path / ".hidden.py").write_text("def secret_place():\n    return 1\n")
    (tmp_path / "leaky.py").write_text(f'def connect(token="{TOKEN}"):\n    return token\n')
    return tmp_path


@pytest.fixture
async def gateway(project: Path) -> AsyncIterator[Gateway]:
    # No server of either language can be found: the outline is tree-sitter's.
    env = lsp_env(
        OCTO_LSP_PYTHON_SERVERS="no-such-server", OCTO_LSP_TYPESCRIPT_SERVERS="no-such-server"
    )
    async with Gateway(Config.from_env(env), roots=[project]) as gw:
        yield gw


async def _outline(gw: Gateway, **query: Any) -> Any:
    return result_of(await gw.call("lspDocumentSymbols", [query]))


def _tree(symbols: list[Any]) -> list[Any]:
    return [
        (s["name"], s["kind"], s["startLine"], s["endLine"], _tree(s.get("children", [])))
        for s in symbols
    ]


async def test_nested_classes_outlined_by_tree_sitter(gateway: Gateway, project: Path) -> None:
    result = await _outline(gateway, uri=str(project / "kinds.py"), depth=4)
    assert result["status"] == "success", result
    data = result["data"]
    assert (data["server"], data["source"]) == ("tree-sitter", "tree-sitter")
    assert _tree(data["symbols"]) == [
        ("Drawable", "class", 8, 9, [("draw", "method", 9, 9, [])]),
        ("Animal", "class", 12, 17, [("speak", "method", 15, 17, [])]),
        ("Dog", "class", 20, 25, [("speak", "method", 21, 22, []), ("draw", "method", 24, 25, [])]),
        ("Puppy", "class", 28, 30, [("speak", "method", 29, 30, [])]),
        (
            "Outer",
            "class",
            33,
            40,
            [
                (
                    "Inner",
                    "class",
                    34,
                    40,
                    [
                        ("Innermost", "class", 35, 37, [("deep", "method", 36, 37, [])]),
                        ("method", "method", 39, 40, []),
                    ],
                )
            ],
        ),
    ]
    assert result["hints"][0].startswith("No language server answered (No python language server")
    assert any(h.startswith("Read Drawable: localGetFileContent") for h in result["hints"])


async def test_depth_and_paging_cut_the_outline(gateway: Gateway, project: Path) -> None:
    result = await _outline(
        gateway, uri=str(project / "kinds.py"), depth=1, symbolsPerPage=2, page=3
    )
    data = result["data"]
    assert [s["name"] for s in data["symbols"]] == ["Outer"]
    assert "children" not in data["symbols"][0]  # a leaf says nothing of children
    assert data["symbols"][0]["hiddenChildren"] == 4
    assert data["totalSymbols"] == 5
    assert data["pagination"] == {"currentPage": 3, "totalPages": 3, "hasMore": False}


async def test_typescript_interface_and_classes(gateway: Gateway, project: Path) -> None:
    data = (await _outline(gateway, uri=str(project / "animals.ts")))["data"]
    assert [(s["name"], s["kind"]) for s in data["symbols"]] == [
        ("Speaker", "interface"),
        ("Cat", "class"),
        ("Robot", "class"),
    ]
    assert data["symbols"][1]["children"][0]["detail"] == "speak(): string"


async def test_hidden_file_needs_its_opt_in(gateway: Gateway, project: Path) -> None:
    refused = await _outline(gateway, uri=str(project / ".hidden.py"))
    assert refused["error"]["code"] == "PATH_NOT_ALLOWED"
    assert '"hidden":true' in refused["hints"][0]
    allowed = await _outline(gateway, uri=str(project / ".hidden.py"), hidden=True)
    assert [s["name"] for s in allowed["data"]["symbols"]] == ["secret_place"]


async def test_a_secret_in_a_signature_is_redacted(gateway: Gateway, project: Path) -> None:
    result = await _outline(gateway, uri=str(project / "leaky.py"))
    (symbol,) = result["data"]["symbols"]
    assert symbol["name"] == "connect"
    assert symbol["detail"].startswith("def connect(token=")
    assert TOKEN not in str(result)


async def test_a_large_read_hints_at_the_outline(gateway: Gateway, project: Path) -> None:
    body = "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(2000))
    (project / "large.py").write_text(body)
    read: Any = result_of(await gateway.call("localGetFileContent", [{"path": "large.py"}]))
    hint = next(h for h in read["hints"] if h.startswith("Its outline"))
    query = json.loads(hint[hint.index("{") :])
    assert query == {"uri": str(project / "large.py")}
    outline = await _outline(gateway, **query, symbolsPerPage=2)
    assert [s["name"] for s in outline["data"]["symbols"]] == ["f0", "f1"]
    assert outline["data"]["totalSymbols"] == 2000


async def test_without_a_server_or_a_syntax_tree_the_error_says_what_would_give_one(
    gateway: Gateway, project: Path
) -> None:
    (project / "notes.zig").write_text('const std = @import("std");\n')
    result = await _outline(gateway, uri=str(project / "notes.zig"))
    assert result["error"]["code"] == "LSP_NOT_AVAILABLE", result
    assert any("no syntax tree for .zig files" in hint for hint in result["hints"])
