"""An answer of several places through a real MCP client: its structured content matches the
published output schema (the client checks it), in both protocol eras."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from octo import Config
from octo.faces.mcp.server import build_server


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "response_format"), [("auto", "flat"), ("legacy", "grouped")])
async def test_several_places_over_mcp(mode: str, response_format: str, tree: Path) -> None:
    (tree / "lib").mkdir()
    (tree / "lib" / "more.py").write_text("needle = 3\n")
    server = build_server(Config(roots=(tree,)))
    query = {
        "pattern": "needle",
        "path": ["src", "lib", "/nowhere"],
        "responseFormat": response_format,
        "aggregationMode": "perPlace",
    }
    async with Client(server, mode=mode, raise_exceptions=True) as client:
        result = await client.call_tool("localSearchCode", {"queries": [query]})
    assert result.is_error is False
    assert result.structured_content is not None
    [row] = result.structured_content["results"]
    assert row["status"] == "success"
    data = row["data"]
    assert data["places"] == ["src", "lib", "/nowhere"]
    assert data["errors"][0]["code"] == "PATH_NOT_ALLOWED"
    if response_format == "grouped":
        assert [g["place"] for g in data["groups"]] == ["src", "lib"]
    else:
        assert {f["place"] for f in data["files"]} == {"src", "lib"}
