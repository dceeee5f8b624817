"""localDependencyGraph stays lean in tools/list: at most 350 model-visible tokens (name,
description, input schema), well under the 700 a tool may take."""

from __future__ import annotations

import json

from octo.core.budget import estimate_tokens
from octo.faces.tool_schemas import input_schema
from octo.registry import get_tool


def test_model_visible_size() -> None:
    spec = get_tool("localDependencyGraph")
    schema = json.dumps(input_schema(spec), separators=(",", ":"))
    assert estimate_tokens(len(spec.name + spec.description + schema)) <= 350
