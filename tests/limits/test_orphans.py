"""No child outlives `octo serve`: killed by SIGTERM or SIGKILL over stdio, or by SIGKILL over
HTTP, while an rg counting pass runs and a language server (with a child of its own, as
typescript-language-server has tsserver) is live, every one of its descendants is gone 3 s
later. Ten runs per way to die, real `octo serve` subprocesses, /proc as the witness."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process
from mcp import Client

from tests.http_serving import free_port
from tests.http_serving import serve_http_argv
from tests.http_serving import wait_listening
from tests.lsp.conftest import FAKE_SERVER
from tests.lsp.conftest import SOURCE
from tests.lsp.conftest import alive
from tests.lsp.conftest import command_line
from tests.lsp.conftest import descendants_of

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
RUNS = 10
# rg spends about 2 s on each megabyte of random "ab" lines with this pattern.
SLOW_PATTERN = "a[ab]{20}c"
SEARCH = {"pattern": SLOW_PATTERN, "path": "."}
DEFINITION = {"uri": "mod.py", "symbolName": "target", "lineHint": 5}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A project with a language server's file and 8 MB that keep rg busy for seconds."""
    root = tmp_path_factory.mktemp("orphans")
    (root / "pyproject.toml").touch()
    (root / "mod.py").write_text(SOURCE)
    to_ab = bytes(ord("a") if i & 1 else ord("b") for i in range(256))
    text = os.urandom(8 * 1024 * 1024).translate(to_ab)
    (root / "slow.txt").write_bytes(
        b"".join(text[i : i + 199] + b"\n" for i in range(0, len(text), 199))
    )
    yield root


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCTO_")}
    command = f"{sys.executable} {FAKE_SERVER} grandchild"
    return {
        **env,
        "OCTO_ROOTS": str(root),
        "OCTO_RG_TIMEOUT_MS": "30000",
        "OCTO_LSP_PYTHON_COMMAND": command,
    }


def _in_flight(octo: int) -> list[int] | None:
    """octo's descendants once rg runs and the language server's child is up, else None."""
    below = descendants_of(octo)
    lines = [command_line(pid) for pid in below]
    rg = any(line and line[0].endswith("/rg") for line in lines)
    server = any(str(FAKE_SERVER) in " ".join(line) for line in lines)
    grandchild = any(line[:1] == ["sleep"] for line in lines)
    return below if rg and server and grandchild else None


async def _wait_in_flight(octo: Process) -> list[int]:
    with anyio.fail_after(60):
        while (below := _in_flight(octo.pid)) is None:
            assert octo.returncode is None, "octo serve exited"
            await anyio.sleep(0.05)
    return below


async def _survivors(pids: list[int]) -> list[str]:
    """The command lines of ``pids`` still running 3 s after octo died (then killed, so
    nothing lingers)."""
    with anyio.move_on_after(3):
        while any(alive(pid) for pid in pids):  # noqa: ASYNC110 - /proc has no event
            await anyio.sleep(0.05)
    left = [pid for pid in pids if alive(pid)]
    lines = [" ".join(command_line(pid)) for pid in left]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return lines


def _send(octo: Process, message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


async def _stdio_run(root: Path, signum: int) -> list[str]:
    argv = [sys.executable, "-m", "octo", "serve"]
    async with await anyio.open_process(
        argv, env=_env(root), cwd=REPO, stderr=subprocess.DEVNULL
    ) as octo:
        assert octo.stdin is not None and octo.stdout is not None
        hello = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        }
        messages: list[dict[str, Any]] = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "lspGotoDefinition", "arguments": {"queries": [DEFINITION]}},
            },
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "localSearchCode", "arguments": {"queries": [SEARCH]}},
            },
        ]
        for message in messages:
            await octo.stdin.send(_send(octo, message))
        below = await _wait_in_flight(octo)
        octo.send_signal(signal.Signals(signum))
        await octo.wait()
    return await _survivors(below)


async def _http_run(root: Path) -> list[str]:
    port = free_port()
    async with await anyio.open_process(
        serve_http_argv(port),
        env=_env(root),
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as octo:
        await wait_listening(port, alive=lambda: octo.returncode is None)
        async with anyio.create_task_group() as tg:

            async def call(tool: str, query: dict[str, Any]) -> None:
                # The call dies with octo; how it ends on the client's side is not the point.
                with contextlib.suppress(Exception):
                    async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                        await client.call_tool(tool, {"queries": [query]})

            tg.start_soon(call, "lspGotoDefinition", DEFINITION)
            tg.start_soon(call, "localSearchCode", SEARCH)
            below = await _wait_in_flight(octo)
            octo.send_signal(signal.SIGKILL)
            await octo.wait()
            tg.cancel_scope.cancel()
    return await _survivors(below)


@pytest.mark.parametrize(
    ("transport", "signum"),
    [("stdio", signal.SIGTERM), ("stdio", signal.SIGKILL), ("http", signal.SIGKILL)],
    ids=["stdio-sigterm", "stdio-sigkill", "http-sigkill"],
)
async def test_no_child_outlives_octo_serve(tree: Path, transport: str, signum: int) -> None:
    survivors: list[str] = []

    async def one_run() -> None:
        if transport == "stdio":
            survivors.extend(await _stdio_run(tree, signum))
        else:
            survivors.extend(await _http_run(tree))

    # Runs in fives: ten octo servers with their rg and servers at once would only measure
    # how long two cores take to start them.
    for _ in range(RUNS // 5):
        async with anyio.create_task_group() as tg:
            for _ in range(5):
                tg.start_soon(one_run)
    assert survivors == []
