"""`octo serve` with live language servers: SIGTERM, stdin close and cancelled calls leave no process.

octo runs as a real subprocess under a real MCP client; the servers and their children
(the fake server's `sleep`, typescript-language-server's tsserver) are read from /proc.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp.client.stdio
import pytest
from mcp import Client
from mcp import StdioServerParameters

from octo.core.errors import LspNotAvailableError
from octo.lsp.servers.table.commands import find_servers
from tests.http_serving import free_port
from tests.http_serving import serve_http_argv
from tests.http_serving import wait_listening
from tests.lsp.conftest import FAKE_SERVER
from tests.lsp.conftest import FIXTURES
from tests.lsp.conftest import NPM_BIN
from tests.lsp.conftest import assert_no_leftovers
from tests.lsp.conftest import command_line
from tests.lsp.conftest import descendants_of
from tests.lsp.conftest import leftovers
from tests.lsp.conftest import session_of

# `octo serve` subprocesses with live language servers: seconds each.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
SOURCE = "def target():\n    return 1\n\n\nvalue = target()\n"


@dataclass(frozen=True)
class Setup:
    """What `octo serve` needs to run one LSP query against one server."""

    env: dict[str, str]
    tool: str
    query: Mapping[str, Any]


def _env(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCTO_")}
    # The npm servers: .ci/run's install, or wherever OCTO_LSP_PATH points (as in lsp_env).
    servers = os.pathsep.join(p for p in (os.environ.get("OCTO_LSP_PATH", ""), str(NPM_BIN)) if p)
    return {**env, "OCTO_ROOTS": str(root), "OCTO_LSP_PATH": servers, **extra}


def _fake(root: Path, mode: str) -> Setup:
    (root / "pyproject.toml").touch()
    (root / "mod.py").write_text(SOURCE)
    command = f"{sys.executable} {FAKE_SERVER} {mode}"
    return Setup(
        _env(root, OCTO_LSP_PYTHON_COMMAND=command),
        "lspFindReferences",
        {"uri": "mod.py", "symbolName": "target", "lineHint": 5},
    )


def _typescript() -> Setup:
    root = FIXTURES / "ts_project"
    env = _env(root)
    try:
        found = find_servers("typescript", env)[0].server_id
    except LspNotAvailableError:
        found = None
    if shutil.which("node") is None or found is None:
        pytest.skip("no TypeScript language server (npm install in .ci/run)")
    return Setup(env, "lspGotoDefinition", {"uri": "app.ts", "symbolName": "add", "lineHint": 5})


@pytest.fixture(autouse=True)
def patient_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP client kills the server's process group 2 s after it closes stdin: a loaded
    machine's octo may need longer to stop its servers and exit, and the shell killed with
    it writes no status. With 60 s octo must still exit by itself for the status to be read."""
    monkeypatch.setattr(mcp.client.stdio, "PROCESS_TERMINATION_TIMEOUT", 60.0)


@pytest.fixture(params=["fake-with-child", "typescript"])
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Setup:
    return _fake(tmp_path, "grandchild") if request.param == "fake-with-child" else _typescript()


def _stdio(setup: Setup, status_file: Path) -> StdioServerParameters:
    # A shell in between records octo's own exit status: the client kills the whole group
    # (shell included) if octo does not exit by itself after stdin closes.
    script = f'"$0" -m octo serve; echo $? > "{status_file}"'
    return StdioServerParameters(
        command="/bin/sh", args=["-c", script, sys.executable], env=setup.env, cwd=str(REPO)
    )


def _octo_pid() -> int:
    (pid,) = [pid for pid in leftovers() if command_line(pid)[1:4] == ["-m", "octo", "serve"]]
    return pid


def _tree_sessions(octo: int) -> set[int]:
    """Sessions of octo's descendants: one per language server, children included."""
    below = descendants_of(octo)
    assert below, "no language server was started"
    return {sid for pid in below if (sid := session_of(pid)) is not None and sid != octo}


async def _call(client: Client, setup: Setup) -> None:
    result = await client.call_tool(setup.tool, {"queries": [setup.query]})
    assert result.structured_content is not None
    (row,) = result.structured_content["results"]
    assert row["status"] == "success", row


async def _gone(pid: int) -> None:
    for _ in range(600):
        if pid not in leftovers():
            return
        await anyio.sleep(0.05)
    pytest.fail(f"octo ({pid}) did not exit")


