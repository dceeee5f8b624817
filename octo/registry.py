"""The one list of tools. MCP schemas, library methods, the CLI and docs/tools.md derive from it."""

from __future__ import annotations

import difflib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from octo.envelope import BulkResponse, ToolQuery, ToolResult
from octo.errors import CallError

if TYPE_CHECKING:
    from octo.dispatch import QueryRun


class ToolCategory(StrEnum):
    LOCAL = "local"
    GITHUB = "github"
    PACKAGE = "package"
    LSP = "lsp"


Handler = Callable[["QueryRun", Any], Awaitable[ToolResult]]


@dataclass(frozen=True)
class ToolSpec:
    """Everything about one tool, defined once."""

    name: str
    title: str
    category: ToolCategory
    description: str
    query_model: type[ToolQuery]
    result_model: type[ToolResult]
    handler: Handler
    max_queries: int
    example: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = None

    @property
    def python_name(self) -> str:
        """snake_case name of the library method: localSearchCode -> local_search_code."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.name).lower()

    @property
    def open_world(self) -> bool:
        """True for tools that reach remote services."""
        return self.category in (ToolCategory.GITHUB, ToolCategory.PACKAGE)

    @property
    def bulk_model(self) -> type[BaseModel]:
        return BulkResponse[self.result_model]  # type: ignore[name-defined]

    def input_schema(self) -> dict[str, Any]:
        """JSON schema of a call's arguments: ``{"queries": [query, ...]}``."""
        query_schema = self.query_model.model_json_schema()
        defs = query_schema.pop("$defs", {})
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {
                "queries": {
                    "type": "array",
                    "items": query_schema,
                    "minItems": 1,
                    "maxItems": self.max_queries,
                    "description": f"1-{self.max_queries} queries, run concurrently.",
                }
            },
            "required": ["queries"],
        }
        if defs:
            schema["$defs"] = defs
        return schema

    def output_schema(self) -> dict[str, Any]:
        return self.bulk_model.model_json_schema()


# One function per tool family builds its specs; imports stay inside so that
# `import octo` and `octo tools` load only what they touch.


def _github_tools() -> list[ToolSpec]:
    return []


def _package_tools() -> list[ToolSpec]:
    return []


def _local_code_tools() -> list[ToolSpec]:
    return []


def _local_files_tools() -> list[ToolSpec]:
    return []


def _lsp_tools() -> list[ToolSpec]:
    return []


# Order here is tools/list order.
_FAMILIES: tuple[Callable[[], list[ToolSpec]], ...] = (
    _github_tools,
    _package_tools,
    _local_code_tools,
    _local_files_tools,
    _lsp_tools,
)


@cache
def all_tools() -> tuple[ToolSpec, ...]:
    """Every tool, in a fixed order."""
    return tuple(spec for family in _FAMILIES for spec in family())


def get_tool(name: str) -> ToolSpec:
    """The tool called ``name``; an unknown name is a call error naming the closest ones."""
    by_name = {spec.name: spec for spec in all_tools()}
    if name in by_name:
        return by_name[name]
    by_python = {spec.python_name: spec for spec in all_tools()}
    if name in by_python:
        return by_python[name]
    close = difflib.get_close_matches(name, list(by_name), n=3)
    raise CallError(
        f"Unknown tool '{name}'",
        hints=[f"Did you mean: {', '.join(close)}?"]
        if close
        else ["List tools with `octo tools`."],
    )
