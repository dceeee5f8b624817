"""Every secret shape, planted in a tree, a repository and a language server's project:
no tool's whole answer (data, hints, errors) holds any planted value."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from octo.core.config import Config
from octo.faces.library import Gateway
from tests.lsp.conftest import lsp_env
from tests.recording_server import RecordingServer
from tests.security.conftest import Reply
from tests.security.conftest import serve_recording
from tests.security.planted import KEY_KINDS
from tests.security.planted import PLANTED
from tests.security.planted import private_key

KEYS = [private_key(kind) for kind in KEY_KINDS]
#: Every value that must never leave octo: the secrets, and each line of each key body.
VALUES = [p.value for p in PLANTED] + [line for _, body in KEYS for line in body]
PLANTED_TEXT = "".join(f"# entry {n}\n{p.text}\n" for n, p in enumerate(PLANTED))
KEYS_TEXT = "".join(text for text, _ in KEYS)


def _leaks(answer: Any) -> list[str]:
    wire = answer.to_compact_json() if hasattr(answer, "to_compact_json") else json.dumps(answer)
    # JSON escapes "\r"; the planted values hold none, so they appear as written.
    return [value for value in VALUES if value in wire]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "planted.cfg").write_text(PLANTED_TEXT)
    (root / "keys.txt").write_text(KEYS_TEXT)
    (root / ".env.production").write_text(PLANTED_TEXT)
    (root / f"{PLANTED[0].value}.txt").write_text("a file named like a token\n")
    return root


def _body_search(kind_index: int) -> dict[str, Any]:
    """A search that hits a key's body line: rg shows body lines without the BEGIN line."""
    _, body = KEYS[kind_index]
    return {"pattern": body[3][:16], "path": "keys.txt", "fixedString": True, "contextLines": 4}


LOCAL_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("localSearchCode", {"pattern": ".", "path": "planted.cfg", "matchesPerPage": 100}),
    ("localSearchCode", {"pattern": "entry", "path": ".", "contextLines": 1}),
    (
        "localSearchCode",
        {"pattern": "=", "path": ".env.production", "includeSensitive": True, "hidden": True},
    ),
    *(("localSearchCode", _body_search(n)) for n in range(len(KEYS))),
    ("localSearchCode", {"pattern": "[A-Za-z0-9+/]{60}", "path": "keys.txt"}),
    ("localGetFileContent", {"path": "planted.cfg", "fullContent": True}),
    ("localGetFileContent", {"path": "keys.txt", "fullContent": True}),
    ("localGetFileContent", {"path": "keys.txt", "startLine": 4, "endLine": 30}),
    ("localGetFileContent", {"path": "planted.cfg", "matchString": "entry"}),
    ("localGetFileContent", {"path": "planted.cfg", "charOffset": 100, "charLength": 4000}),
    ("localGetFileContent", {"path": ".env.production", "includeSensitive": True, "hidden": True}),
    ("localGetFileContent", {"path": f"missing-{PLANTED[0].value}.txt"}),
    ("localViewStructure", {"path": ".", "details": True}),
    ("localFindFiles", {"path": ".", "name": "*.txt"}),
]


@pytest.mark.parametrize(("tool", "query"), LOCAL_CALLS, ids=lambda v: str(v)[:40])
async def test_local_tools_never_answer_a_planted_secret(
    tree: Path, tool: str, query: dict[str, Any]
) -> None:
    async with Gateway(roots=[tree]) as gateway:
        response = await gateway.call(tool, [query])
    row = response.results[0]
    assert row.status != "error" or query["path"].startswith("missing"), row
    assert _leaks(response) == []


@pytest.fixture
def github(tmp_path: Path) -> Iterator[RecordingServer]:
    """A GitHub API on 127.0.0.1 serving the planted file for any contents request."""
    raw = (PLANTED_TEXT + KEYS_TEXT).encode()
    content = base64.b64encode(raw).decode()
    # GitHub's size is the file's, not its base64's (a shorter file is a cut-off answer).
    body = {"type": "file", "sha": "a" * 40, "size": len(raw), "content": content}
    yield from serve_recording(lambda _path: Reply(body={**body, "encoding": "base64"}))


@pytest.mark.parametrize(
    "extra",
    [{"fullContent": True}, {"startLine": 80, "endLine": 110}, {"matchString": "entry"}],
    ids=["whole", "inside-a-key", "matches"],
)
async def test_remote_file_content_never_answers_a_planted_secret(
    github: RecordingServer, tmp_path: Path, extra: dict[str, Any]
) -> None:
    env = {"HOME": str(tmp_path), "PATH": "", "GITHUB_API_URL": github.origin}
    env["GITHUB_TOKEN"] = "test-token-not-real-9f2"
    query = {"owner": "o", "repo": "r", "path": "planted.cfg", **extra}
    async with Gateway(Config.from_env(env)) as gateway:
        response = await gateway.call("githubGetFileContent", [query])
    assert response.results[0].status == "success", response.results[0]
    assert _leaks(response) == []


def _lsp_module() -> str:
    """``target`` called between planted config blocks, each line of them quoted as context
    of some reference."""
    blocks = [f'a{n} = target()\nS{n} = """\n{p.text}\n"""\n' for n, p in enumerate(PLANTED)]
    keys = [f'k{n} = target()\nK{n} = """\n{text}"""\n' for n, (text, _) in enumerate(KEYS)]
    return "def target():\n    return 1\n\n\n" + "".join(blocks + keys)


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def lsp_gateway(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Gateway]:
    project = tmp_path_factory.mktemp("lsp-planted")
    (project / "pyproject.toml").touch()
    (project / "module.py").write_text(_lsp_module())
    # A line where the symbol occurs in code next to secrets: quoted by a NOT_FOUND hint.
    hinted = "".join(f"b{n} = target(); T{n} = '{p.value}'\n" for n, p in enumerate(PLANTED[:4]))
    (project / "hinted.py").write_text("def target():\n    return 1\n" + hinted)
    env = lsp_env(OCTO_LSP_PYTHON_SERVERS="basedpyright")
    async with Gateway(Config.from_env(env), roots=[project]) as gateway:
        yield gateway


@pytest.mark.slow
async def test_lsp_answers_and_hints_never_hold_a_planted_secret(lsp_gateway: Gateway) -> None:
    query = {"uri": "module.py", "symbolName": "target", "lineHint": 1}
    references = await lsp_gateway.call(
        "lspFindReferences", [{**query, "contextLines": 10, "referencesPerPage": 50}]
    )
    [row] = references.to_wire()["results"]
    assert row["status"] == "success" and row["data"]["totalReferences"] > len(PLANTED)
    definition = await lsp_gateway.call(
        "lspGotoDefinition", [{**query, "lineHint": 40, "contextLines": 20}]
    )
    missing = await lsp_gateway.call(
        "lspGotoDefinition", [{"uri": "hinted.py", "symbolName": "target", "lineHint": 40}]
    )
    [hinted] = missing.to_wire()["results"]
    assert hinted["error"]["code"] == "NOT_FOUND"
    assert any("[REDACTED:" in hint for hint in hinted["hints"])
    assert _leaks(references) == _leaks(definition) == _leaks(missing) == []
