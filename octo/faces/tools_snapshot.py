"""tools/list as published, kept in ``tools_list.json`` beside this module so ``octo serve``
answers it without importing the families (their models and schemas cost most of a cold
start). ``octo docs`` writes it from the registry, as it writes docs/tools.md, and a test
fails when it drifts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types

from octo.contract import ToolSpec

SNAPSHOT = Path(__file__).with_name("tools_list.json")


def tool_definition(spec: ToolSpec) -> types.Tool:
    """The MCP tool published for a registry tool."""
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema(),
        output_schema=spec.output_schema(),
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=spec.open_world,
        ),
    )


def render() -> str:
    """The snapshot of every registry tool as the MCP face publishes it, with its toolset."""
    from octo.registry import all_tools

    entries = [
        {
            "toolset": spec.category.toolset,
            "tool": tool_definition(spec).model_dump(mode="json", by_alias=True, exclude_none=True),
        }
        for spec in all_tools()
    ]
    # One tool a line: a change to a tool is a change to its line.
    lines = (json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in entries)
    return "[\n" + ",\n".join(lines) + "\n]\n"


def load(toolsets: frozenset[str] | None) -> list[types.Tool]:
    """The published tools of ``toolsets`` (None: every one), in tools/list order."""
    entries: list[dict[str, Any]] = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    return [
        types.Tool.model_validate(entry["tool"])
        for entry in entries
        if toolsets is None or entry["toolset"] in toolsets
    ]
