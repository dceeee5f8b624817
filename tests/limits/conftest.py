"""A root on disk and calls through a real gateway with chosen settings, for the tests of
what no query may do to the server: stall the others, hold memory, outlive its deadline."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config
from tests.http_serving import REPO
from tests.local import conftest as local_code
from tests.lsp.conftest import descendants_of

Run = Callable[..., Awaitable[list[dict[str, Any]]]]

#: The allowed root (tmp_path itself holds things outside it).
root = local_code.root


@pytest.fixture
def run(root: Path) -> Run:
    """``await run(tool, [queries], **settings)``: the envelopes of one call, in wire form,
    through a gateway rooted at ``root`` with ``Config(**settings)``."""

    async def call(
        tool: str, queries: list[dict[str, Any]], **settings: Any
    ) -> list[dict[str, Any]]:
        async with octo.Gateway(Config(**settings), roots=[root]) as gateway:
            response = await gateway.call(tool, queries)
        results: list[dict[str, Any]] = response.to_wire()["results"]
        return results

    return call


def tree_rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and every process below it now, in MiB (Linux /proc)."""
    total = 0
    for each in [pid, *descendants_of(pid)]:
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def own_memory_kib(field: str) -> int:
    """This process's ``field`` of /proc/self/status (VmRSS, VmHWM: the peak), in KiB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/self/status (Linux only)")


def reset_own_peak() -> None:
    """Start this process's VmHWM (the peak RSS) again from its RSS of now (Linux)."""
    Path("/proc/self/clear_refs").write_text("5")


def serve_env(root: Path, **settings: str) -> dict[str, str]:
    """This environment with ``root`` as the allowed root and ``settings`` added, for a
    server started as a child."""
    plain = {k: v for k, v in os.environ.items() if not k.startswith("OCTO_")}
    return {**plain, "OCTO_ROOTS": str(root), "PYTHONPATH": str(REPO), **settings}


def wait_listening(port: int, server: subprocess.Popen[bytes]) -> None:
    """Wait until the ``server`` listening on ``port`` accepts a connection."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert server.poll() is None, "octo serve --http exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("octo serve --http did not listen")


def held_sse_stream(port: int) -> tuple[socket.socket, str]:
    """A GET /sse whose client reads its endpoint event, then nothing more: the socket and
    the path to post messages to."""
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    held.connect(("127.0.0.1", port))
    held.sendall(b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    seen = b""
    while b"session_id=" not in seen or not seen.endswith(b"\r\n\r\n"):
        chunk = held.recv(4096)
        if not chunk:
            raise ConnectionError(f"the server closed GET /sse after {seen!r}")
        seen += chunk
    path = seen.split(b"data: ", 1)[1].split(b"\r\n", 1)[0].decode()
    return held, path