async def test_initialize_and_tools_list_start_no_server(tmp_path: Path) -> None:
    # The configured server would hang in its own initialize for a minute.
    setup = _fake(tmp_path, "slow-start")
    status = tmp_path / "status"
    async with Client(_stdio(setup, status)) as client:
        tools = await client.list_tools()
        assert "lspCallHierarchy" in {tool.name for tool in tools.tools}
        assert descendants_of(_octo_pid()) == []
    assert status.read_text().strip() == "0"


async def test_sigterm_to_octo_serve_stops_every_server(setup: Setup, tmp_path: Path) -> None:
    # The server dies with octo (pdeathsig), its own children only because `octo serve`
    # closes the gateway on SIGTERM before it dies by the signal.
    status = tmp_path / "status"
    async with Client(_stdio(setup, status)) as client:
        await _call(client, setup)
        octo = _octo_pid()
        sessions = _tree_sessions(octo)
        os.kill(octo, signal.SIGTERM)
        await _gone(octo)
        await assert_no_leftovers(sessions, descendants=False)
    assert status.read_text().strip() == str(128 + signal.SIGTERM)


async def test_stdin_close_stops_every_server(setup: Setup, tmp_path: Path) -> None:
    status = tmp_path / "status"
    async with Client(_stdio(setup, status)) as client:
        await _call(client, setup)
        octo = _octo_pid()
        sessions = _tree_sessions(octo)
    assert status.read_text().strip() == "0"  # octo exited by itself, not killed by the client
    await assert_no_leftovers(sessions | {octo})


async def test_a_cancelled_call_leaves_octo_serving_and_no_extra_process(tmp_path: Path) -> None:
    setup = _fake(tmp_path, "hang")
    hanging = {**setup.query, "uri": "mod.py"}
    status = tmp_path / "status"
    async with Client(_stdio(setup, status)) as client:
        # A warm server first: a cancel that lands while the server still starts (a loaded
        # machine) rightly stops that start, which is another test's subject.
        await _call(client, setup)
        octo = _octo_pid()
        # The server, and on Linux the shell that kills its group if octo dies.
        server = {pid for pid in descendants_of(octo) if str(FAKE_SERVER) in command_line(pid)}
        assert server
        with anyio.move_on_after(2) as waited:
            await client.call_tool("lspGotoDefinition", {"queries": [hanging]})
        assert waited.cancelled_caught
        await _call(client, setup)  # references still answer, from the same server
        assert set(descendants_of(octo)) == server
    assert status.read_text().strip() == "0"
    await assert_no_leftovers({*server, octo})


async def test_a_call_cancelled_while_the_server_starts_kills_it(tmp_path: Path) -> None:
    setup = _fake(tmp_path, "slow-start")
    status = tmp_path / "status"
    async with Client(_stdio(setup, status)) as client:
        octo = 0
        with anyio.move_on_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, setup.tool, {"queries": [setup.query]})
                while not octo or not descendants_of(octo):
                    await anyio.sleep(0.05)
                    octo = octo or next(iter([p for p in leftovers() if _is_octo(p)]), 0)
                sessions = _tree_sessions(octo)
                tg.cancel_scope.cancel()
        await assert_no_leftovers(sessions, descendants=False)
        tools = await client.list_tools()  # still serving
        assert any(tool.name == "lspGotoDefinition" for tool in tools.tools)
    assert status.read_text().strip() == "0"


def _is_octo(pid: int) -> bool:
    return command_line(pid)[1:4] == ["-m", "octo", "serve"]


# -- streamable HTTP ---------------------------------------------------------------------


async def test_sigterm_to_octo_serve_http_stops_every_server(tmp_path: Path) -> None:
    setup = _fake(tmp_path, "grandchild")
    port = free_port()
    async with await anyio.open_process(
        serve_http_argv(port),
        env=setup.env,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=None,
        stderr=None,
    ) as octo:
        await wait_listening(port, seconds=30, alive=lambda: octo.returncode is None)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            await _call(client, setup)
            sessions = _tree_sessions(octo.pid)
            octo.send_signal(signal.SIGTERM)
            with anyio.fail_after(30):
                await octo.wait()
    assert octo.returncode == -signal.SIGTERM
    await assert_no_leftovers(sessions, descendants=False)
