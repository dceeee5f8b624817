"""`octo serve --http` keeps an idle connection open longer than MCP clients keep theirs (httpx
drops an idle connection after 5 s), so it never closes one just as a client reuses it: the
race that made requests fail with ReadError under load."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process

from tests.http_serving import free_port
from tests.http_serving import serve_http_argv

REPO = Path(__file__).resolve().parents[2]
#: httpx's keep-alive expiry: the client closes an idle connection after this.
CLIENT_KEEP_ALIVE = 5.0

pytestmark = pytest.mark.slow  # it waits out the client's keep-alive


async def test_an_idle_connection_outlives_the_clients_keep_alive(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "OCTO_ROOTS": str(tmp_path)}
    async with await anyio.open_process(
        serve_http_argv(port),
        env=env,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as octo:
        try:
            await _idle_connection_stays_open(octo, port)
        finally:
            octo.terminate()


async def _idle_connection_stays_open(octo: Process, port: int) -> None:
    with anyio.fail_after(30):
        while True:
            try:
                connection = await anyio.connect_tcp("127.0.0.1", port)
                break
            except OSError:
                assert octo.returncode is None
                await anyio.sleep(0.05)
    async with connection:
        host = f"127.0.0.1:{port}".encode()
        await connection.send(b"GET /mcp HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
        with anyio.fail_after(10):
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += await connection.receive()
            head, _, body = answer.partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length: *(\d+)", head)
            assert length is not None, head
            while len(body) < int(length[1]):
                body += await connection.receive()
        assert head.startswith(b"HTTP/1.1 ")
        # Idle past the client's keep-alive: before, uvicorn closed it at 5 s.
        with anyio.move_on_after(CLIENT_KEEP_ALIVE + 1.5):
            try:
                leftover = await connection.receive()
            except anyio.EndOfStream:
                pytest.fail("octo closed the idle connection before the client would")
            pytest.fail(f"octo wrote on the idle connection: {leftover[:80]!r}")
