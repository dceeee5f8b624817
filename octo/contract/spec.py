"""A tool, defined once: its name, models, handler and limits. MCP schemas
(:mod:`octo.faces.tool_schemas`), library methods, the CLI and docs/tools.md are all derived
from a :class:`ToolSpec`."""

from __future__ import annotations

import re
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from enum import StrEnum
from functools import cache
from importlib import import_module
from typing import Any

from octo.contract.context import Answer
from octo.contract.context import QueryContext
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult


class ToolCategory(StrEnum):
    """The families tools are grouped by (tools/list order follows the registry)."""

    LOCAL = "local"
    GITHUB = "github"
    PACKAGE = "packages"
    LSP = "lsp"
    SEMANTIC = "semantic"
    DISCOVERY = "discovery"

    @property
    def toolset(self) -> str:
        """The toolset (``OCTO_TOOLSETS``) that publishes this category's tools over MCP: the
        category's own name, so `octo tools` and OCTO_TOOLSETS say the same word."""
        return self.value


#: Categories whose tools reach remote services.
OPEN_WORLD = frozenset({ToolCategory.GITHUB, ToolCategory.PACKAGE})

Handler = Callable[[QueryContext, Any], Awaitable[Answer[Any]]]

#: ``await warm_up(ctx)``: get ready to answer fast under ``ctx.paths`` (start a language
#: server for the code there); run in the background, its failures only logged.
WarmUp = Callable[[QueryContext], Awaitable[None]]


@cache
def resolve(reference: str) -> Any:
    """The object ``"package.module:name"`` names, its module imported now."""
    module_name, _, name = reference.partition(":")
    return getattr(import_module(module_name), name)


def _imported_on_call(reference: str) -> Callable[..., Awaitable[Any]]:
    async def call(*args: Any) -> Any:
        return await resolve(reference)(*args)

    call.__qualname__ = call.__name__ = reference.partition(":")[2]
    return call


def lazy(reference: str) -> Handler:
    """The handler ``"package.module:function"``, imported on its first call.

    A family's specs name their handlers this way, so listing tools (``import octo``,
    ``octo tools``, MCP tools/list) never loads a backend, httpx or pygls.
    """
    return _imported_on_call(reference)


def lazy_warm_up(reference: str) -> WarmUp:
    """A family's warm-up ``"package.module:function"``, imported on its first call."""
    return _imported_on_call(reference)


@dataclass(frozen=True)
class ToolDocs:
    """A tool's reference beyond its schemas (spec 000's section order): when to use it,
    what a real answer looks like, the errors it answers with, and the tools around it."""

    use_cases: tuple[str, ...] = ()
    #: How it works in full, beyond the tools/list description a model reads every call.
    details: str = ""
    #: A realistic envelope of one query: ``{"status", "data", "hints"}``.
    response: Mapping[str, Any] = field(default_factory=dict)
    #: Error code -> when the tool answers with it.
    errors: Mapping[str, str] = field(default_factory=dict)
    related: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolSpec:
    """Everything about one tool."""

    name: str
    title: str
    category: ToolCategory
    description: str
    query_model: type[ToolQuery]
    result_model: type[ToolResult]
    handler: Handler
    max_queries: int
    example: dict[str, Any] = field(default_factory=dict)
    #: Seconds one query may run; None: the gateway's OCTO_QUERY_TIMEOUT.
    timeout: float | None = None
    #: False for tools that change state (build or clear an index): MCP annotations say so.
    read_only: bool = True
    docs: ToolDocs = field(default_factory=ToolDocs)
    #: What the handler is made of, by reference (``"package.module:name"``): the function
    #: that answers one place, and the SeveralPlaces of a tool that takes several.
    handler_reference: str = ""
    places_reference: str | None = None

    @property
    def python_name(self) -> str:
        """snake_case name of the library method: localSearchCode -> local_search_code."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.name).lower()

    @property
    def open_world(self) -> bool:
        """True for tools that reach remote services."""
        return self.category in OPEN_WORLD
