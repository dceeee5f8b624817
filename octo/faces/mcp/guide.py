"""The guide over MCP: resources (``octo://guide``, ``octo://tools/{name}``) and one prompt per
workflow of the guide, so hosts that show resources and prompts offer them.

The handlers follow the low-level server's shape, ``async (ctx, params) -> Result``; the
server in :mod:`octo.faces.mcp.server` registers them.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

GUIDE_URI = "octo://guide"
TOOL_URI = "octo://tools/{name}"
_TOOL_PREFIX = "octo://tools/"
_MARKDOWN = "text/markdown"
_GUIDE = "Quick start, concepts and worked workflows."
#: The MCP error code for a resource that does not exist.
RESOURCE_NOT_FOUND = -32002


async def list_resources(
    _ctx: Any, _params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    """The guide, and each tool's reference."""
    # Imported here: the registry (every family's models) is not needed to answer tools/list.
    from octo.faces.tool_docs import summary
    from octo.registry import all_tools

    listed = [(GUIDE_URI, "guide", "octo: first steps", _GUIDE)]
    listed += [(_TOOL_PREFIX + s.name, s.name, s.title, summary(s)) for s in all_tools()]
    return types.ListResourcesResult(
        resources=[
            types.Resource(uri=uri, name=name, title=title, description=text, mime_type=_MARKDOWN)
            for uri, name, title, text in listed
        ]
    )


async def list_resource_templates(
    _ctx: Any, _params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    template = types.ResourceTemplate(
        uri_template=TOOL_URI, name="tool", title="Tool reference", mime_type=_MARKDOWN
    )
    template.description = "A tool's full reference: parameters, returns, examples, errors."
    return types.ListResourceTemplatesResult(resource_templates=[template])


def _resource_text(uri: str) -> str:
    from octo.discovery import guide as guides
    from octo.faces.tool_docs import tool_reference
    from octo.registry import all_tools

    if uri == GUIDE_URI:
        return guides.guide_markdown()
    if uri.startswith(_TOOL_PREFIX):
        name = uri.removeprefix(_TOOL_PREFIX)
        spec = next((s for s in all_tools() if s.name == name), None)
        if spec is not None:
            return tool_reference(spec)
    raise MCPError(
        RESOURCE_NOT_FOUND,
        f"Resource not found: {uri}",
        data={"uri": uri, "available": [GUIDE_URI, TOOL_URI]},
    )


async def read_resource(
    _ctx: Any, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    uri = str(params.uri)
    return types.ReadResourceResult(
        contents=[
            types.TextResourceContents(uri=uri, mime_type=_MARKDOWN, text=_resource_text(uri))
        ]
    )


async def list_prompts(
    _ctx: Any, _params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    """One prompt per workflow of the guide."""
    from octo.discovery import guide as guides

    return types.ListPromptsResult(
        prompts=[
            types.Prompt(
                name=workflow.id,
                title=workflow.name,
                description=workflow.goal,
                arguments=[
                    types.PromptArgument(name=a.name, description=a.description, required=True)
                    for a in workflow.inputs
                ],
            )
            for workflow in guides.guide().workflows
        ]
    )


async def get_prompt(_ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    from octo.discovery import guide as guides

    workflow = guides.guide().workflow(params.name)
    if workflow is None:
        names = ", ".join(w.id for w in guides.guide().workflows)
        raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name} (prompts: {names})")
    try:
        values = workflow.prompt_values(params.arguments or {})
    except ValueError as exc:
        raise MCPError(types.INVALID_PARAMS, f"{params.name}: {exc}") from None
    text = guides.prompt_text(workflow, values)
    return types.GetPromptResult(
        description=workflow.goal,
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        ],
    )
