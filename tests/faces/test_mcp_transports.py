"""`octo serve` as a real subprocess: over stdio and over streamable HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp import StdioServerParameters

from octo.registry import all_tools


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
    async def list_roots(_context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=(tree / "src").as_uri())])

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "octo", "serve"], env=_env(tree)
    )
    async with Client(params, mode=mode, list_roots_callback=list_roots) as client:
        result = await client.call_tool(
            "localFindFiles", {"queries": [_find(tree / "src"), _find(tree)]}
        )
    assert _statuses(result) == ["success", "error"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def http_server(tree: Path) -> Iterator[str]:
    """`octo serve --http` on a free local port; yields its MCP URL once the port accepts."""
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "octo",
            "serve",
            "--http",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=_env(tree),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_port(process, port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for_port(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            assert process.stderr is not None
            pytest.fail(f"octo serve --http exited: {process.stderr.read().decode()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    pytest.fail("octo serve --http did not open its port within 30 s")


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
