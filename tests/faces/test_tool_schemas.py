"""The output schemas tools/list publishes say what answers carry on the wire, and no more
than a validating client needs: no null a compact answer never holds, no definition that
could stand in place, no reference on the way to an answer's envelope."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from jsonschema.validators import validator_for

from octo.contract import ToolSpec
from octo.core.envelope import BulkResponse
from octo.core.envelope import ErrorInfo
from octo.core.envelope import QueryStatus
from octo.core.envelope import ResultEnvelope
from octo.core.errors import ErrorCode
from octo.faces.tool_schemas import output_schema
from octo.registry import all_tools


def _nodes(node: Any) -> list[Any]:
    if isinstance(node, list):
        return [found for item in node for found in _nodes(item)]
    if isinstance(node, dict):
        return [node, *(found for value in node.values() for found in _nodes(value))]
    return []


@pytest.mark.parametrize("spec", all_tools(), ids=lambda spec: spec.name)
def test_no_null_and_no_definition_that_refers_to_nothing(spec: ToolSpec) -> None:
    schema = output_schema(spec)
    validator_for(schema).check_schema(schema)
    assert not [node for node in _nodes(schema) if node.get("type") == "null"]
    for name, definition in schema.get("$defs", {}).items():
        refers = any("$ref" in node for node in _nodes(definition))
        assert refers, f"{name} could be written in place"


@pytest.mark.parametrize("spec", all_tools(), ids=lambda spec: spec.name)
def test_the_envelope_is_written_in_place_and_only_recursion_is_referred_to(
    spec: ToolSpec,
) -> None:
    schema = output_schema(spec)
    envelope = schema["properties"]["results"]["items"]
    assert "$ref" not in envelope and "status" in envelope["properties"]
    defs = schema.get("$defs", {})
    uses = Counter(node["$ref"] for node in _nodes(schema) if "$ref" in node)
    for name in defs:
        # Kept: a definition that leads back to itself (a tree of groups) or is used twice.
        ref, pending = f"#/$defs/{name}", [name]
        reached: set[str] = set()
        while pending:
            inside = {n["$ref"] for n in _nodes(defs[pending.pop()]) if "$ref" in n}
            pending += [r.removeprefix("#/$defs/") for r in inside - reached]
            reached |= inside
        assert ref in reached or uses[ref] > 1, f"{name} could be written in place"


@pytest.mark.parametrize("spec", all_tools(), ids=lambda spec: spec.name)
def test_an_error_answer_on_the_wire_matches_it(spec: ToolSpec) -> None:
    error = ErrorInfo(code=ErrorCode.NOT_FOUND, message="gone")
    bulk = BulkResponse[Any](
        results=[ResultEnvelope[Any](queryIndex=0, status=QueryStatus.ERROR, error=error, hints=[])]
    )
    schema = output_schema(spec)
    validator_for(schema)(schema).validate(json.loads(bulk.to_compact_json()))
