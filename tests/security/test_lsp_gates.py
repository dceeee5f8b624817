"""The LSP tools obey the local tools' opt-ins: a hidden or credential file is not queried,
and a location in one is listed without its code, unless the query opts in; everything they
quote is redacted. A real language server (basedpyright) on real files."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from octo.core.config import Config
from octo.faces.library import Gateway
from tests.lsp.conftest import assert_no_leftovers
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import server_sessions
from tests.security.planted import PLANTED

pytestmark = pytest.mark.slow

HIDDEN_CODE = "HIDDEN_BODY_MARKER"
SENSITIVE_CODE = "SENSITIVE_BODY_MARKER"
SECRET = PLANTED[0]  # a GitHub token

APP = """from helper import helper
from id_rsa_tool import keytool


def target():
    return 1


def main():
    return helper() + keytool() + target()
"""
# A module whose name marks a credential file (id_rsa*), quoting a secret near its calls.
KEYTOOL = f"""from app import target

{SECRET.text}


def keytool():
    value = target()
    return "{SENSITIVE_CODE}", value
"""
HELPER = f'def helper():\n    return "{HIDDEN_CODE}"\n'


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gates")
    (root / "pyrightconfig.json").write_text(json.dumps({"extraPaths": [".lib"]}))
    (root / "app.py").write_text(APP)
    (root / "id_rsa_tool.py").write_text(KEYTOOL)
    (root / ".lib").mkdir()
    (root / ".lib" / "helper.py").write_text(HELPER)
    return root


@pytest.fixture(scope="module")
async def gateway(project: Path) -> AsyncIterator[Gateway]:
    env = lsp_env(OCTO_LSP_PYTHON_SERVERS="basedpyright")
    async with Gateway(Config.from_env(env), roots=[project]) as gw:
        yield gw
        sessions = server_sessions()
    await assert_no_leftovers(sessions)


async def _row(gw: Gateway, tool: str, **query: Any) -> dict[str, Any]:
    row: dict[str, Any] = (await gw.call(tool, [query])).to_wire()["results"][0]
    assert SECRET.value not in json.dumps(row)
    return row


def _by_file(locations: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(loc for loc in locations if loc["path"].endswith(name))


@pytest.mark.parametrize(
    ("line", "symbol", "file", "code", "opt_in", "reason"),
    [
        (10, "helper", "helper.py", HIDDEN_CODE, "hidden", "hidden"),
        (10, "keytool", "id_rsa_tool.py", SENSITIVE_CODE, "includeSensitive", "sensitive"),
    ],
)
async def test_a_definition_in_a_gated_file_is_listed_without_its_code(
    gateway: Gateway, line: int, symbol: str, file: str, code: str, opt_in: str, reason: str
) -> None:
    query = {"uri": "app.py", "symbolName": symbol, "lineHint": line, "contextLines": 3}
    gated = await _row(gateway, "lspGotoDefinition", **query)
    assert gated["status"] == "success", gated
    location = _by_file(gated["data"]["definitions"], file)
    assert location["withheld"] == reason and "content" not in location
    assert code not in json.dumps(gated)
    assert any(f'"{opt_in}":true' in hint for hint in gated["hints"]), gated["hints"]
    opened = await _row(gateway, "lspGotoDefinition", **query, **{opt_in: True})
    assert code in json.dumps(opened)


async def test_references_and_call_sites_in_a_credential_file_need_the_opt_in(
    gateway: Gateway,
) -> None:
    query = {"uri": "app.py", "symbolName": "target", "lineHint": 5}
    references = await _row(gateway, "lspFindReferences", **query, contextLines=3)
    gated = _by_file(references["data"]["references"], "id_rsa_tool.py")
    assert gated["withheld"] == "sensitive" and "content" not in gated
    calls = await _row(gateway, "lspCallHierarchy", **query, direction="incoming")
    [call] = [c for c in calls["data"]["calls"] if c["from"]["path"].endswith("id_rsa_tool.py")]
    assert call["from"]["withheld"] == "sensitive" and "content" not in call
    assert any('"includeSensitive":true' in hint for hint in calls["hints"])
    opened = await _row(gateway, "lspFindReferences", **query, includeSensitive=True)
    shown = [r for r in opened["data"]["references"] if r["path"].endswith("id_rsa_tool.py")]
    assert "value = target()" in [r["content"].strip() for r in shown]
    # The secret two lines above is quoted as context, redacted.
    wide = await _row(gateway, "lspFindReferences", **query, includeSensitive=True, contextLines=5)
    quoted = json.dumps(_by_file(wide["data"]["references"], "id_rsa_tool.py"))
    assert "[REDACTED:" in quoted


@pytest.mark.parametrize(
    ("uri", "symbol", "opt_in"),
    [(".lib/helper.py", "helper", "hidden"), ("id_rsa_tool.py", "keytool", "includeSensitive")],
)
async def test_a_gated_file_is_not_queried_without_the_opt_in(
    gateway: Gateway, uri: str, symbol: str, opt_in: str
) -> None:
    query = {"uri": uri, "symbolName": symbol, "lineHint": 1}
    refused = await _row(gateway, "lspFindReferences", **query)
    assert refused["error"]["code"] == "PATH_NOT_ALLOWED"
    assert any(f'"{opt_in}":true' in hint for hint in refused["hints"])
    allowed = await _row(gateway, "lspFindReferences", **query, **{opt_in: True})
    assert allowed["status"] == "success", allowed
