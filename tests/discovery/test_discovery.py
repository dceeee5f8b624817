"""getToolCategories and firstTimeUserGuide: every tool counted, every guide query valid."""

from __future__ import annotations

import json
from typing import Any

import pytest

import octo
from octo.contract.query_mending import validate_query
from octo.discovery.guide import guide
from octo.registry import all_tools
from octo.registry import get_tool


async def answer(gateway: octo.Gateway, tool: str) -> dict[str, Any]:
    row: dict[str, Any] = (await gateway.call(tool, [{}])).to_wire()["results"][0]
    assert row["status"] == "success"
    return row


async def test_categories_list_every_tool_once(gateway: octo.Gateway) -> None:
    data = (await answer(gateway, "getToolCategories"))["data"]
    listed = [name for names in data["categories"].values() for name in names]
    assert listed == [spec.name for spec in all_tools()]
    assert data["totalTools"] == len(all_tools())
    assert data["categories"]["discovery"] == [
        "getCachedContent",
        "getToolCategories",
        "firstTimeUserGuide",
    ]


async def test_the_guide_has_its_parts(gateway: octo.Gateway) -> None:
    data = (await answer(gateway, "firstTimeUserGuide"))["data"]
    assert len(data["quickStart"]) >= 5
    assert set(data["concepts"]) == {
        "bulkQueries",
        "envelopesAndHints",
        "pagingAndTokenBudget",
        "rootsAndOptIns",
        "providers",
    }
    names = [workflow["name"] for workflow in data["workflows"]]
    assert names == [
        "Explore an unfamiliar repository",
        "Trace a symbol",
        "Map code by its symbols",
        "Find how a library is used across GitHub",
        "Research a package",
        "Why did this change",
        "Why is this line here",
        "Study a dependency locally",
        "Why did CI fail",
    ]
    assert all(step["why"] for workflow in data["workflows"] for step in workflow["steps"])


STEPS = [
    (workflow.id, number, step)
    for workflow in guide().workflows
    for number, step in enumerate(workflow.examples().steps, 1)
]


@pytest.mark.parametrize(
    ("workflow", "number", "step"), STEPS, ids=[f"{w}-{n}" for w, n, _ in STEPS]
)
def test_every_example_query_validates_against_its_tool(
    workflow: str, number: int, step: Any
) -> None:
    spec = get_tool(step.tool)
    validate_query(spec, step.query)
    assert "<" not in str(step.query), f"{workflow} step {number} left a placeholder"


def test_quick_start_calls_are_valid_queries() -> None:
    for line in guide().quick_start:
        tool, rest = line.split(" ", 1)
        query, _ = json.JSONDecoder().raw_decode(rest)
        validate_query(get_tool(tool), query)
