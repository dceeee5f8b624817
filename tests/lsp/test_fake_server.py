"""Failure handling against our own pygls server (tests/lsp/fake_server.py), through the real pool."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from lsprotocol import types as lsp

from octo import Gateway
from octo.core.config import Config
from octo.lsp.pool import LspPool, ServerSlot
from tests.lsp.conftest import (
    ManualClock,
    assert_no_leftovers,
    fake_env,
    leftovers,
    lsp_env,
    result_of,
    server_sessions,
)

SOURCE = "def target():\n    return 1\n\n\nvalue = target()\n"
DEFINITION = {"uri": "mod.py", "symbolName": "target", "lineHint": 5}
CALLS_SOURCE = (
    "def target():\n    return 1\n\n\n"
    "def a():\n    return target()\n\n\n"
    "def b():\n    return target()\n\n\n"
    "def c():\n    return a() + b()\n"
)
INCOMING = {
    "uri": "calls.py",
    "symbolName": "target",
    "lineHint": 1,
    "direction": "incoming",
    "depth": 2,
}

GatewayFactory = Callable[..., Any]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "mod.py").write_text(SOURCE)
    (tmp_path / "calls.py").write_text(CALLS_SOURCE)
    return tmp_path


@pytest.fixture
async def gateway(project: Path) -> AsyncIterator[Callable[[dict[str, str]], Any]]:
    """Open gateways over ``project``; on teardown close them and check no process is left."""
    async with AsyncExitStack() as stack:

        async def make(env: dict[str, str]) -> Gateway:
            return await stack.enter_async_context(Gateway(Config.from_env(env), roots=[project]))

        yield make
        sessions = server_sessions()
    await assert_no_leftovers(sessions)


def pool_of(gw: Gateway) -> LspPool:
    return gw.runtime.backend(LspPool)


async def test_initialize_survives_a_notebook_selector_with_cells(gateway: GatewayFactory) -> None:
    # cattrs 25+ cannot structure this initialize reply: a stock pygls client drops it and
    # waits forever. octo keeps results as JSON, so initialize completes.
    gw = await gateway(fake_env("plain", OCTO_LSP_INIT_TIMEOUT="10"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["status"] == "success", result
    definition = result["data"]["definitions"][0]
    assert definition["uri"] == "mod.py"
    assert definition["range"]["start"] == {"line": 1, "character": 0}
    assert result["data"]["resolved"] == {
        "line": 5,
        "character": 8,
        "lineOffset": 0,
        "text": "value = target()",
    }


async def test_a_hanging_request_times_out_and_the_server_is_recycled(
    gateway: GatewayFactory, tmp_path_factory: pytest.TempPathFactory
) -> None:
    state = tmp_path_factory.mktemp("hang-state")
    gw = await gateway(fake_env("hang", str(state), OCTO_LSP_REQUEST_TIMEOUT="0.3"))
    first = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert first["error"]["code"] == "TIMEOUT"
    assert "did not answer textDocument/definition" in first["error"]["message"]
    for _ in range(100):  # the server got $/cancelRequest for it
        if (state / "cancelled").exists():
            break
        await anyio.sleep(0.02)
    assert (state / "cancelled").exists()
    (pid,) = pool_of(gw).process_ids()
    second = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert second["error"]["code"] == "TIMEOUT"
    assert pool_of(gw).process_ids() == []  # two hangs in a row: replaced
    await assert_no_leftovers({pid})


async def test_a_crash_reports_stderr_and_the_next_query_restarts(
    gateway: GatewayFactory, tmp_path_factory: pytest.TempPathFactory
) -> None:
    state = tmp_path_factory.mktemp("crash-state")
    gw = await gateway(fake_env("crash", str(state)))
    first = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert first["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "simulated crash in definition" in first["error"]["message"]
    second = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert second["status"] == "success", second


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
                assert pool.process_ids() == []  # no restart before the backoff is over
                clock.advance(backoff)
            assert "simulated crash in definition" in await _crash(acquired[0], project)
        # The next restart is 4 s away: the query fails at once, naming the last crash.
        with pytest.raises(Exception) as waiting:
            await pool.acquire(mod, project)
        assert "crashed 3 times in a row; octo starts it again in 4 s" in str(waiting.value)
        assert "simulated crash in definition" in str(waiting.value)
        assert pool.process_ids() == []
        clock.advance(4.0)
        await pool.acquire(mod, project)
        assert len(pool.process_ids()) == 1
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
        (first,) = pool.process_ids()
        await clock.sleeping(600.0)  # the idle task sleeps until the idle deadline
        clock.advance(599.0)
        params = {"textDocument": {"uri": mod.as_uri()}, "position": {"line": 0, "character": 4}}
        await slot.request(lsp.TEXT_DOCUMENT_DEFINITION, params)  # used again at 599 s
        clock.advance(1.0)
        await clock.sleeping(599.0)  # woke at 600 s, found it used 1 s ago: sleeps again
        assert pool.process_ids() == [first]
        clock.advance(599.0)
        await assert_no_leftovers({first}, descendants=False)  # idle for 600 s: stopped
        assert pool.process_ids() == []
        await pool.acquire(mod, project)
        assert pool.process_ids() not in ([], [first])
    finally:
        await pool.aclose()


async def test_a_chatty_stderr_does_not_block_the_server(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("chatty", OCTO_LSP_REQUEST_TIMEOUT="10"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["status"] == "success", result


async def test_a_malformed_reply_is_an_error_not_a_hang(gateway: GatewayFactory) -> None:
    # A server's fault, not octo's: INTERNAL_ERROR is kept for octo's own bugs.
    gw = await gateway(fake_env("malformed"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "bad location" in result["error"]["message"]


async def test_a_json_rpc_error_reply_is_lsp_not_available(gateway: GatewayFactory) -> None:
    # It used to end as a bare OctoError, that is INTERNAL_ERROR: a bug in octo.
    gw = await gateway(fake_env("error"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "failed on textDocument/definition" in result["error"]["message"]
    assert "simulated failure in definition" in result["error"]["message"]


def _edges(data: Any) -> set[tuple[str, str, int]]:
    return {(c["from"]["name"], c["to"]["name"], c["depth"]) for c in data["calls"]}


async def test_a_call_hierarchy_walks_every_level(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("calls"))
    result = result_of(await gw.lsp_call_hierarchy([INCOMING]))
    assert result["status"] == "success", result
    assert "partial" not in result and "partial" not in result["data"]
    assert _edges(result["data"]) == {
        ("a", "target", 1),
        ("b", "target", 1),
        ("c", "a", 2),
        ("c", "b", 2),
    }
    site = next(c for c in result["data"]["calls"] if c["from"]["name"] == "a")
    assert site["content"] == "    return target()"


@pytest.mark.parametrize(
    ("failure", "code", "message"),
    [
        ("error", "LSP_NOT_AVAILABLE", "simulated failure in the incoming calls of b"),
        ("hang", "TIMEOUT", "did not answer callHierarchy/incomingCalls within 0.5 s"),
    ],
)
async def test_a_failure_in_the_fan_out_gives_a_partial_answer(
    gateway: GatewayFactory, failure: str, code: str, message: str
) -> None:
    # Before: the failure escaped the fan-out's task group as an ExceptionGroup and the
    # whole query failed (INTERNAL_ERROR for a server error), losing the calls found.
    gw = await gateway(fake_env("calls", f"b:{failure}", OCTO_LSP_REQUEST_TIMEOUT="0.5"))
    result = result_of(await gw.lsp_call_hierarchy([INCOMING]))
    assert result["status"] == "success", result
    assert result["partial"] is True
    assert result["data"]["partial"] is True
    assert _edges(result["data"]) == {("a", "target", 1), ("b", "target", 1), ("c", "a", 2)}
    (hint,) = [h for h in result["hints"] if h.startswith(f"{code}: ")]
    assert message in hint
    assert '"depth":1' in hint  # the call to make: the same query, one level less
    assert len(pool_of(gw).process_ids()) == 1  # a slow item does not recycle the server


async def test_the_walk_deadline_ends_the_walk_with_what_it_found(
    gateway: GatewayFactory,
) -> None:
    # a never answers: its request lasts until the walk's 1 s deadline, no level 3 follows.
    gw = await gateway(fake_env("calls", "a:hang", OCTO_LSP_CALLS_DEADLINE="1"))
    result = result_of(await gw.lsp_call_hierarchy([{**INCOMING, "depth": 3}]))
    assert result["status"] == "success", result
    assert result["partial"] is True
    assert _edges(result["data"]) == {("a", "target", 1), ("b", "target", 1), ("c", "b", 2)}
    missing, stopped = [h for h in result["hints"] if h.startswith("TIMEOUT: ")]
    assert missing.startswith("TIMEOUT: the calls of a are missing")
    assert '"depth":1' in missing
    assert "stopped at its 1 s deadline before depth 3" in stopped
    assert '"depth":2' in stopped


@pytest.mark.parametrize(("failure", "code"), [("error", "LSP_NOT_AVAILABLE"), ("hang", "TIMEOUT")])
async def test_when_no_call_could_be_had_the_inner_error_ends_the_query(
    gateway: GatewayFactory, failure: str, code: str
) -> None:
    gw = await gateway(fake_env("calls", f"target:{failure}", OCTO_LSP_REQUEST_TIMEOUT="0.5"))
    result = result_of(await gw.lsp_call_hierarchy([INCOMING]))
    assert result["status"] == "error"
    assert result["error"]["code"] == code
    assert "callHierarchy/incomingCalls" in result["error"]["message"]


async def test_answers_while_indexing_are_flagged_partial(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("progress", OCTO_LSP_SETTLE_TIMEOUT="0.3"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["status"] == "success"
    assert result["data"]["partial"] is True
    assert any("still indexing" in hint for hint in result["hints"])


async def test_progress_that_ends_is_awaited_before_answering(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("slow-progress"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["status"] == "success"
    assert "partial" not in result["data"]


async def test_a_missing_capability_is_a_clear_error(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("nocalls"))
    query = {**DEFINITION, "direction": "incoming"}
    result = result_of(await gw.lsp_call_hierarchy([query]))
    assert result["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "does not support call hierarchy" in result["error"]["message"]


async def test_grandchildren_die_with_the_server(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("grandchild"))
    assert result_of(await gw.lsp_find_references([DEFINITION]))["status"] == "success"
    (pid,) = pool_of(gw).process_ids()
    assert len(leftovers({pid})) >= 2  # the server and its sleep child
    await gw.aclose()
    await assert_no_leftovers({pid})


async def test_cancelling_a_query_leaves_no_process(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("hang"))
    with anyio.move_on_after(1.5):
        await gw.lsp_goto_definition([DEFINITION])
    (pid,) = pool_of(gw).process_ids()
    await gw.aclose()
    await assert_no_leftovers({pid})


async def test_a_cancelled_gateway_scope_stops_every_server(project: Path) -> None:
    # What a face does on SIGTERM: cancel the scope its gateway lives in.
    pids: list[int] = []
    with anyio.move_on_after(2) as scope:
        async with Gateway(Config.from_env(fake_env("grandchild")), roots=[project]) as gw:
            await gw.lsp_find_references([DEFINITION])
            pids = pool_of(gw).process_ids()
            await anyio.sleep(30)
    assert scope.cancelled_caught
    assert len(leftovers(set(pids))) == 0
    await assert_no_leftovers(set(pids))


async def test_a_gateway_that_was_not_entered_says_so_and_starts_nothing(project: Path) -> None:
    gw = Gateway(Config.from_env(fake_env("grandchild")), roots=[project])
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["error"]["code"] == "TOOL_NOT_AVAILABLE"
    assert any("async with octo.Gateway()" in hint for hint in result["hints"])
    assert pool_of(gw).process_ids() == []
    await assert_no_leftovers(set())


async def test_no_server_is_started_before_a_query_needs_one(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("plain"))
    assert [spec.name for spec in gw.tools() if spec.name.startswith("lsp")] == [
        "lspGotoDefinition",
        "lspFindReferences",
        "lspCallHierarchy",
    ]
    missing = result_of(await gw.lsp_goto_definition([{**DEFINITION, "symbolName": "nope"}]))
    assert missing["error"]["code"] == "NOT_FOUND"
    assert pool_of(gw).process_ids() == []
    assert leftovers() == []


async def test_unknown_languages_and_missing_servers_name_what_to_install(
    gateway: GatewayFactory, project: Path
) -> None:
    (project / "notes.txt").write_text("target\n")
    gw = await gateway(lsp_env(OCTO_LSP_PYTHON_SERVERS="absent"))
    unknown = result_of(
        await gw.lsp_goto_definition([{**DEFINITION, "uri": "notes.txt", "lineHint": 1}])
    )
    assert unknown["error"]["code"] == "LSP_NOT_AVAILABLE"
    missing = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert missing["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert any("Install one" in hint for hint in missing["hints"])
    outside = result_of(await gw.lsp_goto_definition([{**DEFINITION, "uri": "/etc/hostname"}]))
    assert outside["error"]["code"] == "PATH_NOT_ALLOWED"


@pytest.mark.parametrize("command", ["/nonexistent/server --stdio", "'unclosed", "  "])
async def test_a_command_that_names_no_program_is_a_clear_error(
    gateway: GatewayFactory, command: str
) -> None:
    # Started under setpriv, a missing program looked like a crash (exit 127) with backoff.
    gw = await gateway(lsp_env(OCTO_LSP_PYTHON_COMMAND=command))
    for _ in range(2):
        result = result_of(await gw.lsp_goto_definition([DEFINITION]))
        assert result["error"]["code"] == "LSP_NOT_AVAILABLE"
        assert "OCTO_LSP_PYTHON_COMMAND" in result["error"]["message"]
        assert "does not start an executable program" in result["error"]["message"]
    assert pool_of(gw).process_ids() == []


async def _run_script(script: str) -> subprocess.CompletedProcess[bytes]:
    with anyio.fail_after(60):
        return await anyio.run_process(
            [sys.executable, "-c", script], cwd=Path(__file__).parents[2], check=False
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
        from octo.lsp.pool import LspPool

        async def main():
            async with Gateway(Config.from_env(fake_env("plain")), roots=[{str(project)!r}]) as gw:
                await gw.lsp_find_references([{DEFINITION!r}])
                print(*gw.runtime.backend(LspPool).process_ids(), flush=True)
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
        from octo.lsp.pool import LspPool

        async def serve(scope):
            async with Gateway(Config.from_env(fake_env("grandchild")), roots=[{str(project)!r}]) as gw:
                await gw.lsp_find_references([{DEFINITION!r}])
                print(*gw.runtime.backend(LspPool).process_ids(), flush=True)
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
    assert len(pool_of(gw).process_ids()) == 1


async def test_the_least_recently_used_server_makes_room(
    gateway: GatewayFactory, project: Path
) -> None:
    other = project / "other"
    other.mkdir()
    (other / "pyproject.toml").touch()
    (other / "mod.py").write_text(SOURCE)
    gw = await gateway(fake_env("plain", OCTO_LSP_MAX_SERVERS="1"))
    assert result_of(await gw.lsp_goto_definition([DEFINITION]))["status"] == "success"
    (first,) = pool_of(gw).process_ids()
    second_query = {**DEFINITION, "uri": "other/mod.py"}
    assert result_of(await gw.lsp_goto_definition([second_query]))["status"] == "success"
    (second,) = pool_of(gw).process_ids()
    assert second != first
    await assert_no_leftovers({first}, descendants=False)
