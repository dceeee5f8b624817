"""The one list of tool families. MCP tools/list, library methods, the CLI and docs/tools.md
all read the tools from here; adding a family is one line below."""

from __future__ import annotations

import difflib
from functools import cache

from octo.codehosts import specs as codehosts
from octo.contract import ToolSpec
from octo.contract import WarmUp
from octo.core.errors import CallError
from octo.discovery import specs as discovery
from octo.local import specs as local
from octo.lsp import specs as lsp
from octo.packages import specs as packages
from octo.semantic import specs as semantic

# Order here is tools/list order.
FAMILIES = (codehosts, packages, local, lsp, semantic, discovery)


@cache
def all_tools() -> tuple[ToolSpec, ...]:
    """Every tool, in a fixed order."""
    return tuple(spec for family in FAMILIES for spec in family.TOOLS)


def warm_ups() -> tuple[WarmUp, ...]:
    """What the families do ahead of the first query (a family declares them in WARM_UPS)."""
    return tuple(warm_up for family in FAMILIES for warm_up in getattr(family, "WARM_UPS", ()))


@cache
def _tools_by_name() -> dict[str, ToolSpec]:
    """Every tool under both its names, built once: a lookup is on every call's path."""
    by_name = {spec.python_name: spec for spec in all_tools()}
    return {**by_name, **{spec.name: spec for spec in all_tools()}}


def get_tool(name: str) -> ToolSpec:
    """The tool called ``name`` (camelCase or the library's snake_case); an unknown name is a
    call error naming the closest ones."""
    spec = _tools_by_name().get(name)
    if spec is not None:
        return spec
    close = difflib.get_close_matches(name, [spec.name for spec in all_tools()], n=3)
    raise CallError(
        f"Unknown tool '{name}'",
        hints=[f"Did you mean: {', '.join(close)}?"]
        if close
        else ["List tools with `octo tools`."],
    )
