"""Which Python server answers: ty first (measured faster), the next one when the first times
out or lacks the operation, and the answer says which server answered."""

from __future__ import annotations

import sys
from collections.abc import Awaitable
from collections.abc import Callable

import pytest

from octo import Gateway
from octo.core.errors import LspNotAvailableError
from octo.lsp.servers.table.commands import find_servers
from tests.lsp.conftest import DEFINITION
from tests.lsp.conftest import FAKE_SERVER
from tests.lsp.conftest import GatewayFactory
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import result_of


def test_ty_answers_first_and_basedpyright_next() -> None:
    env = {k: v for k, v in lsp_env().items() if not k.startswith("OCTO_LSP_PYTHON_")}
    try:
        ids = [command.server_id for command in find_servers("python", env)]
    except LspNotAvailableError:
        pytest.skip("no Python language server installed")
    if not {"ty", "basedpyright"} <= set(ids):
        pytest.skip("the lsp extra (ty and basedpyright) is not installed")
    assert ids[:2] == ["ty", "basedpyright"]


CALLS = {"uri": "calls.py", "symbolName": "target", "lineHint": 1, "direction": "incoming"}
#: How the first server's failure reads in the answer, by its cause.
TIMED_OUT = "ty could not answer (ty did not answer {} within 0.5 s); pylsp was asked instead."
LACKS_CALLS = "ty could not answer (ty does not support call hierarchy); pylsp was asked instead."


@pytest.fixture
def servers(
    gateway: GatewayFactory, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str, str], Awaitable[Gateway]]:
    """``await servers(ty_mode, pylsp_mode)``: a gateway whose Python servers are, in order,
    executables named ``ty`` and ``pylsp`` running the fake server in those modes."""

    async def make(ty: str, pylsp: str) -> Gateway:
        folder = tmp_path_factory.mktemp("servers")
        for name, mode in (("ty", ty), ("pylsp", pylsp)):
            script = folder / name
            script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_SERVER}" {mode}\n')
            script.chmod(0o755)
        env = lsp_env(OCTO_LSP_PATH=str(folder), OCTO_LSP_PYTHON_SERVERS="ty,pylsp")
        return await gateway({**env, "OCTO_LSP_REQUEST_TIMEOUT": "0.5"})

    return make


Servers = Callable[[str, str], Awaitable[Gateway]]


@pytest.mark.slow
async def test_a_server_that_times_out_hands_the_query_to_the_next(servers: Servers) -> None:
    gw = await servers("hang", "plain")
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert result["status"] == "success", result
    assert result["data"]["server"] == "pylsp"
    assert result["hints"][0] == TIMED_OUT.format("textDocument/definition")


@pytest.mark.slow
async def test_a_server_without_the_operation_hands_the_query_to_the_next(
    servers: Servers,
) -> None:
    gw = await servers("nocalls", "calls")
    result = result_of(await gw.lsp_call_hierarchy([CALLS]))
    assert result["status"] == "success", result
    assert result["data"]["server"] == "pylsp"
    assert result["hints"][0] == LACKS_CALLS
    # Definitions still come from the first server, which has them.
    assert result_of(await gw.lsp_goto_definition([DEFINITION]))["data"]["server"] == "ty"


@pytest.mark.slow
async def test_when_every_server_fails_the_error_says_what_each_did(servers: Servers) -> None:
    gw = await servers("nocalls", "nocalls")
    result = result_of(await gw.lsp_call_hierarchy([CALLS]))
    assert result["error"] == {
        "code": "LSP_NOT_AVAILABLE",
        "message": "pylsp does not support call hierarchy",
    }
    assert result["hints"][-1] == LACKS_CALLS


@pytest.mark.slow
async def test_a_call_walk_that_got_nothing_in_time_goes_to_the_next_server(
    servers: Servers,
) -> None:
    gw = await servers("calls target:hang", "calls")
    result = result_of(await gw.lsp_call_hierarchy([CALLS]))
    assert result["status"] == "success", result
    assert "partial" not in result
    assert result["data"]["server"] == "pylsp"
    assert {c["from"]["name"] for c in result["data"]["calls"]} == {"a", "b"}
    assert result["hints"][0] == TIMED_OUT.format("callHierarchy/incomingCalls")
