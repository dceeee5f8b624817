"""getToolCategories: the tools this gateway publishes, by category."""

from __future__ import annotations

from octo.contract import Answer
from octo.contract import QueryContext
from octo.contract.spec import published
from octo.gateway.models import NoParameters
from octo.gateway.models import ToolCategoriesResult


def switched_off(ctx: QueryContext) -> tuple[dict[str, list[str]], str | None]:
    """The tools OCTO_TOOLSETS leaves out of MCP, by toolset, and the hint that says how to
    publish them (None when every toolset is published)."""
    toolsets = ctx.runtime.config.toolsets
    shown = published(ctx.runtime.catalog, toolsets)
    off: dict[str, list[str]] = {}
    for spec in ctx.runtime.catalog:
        if spec not in shown:
            off.setdefault(spec.category.toolset, []).append(spec.name)
    if not off:
        return off, None
    on = ",".join(sorted({*(toolsets or ()), *off}))
    return off, (
        f"Switched off over MCP: the toolsets {', '.join(off)}. To publish them, start the "
        f"server with OCTO_TOOLSETS={on} (or all, or octo serve --toolsets {on}); the "
        "command line and the library keep every tool."
    )


async def tool_categories(ctx: QueryContext, query: NoParameters) -> Answer[ToolCategoriesResult]:
    """Every published tool under its category, in tools/list order; the toolsets switched
    off (OCTO_TOOLSETS) and how to switch them on."""
    shown = published(ctx.runtime.catalog, ctx.runtime.config.toolsets)
    categories: dict[str, list[str]] = {}
    for spec in shown:
        categories.setdefault(spec.category.value, []).append(spec.name)
    off, hint = switched_off(ctx)
    answer = Answer(
        ToolCategoriesResult(categories=categories, totalTools=len(shown), switchedOff=off or None)
    )
    if hint is not None:
        answer.hint(hint)
    answer.hint(
        "A tool's full reference: the MCP resource octo://tools/{name}, or docs/tools.md.",
        "How to start, with worked workflows: firstTimeUserGuide {}.",
    )
    return answer
