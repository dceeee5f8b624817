"""A language server cannot exhaust octo, nor octo a language server: a reply with more
locations than octo takes is a partial answer, one too large to read is refused before it is
read, and a server gets at most a few requests at once however many queries ask. (A message over the
size limit stops the server and the next query starts it again: test_fake_server.py, as a
crash; a JSON-RPC error reply is LSP_NOT_AVAILABLE: test_fake_server.py.)"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from tests.lsp.conftest import DEFINITION
from tests.lsp.conftest import GatewayFactory
from tests.lsp.conftest import fake_env
from tests.lsp.conftest import result_of
from tests.lsp.conftest import server_pids

REFERENCES = {**DEFINITION, "referencesPerPage": 5}


async def _references(gateway: GatewayFactory, mode: str) -> dict[str, Any]:
    """The references a fake server in ``mode`` answers (its reply may take a while)."""
    gw = await gateway(fake_env(mode, OCTO_LSP_REQUEST_TIMEOUT="60"))
    return dict(result_of(await gw.lsp_find_references([REFERENCES])))


@pytest.mark.slow
async def test_a_reply_of_a_million_locations_is_refused_by_its_size(
    gateway: GatewayFactory,
) -> None:
    result = await _references(gateway, "million-references")
    assert result["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "octo reads at most" in str(result["error"]["message"])


@pytest.mark.slow
async def test_more_locations_than_octo_takes_is_a_partial_answer(
    gateway: GatewayFactory,
) -> None:
    result = await _references(gateway, "many-references")
    assert result["status"] == "success", result
    assert result["partial"] is True
    assert result["data"]["totalReferences"] <= 10_000
    assert any("returned 20000 references" in hint for hint in result["hints"])


@pytest.mark.slow  # 20 requests of 0.2 s, four at a time
async def test_a_server_gets_a_few_requests_at_once_and_the_rest_wait_their_turn(
    gateway: GatewayFactory, tmp_path_factory: pytest.TempPathFactory
) -> None:
    state = tmp_path_factory.mktemp("busy-state")
    gw = await gateway(fake_env("busy", str(state)))
    answers: list[dict[str, Any]] = []

    async def call() -> None:
        response = await gw.lsp_goto_definition([DEFINITION] * 5)
        answers.extend(response.to_wire()["results"])

    async with anyio.create_task_group() as tg:
        for _ in range(4):  # 20 definitions of one server at once
            tg.start_soon(call)
    assert [answer["status"] for answer in answers] == ["success"] * 20
    assert len(server_pids()) == 1
    assert 1 < int((state / "most").read_text()) <= 4  # the pool's per-server limit
