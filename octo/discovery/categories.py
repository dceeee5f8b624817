"""getToolCategories: the tools this gateway publishes, by category."""

from __future__ import annotations

from octo.contract import Answer
from octo.contract import QueryContext
from octo.discovery.models import NoParameters
from octo.discovery.models import ToolCategoriesResult


async def tool_categories(ctx: QueryContext, query: NoParameters) -> Answer[ToolCategoriesResult]:
    """Every published tool under its category, in tools/list order."""
    categories: dict[str, list[str]] = {}
    for spec in ctx.runtime.catalog:
        categories.setdefault(spec.category.value, []).append(spec.name)
    answer = Answer(
        ToolCategoriesResult(categories=categories, totalTools=len(ctx.runtime.catalog))
    )
    answer.hint(
        "A tool's full reference: the MCP resource octo://tools/{name}, or docs/tools.md.",
        "How to start, with worked workflows: firstTimeUserGuide {}.",
    )
    return answer
