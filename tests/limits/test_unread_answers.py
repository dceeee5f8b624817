"""A client that sends requests and never reads the answers: `octo serve` stays within a bounded
memory, over stdio (it stops reading the client) and over HTTP+SSE (it refuses the client's
new requests with 429 and Retry-After)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.http_serving import free_port
from tests.http_serving import serve_http_argv
from tests.limits.conftest import held_sse_stream
from tests.limits.conftest import serve_env
from tests.limits.conftest import tree_rss_mb
from tests.limits.conftest import wait_listening

#: Growth of the server's process tree the tests allow: far below what the answers weigh.
GROWTH_MB = 150
#: The whole process tree's bound, whatever a client does.
TREE_MB = 512
#: tools/list answers about 50 KB: 8,000 unread ones would hold about 400 MB.
REQUESTS = 8000

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "never-reads", "version": "1"},
    },
}
_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
_JSON = {"Content-Type": "application/json"}


def _tools_list(number: int) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/list"}


class _Sender:
    """Writes lines from a thread, and tells when it stopped making progress."""

    def __init__(self, write: object, lines: list[bytes]) -> None:
        self.sent = 0
        self._write = write
        self._thread = threading.Thread(target=self._run, args=(lines,), daemon=True)
        self._thread.start()

    def _run(self, lines: list[bytes]) -> None:
        for line in lines:
            try:
                self._write(line)  # type: ignore[operator]
            except (OSError, ValueError, httpx.HTTPError):
                return
            self.sent += 1

    def settle(self, quiet: float = 3.0) -> None:
        """Wait until every line is sent, or none was for ``quiet`` seconds."""
        last, since = -1, time.monotonic()
        while self._thread.is_alive():
            if self.sent != last:
                last, since = self.sent, time.monotonic()
            elif time.monotonic() - since > quiet:
                return
            time.sleep(0.2)


@pytest.mark.slow
def test_a_stdio_client_that_never_reads_holds_bounded_memory(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "octo", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=serve_env(tmp_path),
        cwd=tmp_path,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(json.dumps(_INITIALIZE).encode() + b"\n")
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 0
        server.stdin.write(json.dumps(_INITIALIZED).encode() + b"\n")
        server.stdin.flush()
        before = tree_rss_mb(server.pid)

        def write(line: bytes) -> None:
            assert server.stdin is not None
            server.stdin.write(line)
            server.stdin.flush()

        sender = _Sender(
            write, [json.dumps(_tools_list(n)).encode() + b"\n" for n in range(1, REQUESTS)]
        )
        sender.settle()
        now = tree_rss_mb(server.pid)
        grown = now - before
        assert now < TREE_MB
        assert server.poll() is None
        assert grown < GROWTH_MB, f"the server grew by {grown:.0f} MB"
        # It stopped reading: the client's requests wait in the pipe, not in the server.
        assert sender.sent < REQUESTS - 1
    finally:
        server.kill()
        server.wait()
        server.stdout.close()
        with contextlib.suppress(OSError):
            server.stdin.close()


@pytest.mark.slow
def test_an_sse_client_that_never_reads_is_refused_with_429(tmp_path: Path) -> None:
    port = free_port()
    argv = [*serve_http_argv(port), "--sse"]
    server = subprocess.Popen(
        argv, env=serve_env(tmp_path), cwd=tmp_path, stderr=subprocess.DEVNULL
    )
    try:
        wait_listening(port, server)
        held, path = held_sse_stream(port)
        statuses: list[int] = []
        retry_after: set[str] = set()
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as poster:
            for message in (_INITIALIZE, _INITIALIZED):
                assert poster.post(path, json=message).status_code == 202
            before = tree_rss_mb(server.pid)

            def post(line: bytes) -> None:
                answer = poster.post(path, content=line, headers=_JSON)
                statuses.append(answer.status_code)
                retry_after.add(answer.headers.get("retry-after", ""))

            sender = _Sender(
                post, [json.dumps(_tools_list(n)).encode() for n in range(1, REQUESTS)]
            )
            sender.settle()
        now = tree_rss_mb(server.pid)
        grown = now - before
        assert now < TREE_MB
        held.close()
        assert server.poll() is None
        assert grown < GROWTH_MB, f"the server grew by {grown:.0f} MB"
        assert statuses.count(429) > REQUESTS // 2
        assert retry_after >= {"1"}
    finally:
        server.kill()
        server.wait()
