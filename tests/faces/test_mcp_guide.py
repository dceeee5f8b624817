"""The guide through a real MCP client, in both protocol eras: resources, prompts, and the
gateway's own tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from octo import Config
from octo.faces.mcp.server import build_server
from octo.faces.tool_docs import tool_reference
from octo.registry import all_tools
from octo.registry import get_tool


@pytest.fixture(params=["auto", "legacy"])
async def client(request: pytest.FixtureRequest, tree: Path) -> AsyncIterator[Client]:
    server = build_server(Config(roots=(tree,)))
    async with Client(server, mode=request.param, raise_exceptions=True) as connected:
        yield connected


def text_of(result: types.ReadResourceResult) -> str:
    [contents] = result.contents
    assert isinstance(contents, types.TextResourceContents)
    assert contents.mime_type == "text/markdown"
    return contents.text


@pytest.mark.slow
async def test_total_tools_equals_the_length_of_tools_list(client: Client) -> None:
    listed = (await client.list_tools()).tools
    result = await client.call_tool("getToolCategories", {"queries": [{}]})
    assert result.structured_content is not None
    data = result.structured_content["results"][0]["data"]
    assert data["totalTools"] == len(listed)
    assert sorted(n for names in data["categories"].values() for n in names) == sorted(
        t.name for t in listed
    )


async def test_resources_are_the_guide_and_each_tool(client: Client) -> None:
    uris = [str(r.uri) for r in (await client.list_resources()).resources]
    assert uris == ["octo://guide", *(f"octo://tools/{spec.name}" for spec in all_tools())]
    [template] = (await client.list_resource_templates()).resource_templates
    assert template.uri_template == "octo://tools/{name}"


async def test_reading_the_guide_and_a_tool_reference(client: Client) -> None:
    guide = text_of(await client.read_resource("octo://guide"))
    assert guide.startswith("# octo: first steps")
    assert "## Trace a symbol" in guide and "lspGotoDefinition" in guide
    reference = text_of(await client.read_resource("octo://tools/localSearchCode"))
    assert reference == tool_reference(get_tool("localSearchCode"))
    assert "### Common errors" in reference and "### Related tools" in reference


async def test_an_unknown_resource_is_a_protocol_error(client: Client) -> None:
    with pytest.raises(MCPError, match="Resource not found"):
        await client.read_resource("octo://tools/noSuchTool")


async def test_workflows_are_prompts_with_arguments(client: Client) -> None:
    prompts = {p.name: p for p in (await client.list_prompts()).prompts}
    assert set(prompts) == {
        "explore-repository",
        "trace-symbol",
        "map-code-by-symbols",
        "library-usage-on-github",
        "research-package",
        "why-did-this-change",
        "why-is-this-line-here",
        "study-dependency-locally",
        "why-did-ci-fail",
    }
    ci = prompts["why-did-ci-fail"]
    assert [(a.name, a.required) for a in ci.arguments or []][:3] == [
        ("owner", True),
        ("repo", True),
        ("prNumber", True),
    ]
    trace = prompts["trace-symbol"]
    assert [(a.name, a.required) for a in trace.arguments or []] == [
        ("path", True),
        ("symbol", True),
        ("line", True),
    ]
    got = await client.get_prompt(
        "trace-symbol", {"path": "src/app.py", "symbol": "main", "line": "1"}
    )
    [message] = got.messages
    assert message.role == "user"
    assert isinstance(message.content, types.TextContent)
    assert 'lspGotoDefinition {"uri":"src/app.py","symbolName":"main","lineHint":1}' in (
        message.content.text
    )


async def test_a_prompt_step_from_an_earlier_answer_stays_named(client: Client) -> None:
    got = await client.get_prompt(
        "research-package", {"package": "requests", "ecosystem": "python"}
    )
    content = got.messages[0].content
    assert isinstance(content, types.TextContent)
    assert '"owner":"<owner>"' in content.text
    assert "<owner> comes from step 1's answer." in content.text


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("trace-symbol", {"path": "a.py", "symbol": "f"}, "'line' is required"),
        ("trace-symbol", {"path": "a.py", "symbol": "f", "line": "x"}, "whole number"),
        ("no-such-prompt", {}, "Unknown prompt"),
    ],
)
async def test_bad_prompt_requests_are_protocol_errors(
    client: Client, name: str, arguments: dict[str, str], message: str
) -> None:
    with pytest.raises(MCPError, match=message):
        await client.get_prompt(name, arguments)
