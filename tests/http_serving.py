"""`octo serve --http` run as a child by tests and benchmarks: a free port, the command,
waiting until it listens, and its peak memory."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from anyio.abc import Process

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serve_http_argv(port: int) -> list[str]:
    """The command that serves MCP over HTTP on ``port`` with this interpreter's octo."""
    return [sys.executable, "-m", "octo", "serve", "--http", "--port", str(port)]


async def wait_listening(
    port: int, *, seconds: float = 60.0, alive: Callable[[], bool] | None = None
) -> None:
    """Wait until 127.0.0.1:``port`` accepts a connection; ``alive`` saying False (the server
    exited) fails at once."""
    with anyio.fail_after(seconds):
        while True:
            try:
                await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                return
            except OSError:
                assert alive is None or alive(), "octo serve --http exited"
                await anyio.sleep(0.05)


@asynccontextmanager
async def serving_http(env: dict[str, str]) -> AsyncIterator[tuple[str, Process]]:
    """`octo serve --http` with ``env`` on a free port, once it listens: its MCP URL and its
    process, which is stopped when the block ends."""
    port = free_port()
    server = await anyio.open_process(
        serve_http_argv(port), env=env, cwd=REPO, stdin=subprocess.DEVNULL, stdout=None
    )
    try:
        await wait_listening(port, alive=lambda: server.returncode is None)
        yield f"http://127.0.0.1:{port}/mcp", server
    finally:
        server.terminate()
        with anyio.move_on_after(30, shield=True):
            await server.wait()


def peak_rss_mb(pid: int) -> float:
    """The peak resident memory of ``pid`` so far, in MiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0
