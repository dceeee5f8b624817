"""`octo serve --http`: Host and Origin checked on every bind, a bearer token required off
loopback (401 before any MCP handling), and no start on a public bind without one."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from octo.core.config import Config
from octo.faces.http.access import HttpAccess
from octo.faces.mcp.serve import http_app
from octo.faces.mcp.serve import listen
from tests.faces.conftest import served_http

TOKEN = "test-http-token-not-real-0123"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


def _env(tree: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCTO_")}
    return {**env, "OCTO_ROOTS": str(tree), **extra}


async def _post(url: str, **headers: str) -> httpx.Response:
    """An MCP initialize request with ``headers`` (a Host or Origin to try, a token)."""
    sent = {"accept": "application/json, text/event-stream", **headers}
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(url, json=INITIALIZE, headers=sent)


def _bearer(token: str = TOKEN) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def _tools_with_token(url: str, token: str = TOKEN) -> list[str]:
    """A real MCP client over HTTP that sends the token: the tools it lists."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        return [tool.name for tool in (await client.list_tools()).tools]


@pytest.mark.slow
async def test_a_token_is_required_and_checked_before_mcp(tmp_path: Path) -> None:
    with served_http(_env(tmp_path, OCTO_HTTP_TOKEN=TOKEN)) as url:
        missing = await _post(url)
        wrong = await _post(url, **_bearer("wrong-token-not-real-0000"))
        right = await _post(url, **_bearer())
        tools = await _tools_with_token(url)
    assert (missing.status_code, wrong.status_code) == (401, 401)
    # 401 comes from the auth layer: no MCP answer, no session.
    assert "jsonrpc" not in missing.text and "mcp-session-id" not in missing.headers
    assert right.status_code == 200
    assert "localSearchCode" in tools


@pytest.mark.slow
async def test_host_and_origin_are_checked_on_loopback(tmp_path: Path) -> None:
    with served_http(_env(tmp_path)) as url:
        port = url.split(":")[2].split("/")[0]
        host = await _post(url, host=f"evil.test:{port}")
        origin = await _post(url, origin="http://evil.test")
        fine = await _post(url, origin=f"http://localhost:{port}")
    assert host.status_code == 421
    assert origin.status_code == 403
    assert fine.status_code == 200


@pytest.mark.slow
async def test_allow_host_adds_a_name(tmp_path: Path) -> None:
    with served_http(_env(tmp_path), "--allow-host", "octo.test") as url:
        port = url.split(":")[2].split("/")[0]
        allowed = await _post(url, host=f"octo.test:{port}", origin="https://octo.test")
        other = await _post(url, host=f"other.test:{port}")
    assert allowed.status_code == 200
    assert other.status_code == 421


