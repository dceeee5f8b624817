"""The pool's lifecycle through the fake server: backoff and idle on a manual clock, one
start for racing queries, room for a new server, and no process left when queries are
cancelled, the gateway closes (also by cancellation) or octo itself dies."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest
from lsprotocol import types as lsp

from octo import Gateway
from octo.core.config import Config
from octo.lsp.servers.running.pool import LspPool
from octo.lsp.servers.running.pool import ServerSlot
from octo.lsp.servers.wire.client import LspClient
from tests.lsp.conftest import DEFINITION
from tests.lsp.conftest import FAKE_SERVER
from tests.lsp.conftest import SOURCE
from tests.lsp.conftest import GatewayFactory
from tests.lsp.conftest import ManualClock
from tests.lsp.conftest import assert_no_leftovers
from tests.lsp.conftest import fake_env
from tests.lsp.conftest import leftovers
from tests.lsp.conftest import result_of
from tests.lsp.conftest import server_pids

# Server processes started, crashed and killed: seconds each.
pytestmark = pytest.mark.slow


async def _crash(slot: ServerSlot, project: Path) -> str:
    """Send the definition request the crash-mode server dies on; the error's message."""
    params = {
        "textDocument": {"uri": (project / "mod.py").as_uri()},
        "position": {"line": 0, "character": 4},
    }
    with pytest.raises(Exception) as crashed:
        await slot.request(lsp.TEXT_DOCUMENT_DEFINITION, params)
    return str(crashed.value)


async def _acquire_into(found: list[ServerSlot], pool: LspPool, path: Path, root: Path) -> None:
    found.append(await pool.acquire(path, root))


async def test_a_server_that_keeps_crashing_is_restarted_after_a_growing_backoff(
    gateway: GatewayFactory, project: Path
) -> None:
    gw = await gateway(fake_env("crash"))
    clock = ManualClock()
    pool = LspPool(gw.runtime, clock=clock, sleep=clock.sleep)
    mod = project / "mod.py"
    try:
        message = await _crash(await pool.acquire(mod, project), project)
        assert "exited (code 3): " in message
        assert "fake-lsp: simulated crash in definition" in message
        for backoff in (1.0, 2.0):  # restarted after 1 s, then after 2 s
            acquired: list[ServerSlot] = []
            async with anyio.create_task_group() as tg:
                tg.start_soon(_acquire_into, acquired, pool, mod, project)
                await clock.sleeping(backoff)
                assert server_pids() == []  # no restart before the backoff is over
                clock.advance(backoff)
            assert "simulated crash in definition" in await _crash(acquired[0], project)
        # The next restart is 4 s away: the query fails at once, naming the last crash.
        with pytest.raises(Exception) as waiting:
            await pool.acquire(mod, project)
        assert "crashed 3 times in a row; octo starts it again in 4 s" in str(waiting.value)
        assert "simulated crash in definition" in str(waiting.value)
        assert server_pids() == []
        clock.advance(4.0)
        await pool.acquire(mod, project)
        assert len(server_pids()) == 1
    finally:
        await pool.aclose()


async def test_idle_servers_stop_and_restart_on_demand(
    gateway: GatewayFactory, project: Path
) -> None:
    gw = await gateway(fake_env("plain", OCTO_LSP_IDLE_TIMEOUT="600"))
    clock = ManualClock()
    pool = LspPool(gw.runtime, clock=clock, sleep=clock.sleep)
    mod = project / "mod.py"
    try:
        slot = await pool.acquire(mod, project)
        (first,) = server_pids()
        await clock.sleeping(600.0)  # the idle task sleeps until the idle deadline
        clock.advance(599.0)
        params = {"textDocument": {"uri": mod.as_uri()}, "position": {"line": 0, "character": 4}}
        await slot.request(lsp.TEXT_DOCUMENT_DEFINITION, params)  # used again at 599 s
        clock.advance(1.0)
        await clock.sleeping(599.0)  # woke at 600 s, found it used 1 s ago: sleeps again
        assert server_pids() == [first]
        clock.advance(599.0)
        await assert_no_leftovers({first}, descendants=False)  # idle for 600 s: stopped
        assert server_pids() == []
        await pool.acquire(mod, project)
        assert server_pids() not in ([], [first])
    finally:
        await pool.aclose()


async def test_grandchildren_die_with_the_server(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("grandchild"))
    assert result_of(await gw.lsp_find_references([DEFINITION]))["status"] == "success"
    (pid,) = server_pids()
    assert len(leftovers({pid})) >= 2  # the server and its sleep child
    await gw.aclose()
    await assert_no_leftovers({pid})


async def test_cancelling_a_query_leaves_no_process(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("hang"))
    with anyio.move_on_after(1.5):
        await gw.lsp_goto_definition([DEFINITION])
    pids = server_pids()
    await gw.aclose()
    await assert_no_leftovers(pids)


async def test_a_start_cancelled_at_any_moment_leaves_no_pipe_open(
    gateway: GatewayFactory, project: Path
) -> None:
    # Cancelled while asyncio connects the new server's pipes, the pipes it connected after
    # the cancellation stayed open. The fixture checks that no pipe and no process is left.
    gw = await gateway(fake_env("plain"))
    argv = (sys.executable, str(FAKE_SERVER), "plain")
    for step in range(60):
        with anyio.move_on_after(step / 5000):
            client = await LspClient.start(
                "fake", argv, project, dict(os.environ), init_timeout=10, runtime=gw.runtime
            )
            await client.aclose()
    gc.collect()  # a leaked pipe's transport warns as it is collected: an error in tests


