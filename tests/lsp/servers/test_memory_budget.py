"""The pool within its memory budget (OCTO_LSP_MEMORY): three fake servers that hold memory,
the longest-idle stopped when together they pass it, one that alone passes it stopped with a
clear error; and one pool for every HTTP session (N sessions on one root, one server)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from mcp import Client

from octo import Gateway
from octo.lsp.servers.running.memory import default_budget
from octo.lsp.servers.running.memory import resident_sizes
from octo.lsp.servers.running.settings import LspSettings
from tests.http_serving import serving_http
from tests.lsp.conftest import FAKE_SERVER
from tests.lsp.conftest import SOURCE
from tests.lsp.conftest import GatewayFactory
from tests.lsp.conftest import descendants_of
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import pool_of
from tests.lsp.conftest import result_of
from tests.lsp.conftest import session_of

#: The fake server's own size is about 50 MB; each of these holds 60 MB more: two fit in
#: the budget, three do not; "big" grows 400 MB past it on its first definition.
BUDGET = "300M"
SERVERS = {"alpha": "alloc-60", "beta": "alloc-60", "gamma": "alloc-60", "big": "grow-400"}


def _servers_file(folder: Path) -> Path:
    entries = [
        f'[[servers]]\nname = "{name}"\nlanguages = ["{name}"]\nextensions = [".{name}"]\n'
        f"command = [{sys.executable!r}, {str(FAKE_SERVER)!r}, {mode!r}]\n"
        for name, mode in SERVERS.items()
    ]
    path = folder / "servers.toml"
    path.write_text("\n".join(entries))
    return path


def _env(project: Path) -> dict[str, str]:
    for name in SERVERS:
        (project / f"f.{name}").write_text("target\n\nuse target\n")
    return lsp_env(
        OCTO_LSP_SERVERS_FILE=str(_servers_file(project)),
        OCTO_LSP_MEMORY=BUDGET,
        OCTO_LSP_MEMORY_CHECK="0.1",
        OCTO_LSP_MAX_SERVERS="8",
    )


async def _definition(gw: Gateway, name: str) -> dict[str, object]:
    query = {"uri": f"f.{name}", "symbolName": "target", "lineHint": 3}
    return result_of(await gw.lsp_goto_definition([query]))


def _live(gw: Gateway) -> set[str]:
    return {slot.server_id for slot in pool_of(gw).live()}


async def _until(check: Callable[[], bool]) -> None:
    for _ in range(600):
        if check():
            return
        await anyio.sleep(0.05)
    pytest.fail("the pool did not get there in 30 s")


def test_the_default_budget_is_a_quarter_of_memory_at_most_4_gb() -> None:
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert default_budget() == min(total // 4, 4 << 30)
    assert LspSettings.from_env({}).memory == default_budget()
    assert LspSettings.from_env({"OCTO_LSP_MEMORY": "512M"}).memory == 512 << 20


def test_a_servers_tree_is_measured_from_proc() -> None:
    me = os.getpid()
    sid = session_of(me)
    assert sid is not None
    assert resident_sizes([sid])[sid] > 10 << 20


@pytest.mark.slow
async def test_the_longest_idle_server_is_stopped_when_together_they_pass_the_budget(
    gateway: GatewayFactory, project: Path
) -> None:
    gw = await gateway(_env(project))
    pool = pool_of(gw)
    for name in ("alpha", "beta"):
        assert (await _definition(gw, name))["status"] == "success"
    # Both measured, and within the budget together: neither is stopped.
    await _until(lambda: all(slot.resident for slot in pool.live()))
    assert _live(gw) == {"alpha", "beta"}
    assert (await _definition(gw, "gamma"))["status"] == "success"
    await _until(lambda: "alpha" not in _live(gw))
    assert _live(gw) == {"beta", "gamma"}
    # alpha answers again when asked (started anew); the longest idle (beta) makes room.
    assert (await _definition(gw, "alpha"))["status"] == "success"
    await _until(lambda: "beta" not in _live(gw))
    assert _live(gw) == {"gamma", "alpha"}


@pytest.mark.slow
async def test_a_server_that_alone_passes_the_budget_is_stopped_with_a_clear_error(
    gateway: GatewayFactory, project: Path
) -> None:
    gw = await gateway(_env(project))
    await _definition(gw, "big")
    await _until(lambda: "big" not in _live(gw))
    result = await _definition(gw, "big")
    assert result["status"] == "error"
    error = result["error"]
    assert isinstance(error, dict)
    assert error["code"] == "LSP_NOT_AVAILABLE"
    assert "big was stopped: it alone held" in error["message"]
    assert "OCTO_LSP_MEMORY" in error["message"]
    hints = result["hints"]
    assert isinstance(hints, list)
    assert any("Raise the budget (OCTO_LSP_MEMORY" in hint for hint in hints)
    assert _live(gw) == set()


@pytest.mark.slow
async def test_sessions_of_one_http_server_share_one_server_per_root(project: Path) -> None:
    (project / "mod.py").write_text(SOURCE)
    command = f"{sys.executable} {FAKE_SERVER} plain"
    env = {**lsp_env(OCTO_LSP_PYTHON_COMMAND=command), "OCTO_ROOTS": str(project)}
    query = {"uri": "mod.py", "symbolName": "target", "lineHint": 5}
    async with serving_http(env) as (url, octo):

        async def ask() -> None:
            async with Client(url) as client:
                result = await client.call_tool("lspGotoDefinition", {"queries": [query]})
                assert result.structured_content is not None
                (row,) = result.structured_content["results"]
                assert row["status"] == "success", row

        async with anyio.create_task_group() as sessions:
            for _ in range(5):
                sessions.start_soon(ask)
        # The server and its launcher share one session: one server, one session.
        below = [pid for pid in descendants_of(octo.pid) if str(FAKE_SERVER) in _command(pid)]
        assert len({session_of(pid) for pid in below}) == 1, below


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""
