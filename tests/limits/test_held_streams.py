"""Streams a client holds open: legacy SSE streams count against the connection and session
caps and end when idle; a streamable HTTP session is bounded in its requests in flight."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client

from tests.http_serving import free_port
from tests.http_serving import wait_listening
from tests.limits.conftest import held_sse_stream
from tests.limits.conftest import serve_env

_JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _until_closed(held: socket.socket) -> bool:
    """Whether the server closes ``held`` within a minute (what it sent is read and dropped)."""
    held.settimeout(60)
    try:
        while held.recv(65536):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True
    return True


@pytest.mark.slow
async def test_held_sse_streams_leave_room_for_a_call_and_end_when_idle(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("needle = 1\n")
    port = free_port()
    env = serve_env(tmp_path, OCTO_HTTP_MAX_CONNECTIONS="40", OCTO_HTTP_SESSION_IDLE_TIMEOUT="3")
    argv = [sys.executable, "-m", "octo", "serve", "--http", "--sse", "--port", str(port)]
    server = await anyio.open_process(argv, env=env, cwd=tmp_path, stderr=subprocess.DEVNULL)
    held: list[socket.socket] = []
    try:
        await wait_listening(port, alive=lambda: server.returncode is None)
        # More streams than the connection cap: the oldest idle ones end to make room.
        held = [held_sse_stream(port)[0] for _ in range(60)]
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            result = await client.call_tool(
                "localSearchCode", {"queries": [{"pattern": "needle", "path": "."}]}
            )
        assert result.structured_content is not None
        assert result.structured_content["results"][0]["status"] == "success"
        # The first was ended for a newer one, the last after its idle time.
        assert _until_closed(held[0])
        assert _until_closed(held[-1])
        assert server.returncode is None
    finally:
        for each in held:
            each.close()
        server.kill()
        await server.wait()


def _message(number: int | None, method: str, params: Mapping[str, object]) -> dict[str, object]:
    message: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
    if number is not None:
        message["id"] = number
    return message


@pytest.mark.slow
async def test_a_streamable_session_past_its_requests_in_flight_gets_429(tmp_path: Path) -> None:
    port = free_port()
    # A host that takes connections and never answers: each call waits for it.
    silent = socket.create_server(("127.0.0.1", 0), backlog=16)
    env = serve_env(
        tmp_path,
        OCTO_SESSION_MAX_IN_FLIGHT="2",
        GITHUB_API_URL=f"http://127.0.0.1:{silent.getsockname()[1]}",
    )
    argv = [sys.executable, "-m", "octo", "serve", "--http", "--port", str(port)]
    server = await anyio.open_process(argv, env=env, cwd=tmp_path, stderr=subprocess.DEVNULL)
    try:
        await wait_listening(port, alive=lambda: server.returncode is None)
        url = f"http://127.0.0.1:{port}/mcp"
        async with httpx.AsyncClient(timeout=30) as http:
            opened = await http.post(
                url,
                headers=_JSON,
                json=_message(
                    0,
                    "initialize",
                    {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "slow", "version": "1"},
                    },
                ),
            )
            session = {
                **_JSON,
                "mcp-session-id": opened.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-06-18",
            }
            await http.post(
                url, headers=session, json=_message(None, "notifications/initialized", {})
            )
            query = {"owner": "o", "repo": "r", "path": "README.md"}
            call = {"name": "githubGetFileContent", "arguments": {"queries": [query]}}
            statuses: list[int] = []
            both_open = anyio.Event()

            async def post(number: int) -> None:
                body = json.dumps(_message(number, "tools/call", call))
                async with http.stream("POST", url, headers=session, content=body) as answer:
                    statuses.append(answer.status_code)
                    if answer.status_code == 429:
                        assert answer.headers["retry-after"] == "1"
                        return
                    if len(statuses) == 2:
                        both_open.set()
                    await answer.aread()  # never comes: the host does not answer

            async with anyio.create_task_group() as tg:
                for number in (1, 2):
                    tg.start_soon(post, number)
                await both_open.wait()
                await post(3)
                tg.cancel_scope.cancel()
        assert statuses == [200, 200, 429]
    finally:
        silent.close()
        server.kill()
        await server.wait()
