"""`octo serve --http --sse` for legacy clients (a real SDK SSE client session), the 421 that
names --allow-host, and OCTO_TOOLSETS publishing only some families over MCP."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from mcp import Client
from mcp.client.sse import sse_client
from mcp.shared.exceptions import MCPError
from starlette.testclient import TestClient

from octo import Gateway
from octo.core.config import Config
from octo.faces.http.access import HttpAccess
from octo.faces.mcp.serve import http_app
from octo.faces.mcp.server import build_server
from octo.registry import all_tools

from .conftest import RunOcto
from .conftest import octo_env
from .conftest import served_http

TOKEN = "test-sse-token-not-a-real-one"


@pytest.mark.slow
async def test_a_legacy_sse_client_session_behind_the_token(tree: Path) -> None:
    env = {**octo_env(tree), "OCTO_HTTP_TOKEN": TOKEN}
    with served_http(env, "--sse") as url:
        sse_url = url.removesuffix("/mcp") + "/sse"
        async with httpx.AsyncClient() as plain:
            refused = await plain.get(sse_url)
        assert refused.status_code == 401
        transport = sse_client(sse_url, headers={"Authorization": f"Bearer {TOKEN}"})
        async with Client(transport) as client:
            tools = await client.list_tools()
            assert [t.name for t in tools.tools] == [s.name for s in all_tools()]
            result = await client.call_tool(
                "localSearchCode", {"queries": [{"pattern": "needle", "path": "."}]}
            )
    assert result.structured_content is not None
    assert result.structured_content["results"][0]["status"] == "success"


def test_an_unlisted_host_gets_421_naming_allow_host(caplog: pytest.LogCaptureFixture) -> None:
    access = HttpAccess.configure("0.0.0.0", 8000, {"OCTO_HTTP_TOKEN": TOKEN})
    client = TestClient(http_app(access, Config()), base_url="http://192.0.2.7:8000")
    with caplog.at_level(logging.WARNING, logger="octo.server"):
        refused = client.post("/mcp", json={})
    assert refused.status_code == 421
    assert "--allow-host 192.0.2.7" in refused.text
    assert "0.0.0.0, 127.0.0.1, localhost, [::1]" in refused.text
    [record] = [r for r in caplog.records if r.name == "octo.server"]
    assert "--allow-host 192.0.2.7" in record.getMessage()
    # The probes answer whatever name a load balancer uses.
    assert client.get("/healthz").status_code == 200


async def test_toolsets_publish_only_the_chosen_families(tree: Path) -> None:
    config = Config(roots=(tree,), toolsets=frozenset({"local", "discovery"}))
    async with Client(build_server(config), raise_exceptions=True) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        expected = [s.name for s in all_tools() if s.category.toolset in ("local", "discovery")]
        assert names == expected
        answer = await client.call_tool("getToolCategories", {"queries": [{}]})
        with pytest.raises(MCPError, match="toolset packages is switched off"):
            await client.call_tool("packageSearch", {"queries": [{"name": "x"}]})
    assert answer.structured_content is not None
    [row] = answer.structured_content["results"]
    assert row["data"]["totalTools"] == len(expected)
    assert set(row["data"]["switchedOff"]) == {"github", "packages", "lsp", "semantic"}
    assert any("OCTO_TOOLSETS=" in hint and "--toolsets" in hint for hint in row["hints"])
    # The library keeps every tool.
    async with Gateway(config) as gateway:
        assert len(gateway.tools()) == len(all_tools())


@pytest.mark.slow
def test_an_unknown_toolset_is_one_line_and_exit_2(run_octo: RunOcto) -> None:
    for env, args, source in (
        ({"OCTO_TOOLSETS": "local,web"}, [], "OCTO_TOOLSETS"),
        ({}, ["--toolsets", "local,web"], "--toolsets"),
    ):
        done = run_octo("serve", *args, env=env)
        assert done.returncode == 2
        assert done.stderr == (
            f"octo: {source} names no toolset web: choose from all, local, lsp, semantic, "
            "github, packages, discovery\n"
        )


async def test_hints_never_send_a_client_to_a_switched_off_tool(tree: Path) -> None:
    # A large file read from its top: its hints name lspDocumentSymbols for the outline.
    (tree / "big.py").write_text("".join(f"def f{i}():\n    return {i}\n" for i in range(4000)))
    query = {"queries": [{"path": "big.py"}]}
    hints: dict[str, list[str]] = {}
    for toolsets in (None, frozenset({"local"})):
        config = Config(roots=(tree,), toolsets=toolsets)
        async with Client(build_server(config), raise_exceptions=True) as client:
            answer = await client.call_tool("localGetFileContent", query)
        assert answer.structured_content is not None
        hints[str(toolsets)] = answer.structured_content["results"][0]["hints"]
    assert any("lspDocumentSymbols" in hint for hint in hints["None"])
    local_only = hints[str(frozenset({"local"}))]
    assert local_only and not any("lsp" in hint for hint in local_only)
