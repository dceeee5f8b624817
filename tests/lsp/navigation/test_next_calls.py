"""Every LSP answer names its next calls exactly, has spec 002's shape (file:// uri beside the
root-relative path, context lists always present), and a page past the last one is empty
with the call for the last page; against our fake server (tests/lsp/fake_server.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from octo.lsp.models import CallHierarchyQuery
from octo.lsp.navigation.locations import SeenFile
from octo.lsp.navigation.next_calls import further_hint
from tests.lsp.conftest import DEFINITION
from tests.lsp.conftest import GatewayFactory
from tests.lsp.conftest import fake_env
from tests.lsp.conftest import result_of

# A fake server starts in about a second.
pytestmark = pytest.mark.slow


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"))


async def test_a_definition_names_its_body_uses_and_callers(
    gateway: GatewayFactory, project: Path
) -> None:
    gw = await gateway(fake_env("plain"))
    result = result_of(await gw.lsp_goto_definition([DEFINITION]))
    (definition,) = result["data"]["definitions"]
    # Said once: the root-relative path and the start, no file:// URI, no range's end.
    assert "uri" not in definition and "range" not in definition
    assert (definition["path"], definition["line"], definition["character"]) == ("mod.py", 1, 0)
    assert definition["content"] == "def target():"
    assert "contextBefore" not in definition  # none before the first line: left out
    assert definition["contextAfter"] == ["    return 1", "", "", "value = target()", ""]
    mod = str(project / "mod.py")
    # The fake server names the definition only (no extent): the body is read 30 lines on.
    assert result["hints"] == [
        "Read the definition: localGetFileContent "
        + _json({"path": mod, "startLine": 1, "endLine": 31}),
        "Its uses: lspFindReferences " + _json({"uri": mod, "symbolName": "target", "lineHint": 1}),
        "Its callers: lspCallHierarchy "
        + _json({"uri": mod, "symbolName": "target", "lineHint": 1, "direction": "incoming"}),
    ]


async def test_references_name_a_use_the_callers_and_the_last_page(
    gateway: GatewayFactory, project: Path
) -> None:
    gw = await gateway(fake_env("plain"))
    first, past = (await gw.lsp_find_references([DEFINITION, {**DEFINITION, "page": 3}])).results
    first_wire, past_wire = (r.model_dump(mode="json", exclude_none=True) for r in (first, past))
    assert first_wire["status"] == "success"
    (use,) = first_wire["data"]["references"]
    assert set(use) == {"path", "line", "character", "content", "contextAfter"}
    assert "contextBefore" not in use  # none: left out
    mod = str(project / "mod.py")
    assert first_wire["hints"] == [
        "Read around a use: localGetFileContent "
        + _json({"path": mod, "startLine": 1, "endLine": 11}),
        "Its callers: lspCallHierarchy "
        + _json({"uri": "mod.py", "symbolName": "target", "lineHint": 5, "direction": "incoming"}),
    ]
    # Past the last page: empty (not success with an empty list), with the way back.
    assert past_wire["status"] == "empty"
    assert past_wire["data"]["references"] == []
    assert past_wire["hints"][0] == (
        "Page 3 is past the last page (1): lspFindReferences " + _json({**DEFINITION, "page": 1})
    )


CALLS = {"uri": "calls.py", "symbolName": "target", "lineHint": 1, "direction": "incoming"}


async def test_calls_name_the_next_page_a_caller_and_one_level_further(
    gateway: GatewayFactory, project: Path
) -> None:
    gw = await gateway(fake_env("calls"))
    query = {**CALLS, "callsPerPage": 1}
    first, past = (await gw.lsp_call_hierarchy([query, {**query, "page": 9}])).results
    first_wire, past_wire = (r.model_dump(mode="json", exclude_none=True) for r in (first, past))
    (call,) = first_wire["data"]["calls"]
    # The asked function is the answer's item, not repeated as each call's callee.
    assert (call["from"]["name"], first_wire["data"]["item"]["name"]) == ("a", "target")
    assert "to" not in call
    calls_py = str(project / "calls.py")
    assert set(call["from"]) == {"name", "path", "line", "character"}
    assert call["from"]["path"] == "calls.py"
    assert call["callSites"] == [{"line": 6, "character": 11}]
    assert call["content"] == "    return target()"
    assert (call["contextBefore"], call["contextAfter"]) == (["", "def a():"], ["", ""])
    assert first_wire["hints"] == [
        "Next page: lspCallHierarchy " + _json({**query, "page": 2}),
        "Read the caller a: localGetFileContent "
        + _json({"path": calls_py, "startLine": 5, "endLine": 35}),
        "Their callers one level further: lspCallHierarchy " + _json({**query, "depth": 2}),
    ]
    assert past_wire["status"] == "empty"
    assert past_wire["hints"] == [
        "Page 9 is past the last page (2): lspCallHierarchy " + _json({**query, "page": 2})
    ]


async def test_the_next_level_is_asked_only_where_the_walk_went_on(
    gateway: GatewayFactory,
) -> None:
    gw = await gateway(fake_env("calls"))
    two, three = (
        await gw.lsp_call_hierarchy([{**CALLS, "depth": 2}, {**CALLS, "depth": 3}])
    ).results
    assert two.hints[-1] == (
        "Their callers one level further: lspCallHierarchy " + _json({**CALLS, "depth": 3})
    )
    # c calls a and b, and nothing calls c: there is no level beyond the last one found.
    assert not any("further" in hint or "beyond" in hint for hint in three.hints)


def test_beyond_depth_three_the_walk_goes_on_from_a_far_function(project: Path) -> None:
    file = SeenFile(project / "calls.py", "calls.py", external=False)
    query = CallHierarchyQuery.model_validate({**CALLS, "depth": 3})
    assert further_hint(query, 1, (file, "c", 13)) == [
        "Their callers beyond depth 3, from c: lspCallHierarchy "
        + _json(
            {"uri": str(project / "calls.py"), "symbolName": "c", "lineHint": 13}
            | {"direction": "incoming"}
        )
    ]
    assert further_hint(query, 1, None) == []
