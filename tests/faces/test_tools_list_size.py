"""tools/list stays compact: what a model sees of the tools (name, description, input schema;
characters / 4, as octo's token budget counts) stays within absolute budgets, per tool and for
the whole set (not a ratchet against an earlier release: a new tool is judged by its own size)."""

from __future__ import annotations

import json

from octo.core.budget import estimate_tokens
from octo.faces.tool_schemas import input_schema
from octo.registry import all_tools

#: Issue 24's budget of model-visible tokens: per tool, and for every tool together.
PER_TOOL = 700
ALL_TOOLS = 14_000


def _model_visible() -> dict[str, int]:
    return {
        spec.name: estimate_tokens(
            len(
                spec.name + spec.description + json.dumps(input_schema(spec), separators=(",", ":"))
            )
        )
        for spec in all_tools()
    }


def test_every_tool_within_its_token_budget() -> None:
    over = {name: tokens for name, tokens in _model_visible().items() if tokens > PER_TOOL}
    assert not over, f"model-visible tokens above {PER_TOOL}: {over}"


def test_all_tools_within_the_token_budget() -> None:
    total = sum(_model_visible().values())
    assert total <= ALL_TOOLS, f"model-visible tokens of all tools: {total} > {ALL_TOOLS}"
