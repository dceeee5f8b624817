"""Syntax-tree outlines for every language octo parses without a language server: a fixture
file a language (tests/lsp/fixtures/outlines) and its outline as (depth, name, kind, line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from octo import Gateway
from octo.core.config import Config
from octo.lsp.outline.models import OutlineSymbol
from octo.lsp.outline.tree_outline import outline_languages
from octo.lsp.outline.tree_outline import tree_outline
from tests.lsp.conftest import FIXTURES
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import result_of

OUTLINES = FIXTURES / "outlines"

EXPECTED: list[tuple[str, list[tuple[int, str, str, int]]]] = [
    ("app.tsx", [(0, "App", "function", 1), (0, "Store", "class", 4), (1, "load", "method", 5)]),
    ("build.sh", [(0, "setup", "function", 2), (0, "main", "function", 6)]),
    (
        "ci.yaml",
        [
            (0, "name", "key", 1),
            (0, "jobs", "key", 2),
            (1, "test", "key", 3),
            (2, "runs-on", "key", 4),
            (1, "lint", "key", 5),
            (2, "runs-on", "key", 6),
        ],
    ),
    (
        "index.html",
        [
            (0, "html", "element", 1),
            (1, "body", "element", 2),
            (2, "div#main", "element", 3),
            (3, "p", "element", 4),
        ],
    ),
    ("package.json", [(0, "name", "key", 2), (0, "scripts", "key", 3), (1, "test", "key", 4)]),
    (
        "Shape.cs",
        [
            (0, "Geo", "namespace", 1),
            (1, "Shape", "class", 2),
            (2, "Shape", "constructor", 3),
            (2, "Area", "method", 4),
            (1, "INamed", "interface", 6),
        ],
    ),
    (
        "shape.ex",
        [(0, "Geo.Shape", "module", 1), (1, "area", "function", 2), (1, "helper", "function", 4)],
    ),
    (
        "Shape.java",
        [
            (0, "Shape", "class", 1),
            (1, "Shape", "constructor", 2),
            (1, "area", "method", 3),
            (0, "Named", "interface", 5),
        ],
    ),
    (
        "Shape.kt",
        [
            (0, "Shape", "class", 3),
            (1, "area", "method", 4),
            (0, "Registry", "class", 7),
            (0, "main", "function", 9),
        ],
    ),
    (
        "shapes.c",
        [(0, "shape", "struct", 1), (0, "area", "function", 3), (0, "main", "function", 7)],
    ),
    (
        "shapes.cpp",
        [
            (0, "geo", "namespace", 1),
            (1, "Shape", "class", 2),
            (2, "area", "method", 4),
            (0, "main", "function", 8),
        ],
    ),
    ("shapes.go", [(0, "Shape", "type", 3), (0, "Area", "method", 5), (0, "Main", "function", 7)]),
    ("Shapes.hs", [(0, "Shape", "struct", 3), (0, "area", "function", 6)]),
    ("shapes.js", [(0, "Shape", "class", 1), (1, "area", "method", 2), (0, "main", "function", 4)]),
    ("shapes.lua", [(0, "area", "function", 1), (0, "main", "function", 5)]),
    (
        "shapes.php",
        [
            (0, "Geo", "namespace", 2),
            (0, "Shape", "class", 4),
            (1, "area", "method", 5),
            (0, "main", "function", 8),
        ],
    ),
    ("shapes.py", [(0, "Shape", "class", 1), (1, "area", "method", 2), (0, "main", "function", 6)]),
    (
        "shapes.rb",
        [
            (0, "Geo", "module", 1),
            (1, "Shape", "class", 2),
            (2, "area", "method", 3),
            (0, "main", "function", 9),
        ],
    ),
    (
        "shapes.rs",
        [
            (0, "Shape", "struct", 1),
            (0, "Shape", "class", 3),
            (1, "area", "method", 4),
            (0, "Named", "interface", 7),
            (0, "main", "function", 9),
        ],
    ),
    (
        "Shapes.scala",
        [
            (0, "Shape", "class", 3),
            (1, "area", "method", 4),
            (0, "Main", "class", 7),
            (1, "main", "method", 8),
        ],
    ),
    (
        "shapes.swift",
        [
            (0, "Named", "interface", 1),
            (1, "name", "method", 2),
            (0, "Shape", "class", 5),
            (1, "init", "constructor", 6),
            (0, "main", "function", 9),
        ],
    ),
    (
        "shapes.ts",
        [
            (0, "Shape", "class", 1),
            (1, "area", "method", 2),
            (0, "Named", "interface", 4),
            (0, "main", "function", 5),
        ],
    ),
    (
        "site.css",
        [
            (0, ".card", "class", 1),
            (0, "@media (max-width: 600px)", "namespace", 5),
            (1, ".card", "class", 6),
        ],
    ),
]


def _flat(symbols: list[OutlineSymbol], depth: int = 0) -> list[tuple[int, str, str, int]]:
    found: list[tuple[int, str, str, int]] = []
    for symbol in symbols:
        found.append((depth, symbol.name, symbol.kind, symbol.startLine))
        found += _flat(symbol.children, depth + 1)
    return found


@pytest.mark.parametrize(("name", "expected"), EXPECTED, ids=[name for name, _ in EXPECTED])
def test_each_language_outlines_its_fixture(name: str, expected: list[Any]) -> None:
    path = OUTLINES / name
    symbols = tree_outline(path, path.read_text(encoding="utf-8"))
    assert symbols is not None
    assert _flat(symbols) == expected


def test_twenty_languages_and_more_have_a_fixture() -> None:
    languages = {outline_languages()[Path(name).suffix.lower()] for name, _ in EXPECTED}
    assert len(languages) >= 23, sorted(languages)
    assert set(outline_languages().values()) == languages


async def test_a_language_without_a_server_is_outlined_through_the_tool(tmp_path: Path) -> None:
    (tmp_path / "Shape.kt").write_text((OUTLINES / "Shape.kt").read_text(encoding="utf-8"))
    async with Gateway(Config.from_env(lsp_env()), roots=[tmp_path]) as gateway:
        result = result_of(
            await gateway.call("lspDocumentSymbols", [{"uri": str(tmp_path / "Shape.kt")}])
        )
    assert result["status"] == "success", result
    assert result["data"]["server"] == "tree-sitter"
    assert [s["name"] for s in result["data"]["symbols"]] == ["Shape", "Registry", "main"]