async def test_a_cancelled_gateway_scope_stops_every_server(project: Path) -> None:
    # What a face does on SIGTERM: cancel the scope its gateway lives in.
    pids: list[int] = []
    with anyio.move_on_after(2) as scope:
        async with Gateway(Config.from_env(fake_env("grandchild")), roots=[project]) as gw:
            await gw.lsp_find_references([DEFINITION])
            pids = server_pids()
            await anyio.sleep(30)
    assert scope.cancelled_caught
    await assert_no_leftovers(set(pids))


async def test_a_gateway_that_was_not_entered_says_so_and_starts_nothing(project: Path) -> None:
    gw = Gateway(Config.from_env(fake_env("grandchild")), roots=[project])
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["error"]["code"] == "TOOL_NOT_AVAILABLE"
    assert any("async with octo.Gateway()" in hint for hint in result["hints"])
    assert server_pids() == []
    await assert_no_leftovers(set())


async def test_no_server_is_started_before_a_query_needs_one(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("plain"))
    assert [spec.name for spec in gw.tools() if spec.name.startswith("lsp")] == [
        "lspGotoDefinition",
        "lspFindReferences",
        "lspHover",
        "lspTypeHierarchy",
        "lspDocumentSymbols",
        "lspWorkspaceSymbols",
        "lspDiagnostics",
        "lspCallHierarchy",
    ]
    missing = result_of(await gw.lsp_goto_definition([{**DEFINITION, "symbolName": "nope"}]))
    assert missing["error"]["code"] == "NOT_FOUND"
    assert server_pids() == []
    assert leftovers() == []


async def _run_script(script: str) -> subprocess.CompletedProcess[bytes]:
    with anyio.fail_after(60):
        return await anyio.run_process(
            [sys.executable, "-c", script], cwd=Path(__file__).parents[3], check=False
        )


async def test_octo_dying_takes_its_servers_along(project: Path) -> None:
    # No handler can run on SIGKILL: the kernel kills the server (setpriv --pdeathsig).
    # Children a server starts itself are not covered: a face closes the gateway on SIGTERM.
    script = textwrap.dedent(
        f"""
        import os, signal, anyio
        from octo import Gateway
        from octo.core.config import Config
        from tests.lsp.conftest import fake_env
        from tests.lsp.conftest import server_pids

        async def main():
            async with Gateway(Config.from_env(fake_env("plain")), roots=[{str(project)!r}]) as gw:
                await gw.lsp_find_references([{DEFINITION!r}])
                print(*server_pids(), flush=True)
                os.kill(os.getpid(), signal.SIGKILL)

        anyio.run(main)
        """
    )
    done = await _run_script(script)
    assert done.returncode == -9, done.stderr.decode()
    pids = {int(p) for p in done.stdout.decode().split()}
    assert pids
    await assert_no_leftovers(pids, descendants=False)


async def test_sigterm_handled_by_cancelling_the_gateway_scope_leaves_no_process(
    project: Path,
) -> None:
    # The faces' part (octo serve, the CLI): on SIGTERM, cancel the scope the gateway lives
    # in; the runtime closes and the pool stops every server with its process group.
    script = textwrap.dedent(
        f"""
        import os, signal, sys, anyio
        from octo import Gateway
        from octo.core.config import Config
        from tests.lsp.conftest import fake_env
        from tests.lsp.conftest import server_pids

        async def serve(scope):
            async with Gateway(Config.from_env(fake_env("grandchild")), roots=[{str(project)!r}]) as gw:
                await gw.lsp_find_references([{DEFINITION!r}])
                print(*server_pids(), flush=True)
                os.kill(os.getpid(), signal.SIGTERM)
                await anyio.sleep(30)

        async def main():
            with anyio.open_signal_receiver(signal.SIGTERM) as signals:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(serve, tg.cancel_scope)
                    async for _ in signals:
                        tg.cancel_scope.cancel()
                        break
            sys.exit(128 + signal.SIGTERM)

        anyio.run(main)
        """
    )
    done = await _run_script(script)
    assert done.returncode == 128 + 15, done.stderr.decode()
    pids = {int(p) for p in done.stdout.decode().split()}
    assert pids
    await assert_no_leftovers(pids, descendants=False)


async def test_racing_queries_start_one_server(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("plain"))
    response = await gw.lsp_goto_definition([DEFINITION] * 5)
    assert [r.status for r in response.results] == ["success"] * 5
    assert len(server_pids()) == 1


async def test_the_least_recently_used_server_makes_room(
    gateway: GatewayFactory, project: Path
) -> None:
    other = project / "other"
    other.mkdir()
    (other / "pyproject.toml").touch()
    (other / "mod.py").write_text(SOURCE)
    gw = await gateway(fake_env("plain", OCTO_LSP_MAX_SERVERS="1"))
    assert result_of(await gw.lsp_goto_definition([DEFINITION]))["status"] == "success"
    (first,) = server_pids()
    second_query = {**DEFINITION, "uri": "other/mod.py"}
    assert result_of(await gw.lsp_goto_definition([second_query]))["status"] == "success"
    (second,) = server_pids()
    assert second != first
    await assert_no_leftovers({first}, descendants=False)
