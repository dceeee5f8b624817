"""The bounds of one MCP session (octo.faces.session_flow): requests in flight, the server's
own requests waiting for the client, and bytes of answers not read yet."""

from __future__ import annotations

import pytest
from mcp_types import JSONRPCNotification
from mcp_types import JSONRPCRequest
from mcp_types import JSONRPCResponse

from octo.faces.session_flow import FlowLimits
from octo.faces.session_flow import SessionFlow
from octo.faces.session_flow import UnreadTotal

from .conftest import RunOcto


def _request(number: int | str) -> JSONRPCRequest:
    return JSONRPCRequest(jsonrpc="2.0", id=number, method="tools/list")


def _answer(number: int | str) -> JSONRPCResponse:
    return JSONRPCResponse(jsonrpc="2.0", id=number, result={})


def _cancelled(number: int | str) -> JSONRPCNotification:
    return JSONRPCNotification(
        jsonrpc="2.0", method="notifications/cancelled", params={"requestId": number}
    )


async def test_a_request_is_in_flight_until_answered_or_cancelled() -> None:
    flow = SessionFlow(FlowLimits(max_in_flight=2))
    flow.came_in(_request(1))
    flow.came_in(_request(2))
    assert not flow.open
    flow.went_out(_answer(1))
    assert flow.open
    flow.came_in(_request(3))
    assert not flow.open
    flow.came_in(_cancelled("2"))  # a stringified id names the same request
    assert flow.open and flow.in_flight == 1


async def test_the_client_may_answer_the_servers_request_past_the_bound() -> None:
    flow = SessionFlow(FlowLimits(max_in_flight=1))
    flow.came_in(_request(1))
    assert not flow.open
    flow.went_out(_request(7))  # roots/list, say: the client must be read to answer it
    assert flow.open
    flow.came_in(_request(2))
    assert not flow.open  # twice the bound, no more
    flow.came_in(_answer(7))
    flow.went_out(_answer(2))
    assert not flow.open  # request 1 alone holds the bound of one again
    flow.went_out(_answer(1))
    assert flow.open


async def test_unread_bytes_close_the_session_while_they_wait() -> None:
    flow = SessionFlow(FlowLimits(max_unread_bytes=1000))
    async with flow.unread(600):
        assert flow.open
        async with flow.unread(600):
            assert not flow.open
        assert flow.open
    async with flow.arrival():
        assert flow.in_flight == 1
    assert flow.unread_bytes == 0 and flow.in_flight == 0


async def test_a_reused_id_counts_each_request() -> None:
    flow = SessionFlow(FlowLimits(max_in_flight=2))
    flow.came_in(_request(1))
    flow.came_in(_request(1))
    assert not flow.open
    flow.went_out(_answer(1))
    assert flow.open and flow.in_flight == 1


async def test_sessions_that_share_a_total_close_together() -> None:
    limits = FlowLimits(max_unread_bytes=1000)
    total = UnreadTotal(cap=1500)
    first, second = SessionFlow(limits, total), SessionFlow(limits, total)
    async with first.unread(900):
        assert second.open
        async with second.unread(900):
            assert not first.open and not second.open  # each under its own bound
    assert first.open and second.open and total.bytes == 0


# An `octo serve` process: 0.8 s of start before it reads the bound.
@pytest.mark.slow
def test_a_bad_bound_stops_octo_serve_at_start(run_octo: RunOcto) -> None:
    done = run_octo("serve", env={"OCTO_SESSION_MAX_IN_FLIGHT": "0"})
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "octo: OCTO_SESSION_MAX_IN_FLIGHT must be between 1 and 10000, got 0"
    )
