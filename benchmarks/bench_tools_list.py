"""What tools/list costs a model's context, before and after issue 12 (several places, content
handles, discovery), measured in one process.

tools/list goes into every conversation, so its size is a cost on every call. The figure is
the estimated tokens (characters / 4, as octo's token budget counts them) of each tool's name,
description and input schema as published. "Before" is the same registry with what issue 12
added taken out: the gateway family's tools, the ``repos`` / ``aggregationMode`` /
``responseFormat`` fields, and ``path`` as one string with its former description.

It also prints what a model sees of each tool, in total and per toolset (``OCTO_TOOLSETS``
publishes only the chosen ones).

Run: ``.venv/bin/python benchmarks/bench_tools_list.py``. See benchmarks/README.md.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from octo.contract import ToolCategory
from octo.core.budget import estimate_tokens
from octo.faces.tool_schemas import input_schema
from octo.registry import all_tools

#: Query fields issue 12 added to existing tools.
ADDED_FIELDS = ("repos", "aggregationMode", "responseFormat")
#: Where issue 12 lengthened the description of ``path``.
ADDED_PATH_WORDS = "; or a list of up to 10"
TARGET = 1.10
#: Budgets of tests/faces/test_tools_list_size.py: per tool, and for every tool together.
PER_TOOL = 700
ALL_TOOLS = 14_000


def _tokens(name: str, description: str, schema: dict[str, Any]) -> int:
    return estimate_tokens(len(name + description + json.dumps(schema, separators=(",", ":"))))


def _without_issue_12(schema: dict[str, Any]) -> dict[str, Any]:
    schema = copy.deepcopy(schema)
    fields = schema["properties"]["queries"]["items"]["properties"]
    for name in ADDED_FIELDS:
        fields.pop(name, None)
    path = fields.get("path")
    if path is not None and "anyOf" in path:
        described = path["description"].split(ADDED_PATH_WORDS)[0] + "."
        fields["path"] = {"description": described, "minLength": 1, "type": "string"}
    return schema


def measure() -> tuple[int, int]:
    """Estimated tokens of tools/list before and after issue 12."""
    after = before = 0
    for spec in all_tools():
        schema = input_schema(spec)
        after += _tokens(spec.name, spec.description, schema)
        if spec.category is not ToolCategory.DISCOVERY:
            before += _tokens(spec.name, spec.description, _without_issue_12(schema))
    return before, after


def token_counter() -> tuple[str, Callable[[str], int]]:
    """The o200k tokenizer of bpe-openai when it is installed, else characters / 4: its name,
    and the count of a text's tokens."""
    try:
        from bpe_openai import get_encoding  # type: ignore[import-not-found]
    except ImportError:
        return "chars/4", lambda text: estimate_tokens(len(text))
    encoding = get_encoding("o200k_base")
    return "o200k (bpe-openai)", lambda text: len(encoding.encode(text))


def model_visible() -> tuple[str, list[tuple[str, str, int]]]:
    """What a model sees of each published tool (name, description, input schema), as
    (toolset, tool, tokens), counted by :func:`token_counter`, which it names."""
    counter, count = token_counter()
    rows = []
    for spec in all_tools():
        text = spec.name + spec.description + json.dumps(input_schema(spec), separators=(",", ":"))
        rows.append((spec.category.toolset, spec.name, count(text)))
    return counter, rows


def main() -> None:
    before, after = measure()
    print(
        "tools/list tokens (name + description + inputSchema, chars/4): "
        f"before issue 12 {before}, after {after}, {after / before:.3f}x "
        f"(target <= {TARGET:.2f}x)"
    )
    counter, rows = model_visible()
    print(f"model-visible tokens per tool ({counter}):")
    for toolset, name, tokens in rows:
        print(f"  {name:<28} {toolset:<10} {tokens:>6}")
    total = sum(r[2] for r in rows)
    largest = max(rows, key=lambda row: row[2])
    print(f"model-visible tokens, all {len(rows)} tools: {total} (target <= {ALL_TOOLS})")
    print(
        f"largest tool: {largest[1]} {largest[2]} (target <= {PER_TOOL}); "
        f"room for new tools: {ALL_TOOLS - total} tokens"
    )
    per_toolset: dict[str, list[int]] = {}
    for toolset, _name, tokens in rows:
        per_toolset.setdefault(toolset, []).append(tokens)
    shown = ", ".join(f"{t} {sum(v)} ({len(v)} tools)" for t, v in per_toolset.items())
    print(f"model-visible tokens per toolset (OCTO_TOOLSETS): {shown}")


if __name__ == "__main__":
    main()
