"""Failure handling against our own pygls server (tests/lsp/fake_server.py), through the real pool."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import pytest

from octo import Gateway
from octo.core.config import Config
from octo.lsp.pool import LspPool
from tests.lsp.conftest import (
    assert_no_leftovers,
    fake_env,
    leftovers,
    lsp_env,
    result_of,
    server_sessions,
)

SOURCE = "def target():\n    return 1\n\n\nvalue = target()\n"
DEFINITION = {"uri": "mod.py", "symbolName": "target", "lineHint": 5}

GatewayFactory = Callable[..., Gateway]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "mod.py").write_text(SOURCE)
    return tmp_path


@pytest.fixture
async def gateway(project: Path) -> AsyncIterator[GatewayFactory]:
    """Build gateways over ``project``; on teardown close them and check no process is left."""
    made: list[Gateway] = []

    def make(env: dict[str, str]) -> Gateway:
        gw = Gateway(Config.from_env(env), roots=[project])
        made.append(gw)
        return gw

    yield make
    sessions = server_sessions()
    for gw in made:
        await gw.aclose()
    await assert_no_leftovers(sessions)


def pool_of(gw: Gateway) -> LspPool:
    return gw.runtime.backend(LspPool)


async def test_initialize_survives_a_notebook_selector_with_cells(gateway: GatewayFactory) -> None:
    # cattrs 25+ cannot structure this initialize reply: a stock pygls client drops it and
    # waits forever. octo keeps results as JSON, so initialize completes.
    gw = gateway(fake_env("plain", OCTO_LSP_INIT_TIMEOUT="10"))
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
    gw = gateway(fake_env("hang", str(state), OCTO_LSP_REQUEST_TIMEOUT="0.3"))
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
    gw = gateway(fake_env("crash", str(state)))
    first = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert first["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "simulated crash in definition" in first["error"]["message"]
    second = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert second["status"] == "success", second


async def test_a_server_that_keeps_crashing_is_restarted_after_a_growing_backoff(
    gateway: GatewayFactory,
) -> None:
    gw = gateway(fake_env("crash"))
    for _ in range(3):  # restarted at once, then after 1 s, then after 2 s
        crashed = result_of(await gw.lsp_goto_definition([DEFINITION]))
        assert crashed["error"]["code"] == "LSP_NOT_AVAILABLE"
        assert "exited (code 3): " in crashed["error"]["message"]
        assert "fake-lsp: simulated crash in definition" in crashed["error"]["message"]
    # The next restart is 4 s away: the query fails at once, naming the last crash.
    waiting = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert waiting["error"]["code"] == "LSP_NOT_AVAILABLE"
    message = waiting["error"]["message"]
    assert "crashed 3 times in a row" in message
    assert "simulated crash in definition" in message
    assert pool_of(gw).process_ids() == []
    assert leftovers() == []


async def test_a_chatty_stderr_does_not_block_the_server(gateway: GatewayFactory) -> None:
    gw = gateway(fake_env("chatty", OCTO_LSP_REQUEST_TIMEOUT="10"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["status"] == "success", result


async def test_a_malformed_reply_is_an_error_not_a_hang(gateway: GatewayFactory) -> None:
    gw = gateway(fake_env("malformed"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["error"]["code"] == "INTERNAL_ERROR"
    assert "bad location" in result["error"]["message"]


async def test_answers_while_indexing_are_flagged_partial(gateway: GatewayFactory) -> None:
    gw = gateway(fake_env("progress", OCTO_LSP_SETTLE_TIMEOUT="0.3"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["status"] == "success"
    assert result["data"]["partial"] is True
    assert any("still indexing" in hint for hint in result["hints"])


async def test_progress_that_ends_is_awaited_before_answering(gateway: GatewayFactory) -> None:
    gw = gateway(fake_env("slow-progress"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["status"] == "success"
    assert "partial" not in result["data"]


async def test_a_missing_capability_is_a_clear_error(gateway: GatewayFactory) -> None:
    gw = gateway(fake_env("nocalls"))
    query = {**DEFINITION, "direction": "incoming"}
    result = result_of(await gw.lsp_call_hierarchy([query]))
    assert result["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "does not support call hierarchy" in result["error"]["message"]


async def test_grandchildren_die_with_the_server(gateway: GatewayFactory) -> None:
    gw = gateway(fake_env("grandchild"))
    assert result_of(await gw.lsp_find_references([DEFINITION]))["status"] == "success"
    (pid,) = pool_of(gw).process_ids()
    assert len(leftovers({pid})) >= 2  # the server and its sleep child
    await gw.aclose()
    await assert_no_leftovers({pid})


async def test_cancelling_a_query_leaves_no_process(gateway: GatewayFactory) -> None:
    gw = gateway(fake_env("hang"))
    with anyio.move_on_after(1.5):
        await gw.lsp_goto_definition([DEFINITION])
    (pid,) = pool_of(gw).process_ids()
    await gw.aclose()
    await assert_no_leftovers({pid})


async def test_no_server_is_started_before_a_query_needs_one(gateway: GatewayFactory) -> None:
    gw = gateway(fake_env("plain"))
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
    gw = gateway(lsp_env(OCTO_LSP_PYTHON_SERVERS="absent"))
    unknown = result_of(
        await gw.lsp_goto_definition([{**DEFINITION, "uri": "notes.txt", "lineHint": 1}])
    )
    assert unknown["error"]["code"] == "LSP_NOT_AVAILABLE"
    missing = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert missing["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert any("Install one" in hint for hint in missing["hints"])
    outside = result_of(await gw.lsp_goto_definition([{**DEFINITION, "uri": "/etc/hostname"}]))
    assert outside["error"]["code"] == "PATH_NOT_ALLOWED"


async def _run_script(script: str) -> subprocess.CompletedProcess[bytes]:
    with anyio.fail_after(60):
        return await anyio.run_process(
            [sys.executable, "-c", script], cwd=Path(__file__).parents[2], check=False
        )


async def test_sigterm_leaves_no_server_behind(project: Path) -> None:
    script = textwrap.dedent(
        f"""
        import os, signal, anyio
        from octo import Gateway
        from octo.core.config import Config
        from tests.lsp.conftest import fake_env
        from octo.lsp.pool import LspPool

        async def main():
            gw = Gateway(Config.from_env(fake_env("grandchild")), roots=[{str(project)!r}])
            await gw.lsp_find_references([{DEFINITION!r}])
            print(*gw.runtime.backend(LspPool).process_ids(), flush=True)
            os.kill(os.getpid(), signal.SIGTERM)
            await anyio.sleep(30)

        anyio.run(main)
        """
    )
    done = await _run_script(script)
    assert done.returncode == -15, done.stderr.decode()
    pids = {int(p) for p in done.stdout.decode().split()}
    assert pids
    await assert_no_leftovers(pids, descendants=False)


async def test_a_sigterm_handler_installed_after_octos_still_lets_octo_kill_first(
    project: Path,
) -> None:
    # What a face's web server does: replace the SIGTERM handler after servers started.
    script = textwrap.dedent(
        f"""
        import os, signal, anyio
        from octo import Gateway
        from octo.core.config import Config
        from tests.lsp.conftest import fake_env
        from octo.lsp.pool import LspPool

        async def main():
            gw = Gateway(Config.from_env(fake_env("grandchild")), roots=[{str(project)!r}])
            await gw.lsp_find_references([{DEFINITION!r}])
            signal.signal(signal.SIGTERM, lambda signum, frame: os._exit(7))
            await gw.lsp_find_references([{DEFINITION!r}])
            print(*gw.runtime.backend(LspPool).process_ids(), flush=True)
            os.kill(os.getpid(), signal.SIGTERM)
            await anyio.sleep(30)

        anyio.run(main)
        """
    )
    done = await _run_script(script)
    assert done.returncode == 7, done.stderr.decode()  # the newer handler still ran, after octo's
    pids = {int(p) for p in done.stdout.decode().split()}
    assert pids
    await assert_no_leftovers(pids, descendants=False)


async def test_racing_queries_start_one_server(gateway: GatewayFactory) -> None:
    gw = gateway(fake_env("plain"))
    response = await gw.lsp_goto_definition([DEFINITION] * 5)
    assert [r.status for r in response.results] == ["success"] * 5
    assert len(pool_of(gw).process_ids()) == 1


async def test_idle_servers_stop_and_restart_on_demand(gateway: GatewayFactory) -> None:
    gw = gateway(fake_env("plain", OCTO_LSP_IDLE_TIMEOUT="1"))
    assert result_of(await gw.lsp_goto_definition([DEFINITION]))["status"] == "success"
    (first,) = pool_of(gw).process_ids()
    await assert_no_leftovers({first}, descendants=False)  # the idle timer killed it
    assert result_of(await gw.lsp_goto_definition([DEFINITION]))["status"] == "success"
    assert pool_of(gw).process_ids() not in ([], [first])


async def test_the_least_recently_used_server_makes_room(
    gateway: GatewayFactory, project: Path
) -> None:
    other = project / "other"
    other.mkdir()
    (other / "pyproject.toml").touch()
    (other / "mod.py").write_text(SOURCE)
    gw = gateway(fake_env("plain", OCTO_LSP_MAX_SERVERS="1"))
    assert result_of(await gw.lsp_goto_definition([DEFINITION]))["status"] == "success"
    (first,) = pool_of(gw).process_ids()
    second_query = {**DEFINITION, "uri": "other/mod.py"}
    assert result_of(await gw.lsp_goto_definition([second_query]))["status"] == "success"
    (second,) = pool_of(gw).process_ids()
    assert second != first
    await assert_no_leftovers({first}, descendants=False)
