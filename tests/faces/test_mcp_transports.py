"""`octo serve` as a real subprocess: over stdio and over streamable HTTP."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp import StdioServerParameters
from pydantic import FileUrl

from octo.registry import all_tools
from tests.faces.conftest import served_http


def _find(path: Path) -> dict[str, Any]:
    return {"path": str(path), "name": "*.py"}


def _statuses(result: types.CallToolResult) -> list[str]:
    assert result.structured_content is not None
    return [row["status"] for row in result.structured_content["results"]]


def _env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCTO_")}
    env["OCTO_ROOTS"] = str(tree)
    return env


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.slow
async def test_stdio_lists_tools_and_runs_a_bulk_call(mode: str, tree: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "octo", "serve"], env=_env(tree)
    )
    async with Client(params, mode=mode) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool(
            "localFindFiles", {"queries": [_find(tree), _find(tree.parent)]}
        )
    assert names == [spec.name for spec in all_tools()]
    assert result.is_error is False
    assert _statuses(result) == ["success", "error"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.slow
async def test_stdio_client_roots_narrow_the_configured_roots(mode: str, tree: Path) -> None:
    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=FileUrl((tree / "src").as_uri()))])

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "octo", "serve"], env=_env(tree)
    )
    async with Client(params, mode=mode, list_roots_callback=list_roots) as client:
        result = await client.call_tool(
            "localFindFiles", {"queries": [_find(tree / "src"), _find(tree)]}
        )
    assert _statuses(result) == ["success", "error"]


@pytest.fixture
def http_server(tree: Path) -> Iterator[str]:
    """`octo serve --http` on any free port; yields the MCP URL it says it serves at."""
    with served_http(_env(tree)) as url:
        yield url


@pytest.mark.slow
async def test_streamable_http(http_server: str, tree: Path) -> None:
    with anyio.fail_after(60):
        async with Client(http_server) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            result = await client.call_tool(
                "localFindFiles", {"queries": [_find(tree), {"name": "*.py"}]}
            )
    assert "localFindFiles" in names
    assert result.is_error is False
    assert _statuses(result) == ["success", "error"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.slow
async def test_streamable_http_client_roots_narrow_the_configured_roots(
    mode: str, http_server: str, tree: Path
) -> None:
    # A handshake-era client is asked for its roots right after initialize (to warm its
    # language server); over HTTP that may come before it can answer, and must not leave
    # the connection without its roots.
    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=FileUrl((tree / "src").as_uri()))])

    with anyio.fail_after(60):
        async with Client(http_server, mode=mode, list_roots_callback=list_roots) as client:
            result = await client.call_tool(
                "localFindFiles", {"queries": [_find(tree / "src"), _find(tree)]}
            )
    assert _statuses(result) == ["success", "error"]
