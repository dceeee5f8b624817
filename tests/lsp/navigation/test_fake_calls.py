"""lspCallHierarchy's walk against the fake server's call graph (CALLS_SOURCE): every level,
partial answers when some functions' calls fail, the inner error when none come back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lsp.conftest import GatewayFactory
from tests.lsp.conftest import fake_env
from tests.lsp.conftest import result_of
from tests.lsp.conftest import server_pids

# Request timeouts and walk deadlines are waited out: seconds each.
pytestmark = pytest.mark.slow

INCOMING = {
    "uri": "calls.py",
    "symbolName": "target",
    "lineHint": 1,
    "direction": "incoming",
    "depth": 2,
}


def _edges(data: Any) -> set[tuple[str, str, int]]:
    """Each call as (caller, callee, depth); the end left out is the asked function (item)."""
    asked = data["item"]
    return {
        (c.get("from", asked)["name"], c.get("to", asked)["name"], c["depth"])
        for c in data["calls"]
    }


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
    # The asked function is said once, in item: no call repeats it as its callee.
    assert result["data"]["item"]["name"] == "target"
    assert [c for c in result["data"]["calls"] if "to" in c] == [
        c for c in result["data"]["calls"] if c["depth"] == 2
    ]


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
    assert len(server_pids()) == 1  # a slow item does not recycle the server


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


async def test_when_no_call_could_be_had_the_inner_error_ends_the_query(
    gateway: GatewayFactory,
) -> None:
    gw = await gateway(fake_env("calls", "target:error", OCTO_LSP_REQUEST_TIMEOUT="0.5"))
    result = result_of(await gw.lsp_call_hierarchy([INCOMING]))
    assert result["status"] == "error"
    assert result["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "callHierarchy/incomingCalls" in result["error"]["message"]


async def test_when_no_call_came_in_time_the_function_itself_is_a_partial_answer(
    gateway: GatewayFactory,
) -> None:
    gw = await gateway(fake_env("calls", "target:hang", OCTO_LSP_REQUEST_TIMEOUT="0.5"))
    result = result_of(await gw.lsp_call_hierarchy([INCOMING]))
    assert result["status"] == "success" and result["partial"] is True
    assert result["data"]["calls"] == [] and result["data"]["item"]["name"] == "target"
    (timeout,) = [hint for hint in result["hints"] if hint.startswith("TIMEOUT: ")]
    assert "callHierarchy/incomingCalls" in timeout


async def test_the_direct_callers_are_all_there_page_by_page(gateway: GatewayFactory) -> None:
    # Before: 50 calls per function were kept (the fan-out cap of deeper levels), so at depth 1
    # the answer was partial with no way to page the rest, and a hint said "lower depth".
    gw = await gateway(fake_env("calls", "target:many"))
    query = {**INCOMING, "depth": 1}
    first = result_of(await gw.lsp_call_hierarchy([query]))
    assert first["status"] == "success", first
    assert "partial" not in first
    assert first["data"]["totalCalls"] == 82
    assert not any("lower depth" in hint for hint in first["hints"])
    names: set[str] = set()
    page = 1
    while True:
        answer = result_of(await gw.lsp_call_hierarchy([{**query, "page": page}]))
        names |= {call["from"]["name"] for call in answer["data"]["calls"]}
        if not answer["data"]["pagination"]["hasMore"]:
            break
        page += 1
    assert names == {"a", "b", *(f"x{i}" for i in range(80))}
