"""A language server cannot exhaust octo: a message over the size limit is refused before it
is read (the server is stopped, the query fails LSP_NOT_AVAILABLE saying why, the next query
starts it again), and a reply with more locations than octo takes is a partial answer.
(A JSON-RPC error reply is LSP_NOT_AVAILABLE: test_fake_server.py.)"""

from __future__ import annotations

import pytest

from tests.lsp.conftest import DEFINITION
from tests.lsp.conftest import GatewayFactory
from tests.lsp.conftest import assert_no_leftovers
from tests.lsp.conftest import fake_env
from tests.lsp.conftest import pool_of
from tests.lsp.conftest import result_of

REFERENCES = {**DEFINITION, "referencesPerPage": 5}


@pytest.mark.slow  # the restart waits out the pool's 1 s backoff
async def test_a_message_announcing_4_gb_stops_the_server_and_the_next_query_restarts_it(
    gateway: GatewayFactory, tmp_path_factory: pytest.TempPathFactory
) -> None:
    state = tmp_path_factory.mktemp("huge-state")
    gw = await gateway(fake_env("huge-message", str(state)))
    first = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert first["error"]["code"] == "LSP_NOT_AVAILABLE"  # before: 4 GB read into memory
    assert "4000000000 bytes" in str(first["error"]["message"])
    (pid,) = pool_of(gw).process_ids() or [0]
    second = result_of(await gw.lsp_goto_definition([DEFINITION]))
    assert second["status"] == "success", second
    if pid:
        await assert_no_leftovers({pid})


@pytest.mark.slow
async def test_a_reply_of_a_million_locations_is_refused_by_its_size(
    gateway: GatewayFactory,
) -> None:
    gw = await gateway(fake_env("million-references", OCTO_LSP_REQUEST_TIMEOUT="60"))
    result = result_of(await gw.lsp_find_references([REFERENCES]))
    assert result["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "octo reads at most" in str(result["error"]["message"])


@pytest.mark.slow
async def test_more_locations_than_octo_takes_is_a_partial_answer(
    gateway: GatewayFactory,
) -> None:
    gw = await gateway(fake_env("many-references", OCTO_LSP_REQUEST_TIMEOUT="60"))
    result = result_of(await gw.lsp_find_references([REFERENCES]))
    assert result["status"] == "success", result
    assert result["partial"] is True
    assert result["data"]["totalReferences"] <= 10_000
    assert any("returned 20000 references" in hint for hint in result["hints"])  # type: ignore[attr-defined]
