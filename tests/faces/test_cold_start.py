"""`octo serve` answers initialize and tools/list without importing a tool family: the
definitions come from the snapshot `octo docs` writes; the registry loads in a worker thread
once tools/list is answered."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Mapping
from functools import partial
from pathlib import Path

import anyio
import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from octo.core.config import parse_toolsets
from octo.faces.mcp.server import sdk_answers
from octo.faces.mcp.stdio_wire import MAX_MESSAGE_BYTES

from .conftest import REPO
from .conftest import octo_env

PROBE = """
import sys, threading, anyio
from mcp import Client
from octo.faces.mcp.server import build_server

main_thread = []

def seen(event, args):
    if event == "import" and threading.current_thread() is threading.main_thread():
        name = args[0]
        if name.startswith("octo.") and name.endswith((".specs", ".models", ".registry")):
            main_thread.append(name)

sys.addaudithook(seen)

async def main():
    async with Client(build_server(), mode="legacy") as client:
        tools = (await client.list_tools()).tools
        print(len(tools), sorted(main_thread))
        await client.call_tool("getToolCategories", {"queries": [{}]})
        print("octo.registry" in sys.modules)

anyio.run(main)
"""


@pytest.mark.slow
def test_tools_list_imports_no_family_until_the_first_call() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=octo_env(REPO),
        cwd=REPO,
        timeout=60,
        check=True,
    )
    from octo.registry import all_tools

    assert done.stdout.splitlines() == [f"{len(all_tools())} []", "True"], done.stderr


# Holds `import mcp` (in whichever thread) until the file named by argv[1] exists, so what
# `octo serve` writes before it is written without the SDK.
HELD_SDK = """
import os, sys, time
go = sys.argv.pop(1)

class HoldSdk:
    def find_spec(self, name, path=None, target=None):
        if name == "mcp" or name == "mcp_types":
            while not os.path.exists(go):
                time.sleep(0.01)
        return None

sys.meta_path.insert(0, HoldSdk())
sys.argv[1:] = ["serve"]
from octo.faces.cli.commands import main
raise SystemExit(main())
"""


def _message(
    message_id: int | None, method: str, params: Mapping[str, object] | None = None
) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", "method": method}
    if message_id is not None:
        message["id"] = message_id
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def _opening(version: str) -> bytes:
    client = {"name": "test", "version": "1"}
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": client}
    return _message(1, "initialize", params) + _message(None, "notifications/initialized")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("version", "toolsets"),
    [*((v, None) for v in HANDSHAKE_PROTOCOL_VERSIONS), ("1999-01-01", "local,lsp")],
)
def test_initialize_and_tools_list_are_answered_before_the_sdk_is_imported_as_the_sdk_would(
    tmp_path: Path, version: str, toolsets: str | None
) -> None:
    go = tmp_path / "go"
    env = octo_env(REPO) | ({"OCTO_TOOLSETS": toolsets} if toolsets else {})
    with subprocess.Popen(
        [sys.executable, "-c", HELD_SDK, str(go)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        try:
            server.stdin.write(_opening(version) + _message(2, "tools/list"))
            server.stdin.flush()
            early = [server.stdout.readline().decode().rstrip("\n") for _ in range(2)]
            go.touch()  # the SDK may load now: it takes the session and answers what follows
            server.stdin.write(_message(3, "ping"))
            server.stdin.close()
            rest = server.stdout.read().decode().splitlines()
            assert server.wait(timeout=60) == 0, server.stderr.read() if server.stderr else ""
        finally:
            server.kill()
    parsed = parse_toolsets(toolsets or "", "OCTO_TOOLSETS")
    assert early == anyio.run(partial(sdk_answers, version, parsed, tools_too=True))
    # The SDK's own answers to the two early requests are not written again.
    assert [json.loads(line) for line in rest] == [{"jsonrpc": "2.0", "id": 3, "result": {}}]


@pytest.mark.slow
def test_a_message_the_wire_does_not_answer_early_waits_for_the_sdk(tmp_path: Path) -> None:
    go = tmp_path / "go"
    unusual = {"protocolVersion": "2025-11-25", "capabilities": {"roots": {"listChanged": "?"}}}
    unusual["clientInfo"] = {"name": "test", "version": "1"}
    with subprocess.Popen(
        [sys.executable, "-c", HELD_SDK, str(go)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=octo_env(REPO),
        cwd=REPO,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        try:
            # Not a form the SDK surely accepts: it is the SDK's to answer (here: to refuse).
            server.stdin.write(_message(1, "initialize", unusual) + _message(2, "tools/list"))
            server.stdin.flush()
            time.sleep(0.5)  # time to answer early, were it to
            go.touch()
            answers = [json.loads(server.stdout.readline()) for _ in range(2)]
            server.stdin.close()
            assert server.wait(timeout=60) == 0
        finally:
            server.kill()
    assert [answer["id"] for answer in answers] == [1, 2]
    assert all("error" in answer for answer in answers)


def test_the_wire_cap_is_the_sdks_http_body_cap() -> None:
    from mcp.server.streamable_http_manager import DEFAULT_MAX_REQUEST_BODY_SIZE

    assert MAX_MESSAGE_BYTES == DEFAULT_MAX_REQUEST_BODY_SIZE


@pytest.mark.slow
def test_a_bad_bound_stops_octo_serve_on_pipes_too() -> None:
    # The bounds are read as the SDK loads, while the wire may already have answered.
    env = octo_env(REPO) | {"OCTO_SESSION_MAX_IN_FLIGHT": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "octo", "serve"],
        input=_opening("2025-11-25"),
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "octo: OCTO_SESSION_MAX_IN_FLIGHT must be between 1 and 10000, got 0\n"
    )


@pytest.mark.slow
def test_a_client_gone_before_its_early_answer_ends_the_session_quietly() -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "octo", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=octo_env(REPO),
        cwd=REPO,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdout.close()  # the answer to initialize meets a closed pipe
        server.stdin.write(_opening("2025-11-25"))
        server.stdin.flush()
        time.sleep(1)
        server.stdin.close()
        assert server.wait(timeout=60) == 0
        assert server.stderr is not None and server.stderr.read() == b""
