"""A tool, defined once: its name, models, handler and limits. MCP schemas, library methods,
the CLI and docs/tools.md are all derived from a :class:`ToolSpec`."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from enum import StrEnum
from functools import cache
from importlib import import_module
from typing import Any

from pydantic import BaseModel

from octo.contract.context import Answer
from octo.contract.context import QueryContext
from octo.core.envelope import BulkResponse
from octo.core.queries import CONTEXT_FIELDS
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


def published(specs: tuple[ToolSpec, ...], toolsets: frozenset[str] | None) -> tuple[ToolSpec, ...]:
    """The tools of ``specs`` that the ``toolsets`` publish over MCP (None: every one)."""
    if toolsets is None:
        return specs
    return tuple(spec for spec in specs if spec.category.toolset in toolsets)


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
                }
            },
            "required": ["queries"],
        }
        if defs:
            schema["$defs"] = defs
        return _published_input(schema, self.query_model.described_here)

    def output_schema(self) -> dict[str, Any]:
        """JSON schema of the bulk response; field prose lives in the input schema and docs.

        An answer leaves out what is None (``to_compact_json``), so no field is ever null on
        the wire: optional fields are published as their type alone. Definitions that refer
        to nothing are written where they are used. Both spare a validating client work on
        every item of every answer (an ``anyOf`` per field, a ``$ref`` per item).
        """
        schema = self.bulk_model.model_json_schema()
        compact: dict[str, Any] = _without_nullable(
            _compact_schema(schema, drop=("title", "description"))
        )
        return _single_uses_inlined(_leaves_inlined(compact))


def _published_input(schema: dict[str, Any], described: frozenset[str] | None) -> dict[str, Any]:
    """``schema`` as tools/list publishes it: what a model needs to call, said once.

    Besides :func:`_compact_schema`'s cuts, an optional field is published as its type
    without pydantic's ``anyOf [X, {"type": "null"}]`` wrapper (leaving a field out is how a
    model says "none"; the query model still accepts an explicit null), a boolean's
    ``"default": false`` is left out (an absent flag is off), as is a page number's default
    1 (paging starts there), and the query's own description (the tool's says it).
    Fields outside ``described`` (when given) keep only their shape. Validation is the
    query model's, so nothing here loosens or tightens what a call may carry.
    """
    compact: dict[str, Any] = _without_nullable(_compact_schema(schema, drop=("title",)))
    query = compact["properties"]["queries"]["items"]
    # The query model's docstring restates the tool's description.
    query.pop("description", None)
    fields: dict[str, dict[str, Any]] = query["properties"]
    for name, words in fields.items():
        if name.lower().endswith(("page", "pagenumber")) and words.get("default") == 1:
            del words["default"]
    if described is not None:
        for name, words in fields.items():
            if name not in described and name not in CONTEXT_FIELDS:
                fields[name] = {k: v for k, v in words.items() if k in _SHAPE}
    return compact


#: What a field published by shape only keeps.
_SHAPE = frozenset({"type", "items", "enum", "anyOf"})


def _without_nullable(node: Any) -> Any:
    if isinstance(node, list):
        return [_without_nullable(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _without_nullable(value) for key, value in node.items()}
    branches = node.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches:
        kept = [branch for branch in branches if branch != {"type": "null"}]
        del node["anyOf"]
        node = {**kept[0], **node} if len(kept) == 1 else {"anyOf": kept, **node}
    if node.get("type") == "boolean" and node.get("default") is False:
        del node["default"]
    return node


def _leaves_inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each definition that holds no ``$ref`` written in place of the
    references to it (a recursive or referring definition stays in ``$defs``)."""
    body = {key: value for key, value in schema.items() if key != "$defs"}
    defs: dict[str, Any] = schema.get("$defs", {})
    # A definition that referred only to leaves is a leaf once they are written in.
    while leaves := {
        f"#/$defs/{name}": node
        for name, node in defs.items()
        if next(_references(node), None) is None
    }:
        body = _written_in(body, leaves)
        defs = {
            name: _written_in(node, leaves)
            for name, node in defs.items()
            if f"#/$defs/{name}" not in leaves
        }
    return {**body, "$defs": defs} if defs else body


def _single_uses_inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each definition the body refers to once, and that does not lead
    back to itself, written where it is used and dropped from ``$defs``. A validating
    client resolves each ``$ref`` at a cost of its own: an answer's envelope is then
    reached without one, and nothing is published twice."""
    body = {key: value for key, value in schema.items() if key != "$defs"}
    defs: dict[str, Any] = schema.get("$defs", {})
    while once := {
        ref: defs[ref.removeprefix("#/$defs/")]
        for ref, uses in Counter(_references(body)).items()
        if uses == 1 and ref not in _reached(defs, ref) and not _used_in(defs, ref)
    }:
        body = _written_in(body, once)
        defs = {name: node for name, node in defs.items() if f"#/$defs/{name}" not in once}
    return {**body, "$defs": defs} if defs else body


def _reached(defs: dict[str, Any], ref: str) -> set[str]:
    """The references reached from the definition ``ref`` names, at any depth."""
    reached: set[str] = set()
    pending = list(_references(defs[ref.removeprefix("#/$defs/")]))
    while pending:
        if (found := pending.pop()) not in reached:
            reached.add(found)
            pending.extend(_references(defs[found.removeprefix("#/$defs/")]))
    return reached


def _used_in(defs: dict[str, Any], ref: str) -> bool:
    """Whether another definition refers to ``ref`` (it must then stay in ``$defs``)."""
    return any(ref in _references(node) for node in defs.values())


def _references(node: Any) -> Iterator[str]:
    """Every ``$ref`` in ``node``, as often as it occurs."""
    if isinstance(node, list):
        for item in node:
            yield from _references(item)
    elif isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _references(value)


def _written_in(node: Any, leaves: dict[str, Any]) -> Any:
    """``node`` with each reference to one of ``leaves`` replaced by the leaf itself."""
    if isinstance(node, list):
        return [_written_in(item, leaves) for item in node]
    if not isinstance(node, dict):
        return node
    if set(node) == {"$ref"} and node["$ref"] in leaves:
        return leaves[node["$ref"]]
    return {key: _written_in(value, leaves) for key, value in node.items()}


def _compact_schema(node: Any, drop: tuple[str, ...]) -> Any:
    """``node`` without the annotation keywords in ``drop`` and without ``"default": null``.

    tools/list goes into every model's context: pydantic's per-field titles and
    null defaults cost tokens and say nothing. Only string-valued keywords are
    dropped, so a property that happens to be called "title" survives.
    """
    if isinstance(node, list):
        return [_compact_schema(item, drop) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: _compact_schema(value, drop)
        for key, value in node.items()
        if not (key in drop and isinstance(value, str)) and not (key == "default" and value is None)
    }
