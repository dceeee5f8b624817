"""tools/list and the initialize handshake as the MCP SDK's server publishes them, kept in
``octo/faces/tools_list.json`` so ``octo serve`` answers both before it imports the
SDK or a family (their models and schemas cost most of a cold start). ``octo docs`` writes
it (:func:`octo.faces.mcp.server.render_snapshot`), deriving each answer from the SDK itself
(its initialize result for every handshake version, its tools/list serialisation), as it
writes docs/tools.md; a test fails when it drifts.

Importing this module imports neither the SDK nor pydantic: :func:`handshake` serves the
stdio wire's early answers; :func:`load` imports the SDK when called.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

if TYPE_CHECKING:
    import mcp_types as types

    from octo.contract import ToolSpec

SNAPSHOT = Path(__file__).parent.parent / "tools_list.json"

JsonObject = dict[str, Any]


def tool_definition(spec: ToolSpec) -> types.Tool:
    """The MCP tool published for a registry tool."""
    import mcp_types as types

    from octo.faces.tool_schemas import input_schema
    from octo.faces.tool_schemas import output_schema

    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=input_schema(spec),
        output_schema=output_schema(spec),
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=spec.open_world,
        ),
    )


@dataclass(frozen=True)
class Handshake:
    """The SDK server's results for ``initialize`` and ``tools/list``, as JSON objects in
    the SDK's own key order (so they serialise to the SDK's bytes)."""

    #: The initialize result for each protocol version the handshake negotiates.
    initialize: Mapping[str, JsonObject]
    #: The version the SDK answers a client that asks for one it does not negotiate.
    otherwise: str
    #: The published tools, in tools/list order.
    tools: list[JsonObject]

    def initialize_result(self, requested: str) -> JsonObject:
        """The initialize result for a client that asks for protocol version ``requested``."""
        return self.initialize.get(requested, self.initialize[self.otherwise])

    def tools_result(self) -> JsonObject:
        """The tools/list result."""
        return {"tools": self.tools}


def handshake(toolsets: frozenset[str] | None) -> Handshake:
    """The early answers of a server publishing ``toolsets`` (None: every one)."""
    snapshot = _read()
    return Handshake(
        initialize=snapshot["initialize"],
        otherwise=snapshot["otherwise"],
        tools=_published(snapshot, toolsets),
    )


def load(toolsets: frozenset[str] | None) -> list[types.Tool]:
    """The published tools of ``toolsets`` (None: every one), in tools/list order."""
    import mcp_types as types

    return [types.Tool.model_validate(tool) for tool in _published(_read(), toolsets)]


def _read() -> JsonObject:
    snapshot: JsonObject = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    return snapshot


def _published(snapshot: JsonObject, toolsets: frozenset[str] | None) -> list[JsonObject]:
    return [
        entry["tool"]
        for entry in snapshot["tools"]
        if toolsets is None or entry["toolset"] in toolsets
    ]


def line(value: object) -> str:
    """``value`` as JSON the way the SDK writes it: compact, UTF-8 unescaped."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