@pytest.mark.slow
async def test_token_file(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    with served_http(_env(tmp_path), "--token-file", str(token_file)) as url:
        missing = await _post(url)
        right = await _post(url, **_bearer())
    assert (missing.status_code, right.status_code) == (401, 200)


@asynccontextmanager
async def _serving(access: HttpAccess, tree: Path) -> AsyncIterator[str]:
    """octo's HTTP app configured for ``access`` (any bind address), served by a real uvicorn
    on 127.0.0.1 so the test sends nothing beyond this machine."""
    app = http_app(access, Config(roots=(tree,)))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", log_config=None))
    with listen("127.0.0.1", 0) as sock:
        port = sock.getsockname()[1]
        async with anyio.create_task_group() as tg:
            tg.start_soon(partial(server.serve, sockets=[sock]))
            with anyio.fail_after(30):
                # uvicorn tells it started by a flag only, not an event.
                while not server.started:  # noqa: ASYNC110
                    await anyio.sleep(0.05)
            try:
                yield f"http://127.0.0.1:{port}/mcp"
            finally:
                server.should_exit = True


@pytest.mark.slow
async def test_a_public_bind_checks_host_origin_and_token(tmp_path: Path) -> None:
    access = HttpAccess.configure("0.0.0.0", 8000, {"OCTO_HTTP_TOKEN": TOKEN})
    async with _serving(access, tmp_path) as url:
        port = url.split(":")[2].split("/")[0]
        missing = await _post(url)
        host = await _post(url, host=f"evil.test:{port}", **_bearer())
        origin = await _post(url, origin="http://evil.test", **_bearer())
        loopback = await _post(url, **_bearer())
    assert missing.status_code == 401
    assert host.status_code == 421
    assert origin.status_code == 403
    assert loopback.status_code == 200


@pytest.mark.slow
def test_a_public_bind_without_a_token_refuses_to_start(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "octo", "serve", "--http", "--host", "0.0.0.0", "--port", "9"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "OCTO_HTTP_TOKEN" in lines[0] and "--insecure-no-auth" in lines[0]


def test_insecure_no_auth_and_short_tokens(tmp_path: Path) -> None:
    opened = HttpAccess.configure("0.0.0.0", 8000, {}, insecure_no_auth=True)
    assert opened.token is None and "0.0.0.0" in opened.allowed_hosts
    with pytest.raises(ValueError, match="at least 16 characters"):
        HttpAccess.configure("127.0.0.1", 8000, {"OCTO_HTTP_TOKEN": "short"})


async def test_readyz_and_metrics_check_the_host(tmp_path: Path) -> None:
    access = HttpAccess.configure("127.0.0.1", 8000, {})
    async with _serving(access, tmp_path) as url, httpx.AsyncClient(timeout=30) as http:
        port = url.split(":")[2].split("/")[0]
        base = url.removesuffix("/mcp")
        evil = {"host": f"evil.example.com:{port}"}
        answers = {
            path: (
                (await http.get(base + path, headers=evil)).status_code,
                (await http.get(base + path)).status_code,
            )
            for path in ("/readyz", "/metrics")
        }
    assert answers["/readyz"][0] == 421 and answers["/readyz"][1] in (200, 503)
    assert answers["/metrics"][0] == 421 and answers["/metrics"][1] in (200, 501)


@pytest.mark.parametrize("blank", [" ", "   \t  ", "\n"])
def test_a_token_of_only_whitespace_is_refused(blank: str) -> None:
    with pytest.raises(ValueError, match="whitespace"):
        HttpAccess.configure("127.0.0.1", 8000, {"OCTO_HTTP_TOKEN": blank})


def _half_sent(port: int) -> socket.socket:
    """A connection that sends part of a request's headers and then nothing."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    return sock


def _closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


@pytest.mark.slow
async def test_legitimate_calls_answer_through_a_flood_of_half_sent_requests(
    tmp_path: Path,
) -> None:
    env = _env(tmp_path, OCTO_HTTP_MAX_CONNECTIONS="50", OCTO_HTTP_HEADER_TIMEOUT="30")
    flood: list[socket.socket] = []
    with served_http(env) as url:
        port = int(url.split(":")[2].split("/")[0])
        health = url.removesuffix("/mcp") + "/healthz"
        answered = []
        try:
            async with httpx.AsyncClient(timeout=10) as http:
                for _wave in range(6):  # 600 half-sent requests, 12 times the cap
                    flood += [_half_sent(port) for _ in range(100)]
                    answered.append((await http.get(health)).status_code)
                mcp = await _post(url)
            # Past the cap the oldest half-sent connections were closed by the server.
            await anyio.sleep(0.5)
            dropped = sum(_closed_by_server(sock) for sock in flood)
        finally:
            for sock in flood:
                sock.close()
    assert answered == [200] * 6
    assert mcp.status_code == 200
    assert dropped >= len(flood) - 50


async def _session_of_a_real_client(url: str) -> str:
    """Open an MCP session with a real client (the initialize handshake: only that protocol
    has sessions), list the tools, and leave without ending the session (as an abandoned
    client does): its session ID."""
    seen: list[str] = []

    async def note_session(response: httpx2.Response) -> None:
        if session := response.headers.get("mcp-session-id"):
            seen.append(session)

    http = httpx2.AsyncClient(timeout=60, event_hooks={"response": [note_session]})
    transport = streamable_http_client(url, http_client=http, terminate_on_close=False)
    async with http, Client(transport, mode="legacy") as client:
        assert (await client.list_tools()).tools
    assert seen, "the server opened no session"
    return seen[0]


async def _session_known(url: str, session: str) -> bool:
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-06-18",
    }
    async with httpx.AsyncClient(timeout=30) as http:
        answer = await http.post(url, json=ping, headers=headers)
    assert answer.status_code in (200, 404), answer.text
    return answer.status_code == 200


@pytest.mark.slow
async def test_past_the_session_cap_the_longest_idle_session_makes_room(tmp_path: Path) -> None:
    env = _env(tmp_path, OCTO_HTTP_MAX_SESSIONS="5")
    with served_http(env) as url:
        # 12 real clients, each leaving its session open: every one connects.
        sessions = [await _session_of_a_real_client(url) for _ in range(12)]
        known = [await _session_known(url, session) for session in sessions]
    assert len(set(sessions)) == 12
    # Only the 5 newest live on: the oldest idle ones were ended to make room.
    assert known == [False] * 7 + [True] * 5


@pytest.mark.slow
async def test_an_idle_session_expires_after_the_idle_timeout(tmp_path: Path) -> None:
    env = _env(tmp_path, OCTO_HTTP_SESSION_IDLE_TIMEOUT="1")
    with served_http(env) as url:
        session = await _session_of_a_real_client(url)
        assert await _session_known(url, session)
        await anyio.sleep(2.5)
        assert not await _session_known(url, session)


def test_session_limits_are_read_from_the_environment() -> None:
    env = {"OCTO_HTTP_MAX_SESSIONS": "7", "OCTO_HTTP_SESSION_IDLE_TIMEOUT": "30"}
    limits = HttpAccess.configure("127.0.0.1", 8000, env).limits
    assert (limits.max_sessions, limits.session_idle_timeout) == (7, 30.0)
    with pytest.raises(ValueError, match="OCTO_HTTP_MAX_SESSIONS"):
        HttpAccess.configure("127.0.0.1", 8000, {"OCTO_HTTP_MAX_SESSIONS": "0"})
