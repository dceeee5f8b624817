"""What the faces publish of a tool: the JSON schemas of a call's arguments and of its
answer (tools/list, the output schema a validating client checks), both derived from the
:class:`~octo.contract.ToolSpec`'s models, and which tools a set of toolsets publishes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from octo.contract import ToolSpec
from octo.core.envelope import BulkResponse
from octo.core.queries import CONTEXT_FIELDS


def published(specs: tuple[ToolSpec, ...], toolsets: frozenset[str] | None) -> tuple[ToolSpec, ...]:
    """The tools of ``specs`` that the ``toolsets`` publish over MCP (None: every one)."""
    if toolsets is None:
        return specs
    return tuple(spec for spec in specs if spec.category.toolset in toolsets)


def input_schema(spec: ToolSpec) -> dict[str, Any]:
    """JSON schema of a call's arguments: ``{"queries": [query, ...]}``."""
    query_schema = spec.query_model.model_json_schema()
    defs = query_schema.pop("$defs", {})
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "queries": {
                "type": "array",
                "items": query_schema,
                "minItems": 1,
                "maxItems": spec.max_queries,
            }
        },
        "required": ["queries"],
    }
    if defs:
        schema["$defs"] = defs
    return _published_input(schema, spec.query_model.described_here)


def output_schema(spec: ToolSpec) -> dict[str, Any]:
    """JSON schema of the bulk response; field prose lives in the input schema and docs.

    An answer leaves out what is None (``to_compact_json``), so no field is ever null on
    the wire: optional fields are published as their type alone. Definitions that refer
    to nothing are written where they are used. Both spare a validating client work on
    every item of every answer (an ``anyOf`` per field, a ``$ref`` per item).
    """
    schema = BulkResponse[spec.result_model].model_json_schema()  # type: ignore[name-defined]
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
