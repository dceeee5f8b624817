"""The MCP server through a real SDK client in memory, in both protocol eras."""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import FileUrl

from octo import Config
from octo import Gateway
from octo.faces.mcp.server import build_server
from octo.faces.tool_schemas import input_schema
from octo.faces.tool_schemas import output_schema
from octo.registry import all_tools

MODES = ["auto", "legacy"]


@pytest.fixture(params=MODES)
async def client(request: pytest.FixtureRequest, tree: Path) -> AsyncIterator[Client]:
    """A client of a server whose configured root is the test tree."""
    server = build_server(Config(roots=(tree,)))
    async with Client(server, mode=request.param, raise_exceptions=True) as connected:
        yield connected


def _find(path: Path | str, **extra: Any) -> dict[str, Any]:
    return {"path": str(path), "name": "*.py", **extra}


def _statuses(result: types.CallToolResult) -> list[str]:
    assert result.structured_content is not None
    return [row["status"] for row in result.structured_content["results"]]


@pytest.mark.slow
async def test_tools_list_publishes_registry_schemas_and_annotations(client: Client) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    specs = all_tools()
    assert list(listed) == [spec.name for spec in specs]
    for spec in specs:
        tool = listed[spec.name]
        assert tool.title == spec.title
        assert tool.description == spec.description
        assert tool.input_schema == input_schema(spec)
        assert tool.input_schema["properties"]["queries"]["maxItems"] == spec.max_queries
        assert tool.output_schema == output_schema(spec)
        assert tool.annotations == types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=spec.open_world,
        )


@pytest.mark.slow
async def test_local_tools_are_closed_world(client: Client) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name in ("localFindFiles", "localGetFileContent", "localViewStructure", "localFindFiles"):
        annotations = listed[name].annotations
        assert annotations is not None
        assert annotations.open_world_hint is False


@pytest.mark.slow
async def test_one_invalid_query_fails_alone(client: Client, tree: Path) -> None:
    result = await client.call_tool(
        "localFindFiles",
        {"queries": [_find(tree), {"name": "*.py"}, _find(tree / "src")]},
    )
    assert result.is_error is False
    assert _statuses(result) == ["success", "error", "success"]
    assert result.structured_content is not None
    bad = result.structured_content["results"][1]
    assert bad["error"]["code"] == "VALIDATION_ERROR"
    assert "path" in bad["error"]["message"]
    assert bad["hints"]


@pytest.mark.slow
async def test_text_content_is_the_compact_structured_content(client: Client, tree: Path) -> None:
    result = await client.call_tool("localFindFiles", {"queries": [_find(tree)]})
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert "\n" not in block.text
    assert json.loads(block.text) == result.structured_content


@pytest.mark.slow
async def test_research_context_is_echoed(client: Client, tree: Path) -> None:
    query = _find(tree, researchGoal="find the sources", reasoning="they are .py")
    result = await client.call_tool("localFindFiles", {"queries": [query]})
    assert result.structured_content is not None
    row = result.structured_content["results"][0]
    assert (row["researchGoal"], row["reasoning"]) == ("find the sources", "they are .py")


async def test_every_query_failing_is_an_error_result(client: Client, tree: Path) -> None:
    result = await client.call_tool(
        "localFindFiles",
        {"queries": [{"name": "*.py"}, _find(tree, maxDepth=99)]},
    )
    assert result.is_error is True
    assert _statuses(result) == ["error", "error"]


async def test_too_many_queries_is_a_call_error_naming_the_limit(
    client: Client, tree: Path
) -> None:
    result = await client.call_tool("localFindFiles", {"queries": [_find(tree)] * 6})
    assert result.is_error is True
    assert result.structured_content is None
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert "1-5 queries" in block.text


@pytest.mark.parametrize("arguments", [{}, {"queries": {"pattern": "x"}}, {"queries": "x"}])
async def test_queries_must_be_a_list(client: Client, arguments: dict[str, Any]) -> None:
    result = await client.call_tool("localFindFiles", arguments)
    assert result.is_error is True
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert "queries must be a list" in block.text


async def test_unknown_argument_is_a_call_error(client: Client, tree: Path) -> None:
    result = await client.call_tool("localFindFiles", {"queries": [_find(tree)], "path": "."})
    assert result.is_error is True


async def test_unknown_tool_is_a_protocol_error(client: Client) -> None:
    with pytest.raises(MCPError, match="Unknown tool: localFindFile"):
        await client.call_tool("localFindFile", {"queries": [{}]})


@pytest.mark.slow
async def test_structured_content_equals_the_library_answer(client: Client, tree: Path) -> None:
    queries = [_find(tree), _find(tree, type="d")]
    result = await client.call_tool("localFindFiles", {"queries": queries})
    async with Gateway(roots=[tree]) as gateway:
        expected = (await gateway.call("localFindFiles", queries)).to_wire()
    assert result.structured_content == expected


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
async def test_client_roots_are_enforced(mode: str, tree: Path) -> None:
    allowed = tree / "src"

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=FileUrl(allowed.as_uri()), name="src")])

    # The configured root is the whole tree; the client's roots narrow it to src/.
    server = build_server(Config(roots=(tree,)))
    async with Client(
        server, mode=mode, raise_exceptions=True, list_roots_callback=list_roots
    ) as c:
        result = await c.call_tool("localFindFiles", {"queries": [_find(allowed), _find(tree)]})
    assert _statuses(result) == ["success", "error"]
    assert result.structured_content is not None
    assert result.structured_content["results"][1]["error"]["code"] == "PATH_NOT_ALLOWED"


@pytest.mark.slow
async def test_roots_are_fetched_again_after_roots_list_changed(tree: Path) -> None:
    roots = [tree / "src"]

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=FileUrl(r.as_uri())) for r in roots])

    server = build_server(Config(roots=(tree,)))
    async with Client(
        server, mode="legacy", raise_exceptions=True, list_roots_callback=list_roots
    ) as c:
        first = await c.call_tool("localFindFiles", {"queries": [_find(tree)]})
        roots[:] = [tree]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # roots are deprecated in the 2026-07-28 protocol
            await c.send_roots_list_changed()
        second = await c.call_tool("localFindFiles", {"queries": [_find(tree)]})
    assert (_statuses(first), _statuses(second)) == (["error"], ["success"])


@pytest.mark.slow
async def test_search_code_over_mcp(client: Client, tree: Path) -> None:
    query = {"pattern": "needle", "path": str(tree)}
    result = await client.call_tool("localSearchCode", {"queries": [query]})
    assert _statuses(result) == ["success"]
