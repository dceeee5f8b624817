"""firstTimeUserGuide and getToolCategories; the guide also as text and prompts for the faces.

The guide is data (``guide.toml`` beside this file): the first calls, the concepts every answer
rests on, and workflows of concrete calls. Step queries hold ``${argument}`` placeholders; the
tool's answer fills them with each argument's example, an MCP prompt with the caller's values.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from octo.contract import Answer
from octo.contract import QueryContext
from octo.contract import ToolCategory
from octo.core.formats import compact_json
from octo.discovery.models import Concepts
from octo.discovery.models import FirstTimeUserGuideResult
from octo.discovery.models import GuideStep
from octo.discovery.models import NoParameters
from octo.discovery.models import ToolCategoriesResult
from octo.discovery.models import Workflow

_PLACEHOLDER = re.compile(r"\$\{(\w+)\}")


@dataclass(frozen=True)
class Argument:
    """A value a workflow's steps need; ``source`` names the earlier step it comes from,
    None when the caller gives it."""

    name: str
    description: str
    example: str | int
    source: str | None = None


@dataclass(frozen=True)
class GuideWorkflow:
    """A workflow as the guide file holds it, placeholders unfilled."""

    id: str
    name: str
    goal: str
    arguments: tuple[Argument, ...]
    steps: tuple[Mapping[str, Any], ...]

    @property
    def inputs(self) -> tuple[Argument, ...]:
        """The arguments the caller gives (a prompt's arguments)."""
        return tuple(a for a in self.arguments if a.source is None)

    def filled(self, values: Mapping[str, str | int]) -> Workflow:
        """The workflow with ``values`` in its queries; an argument without a value stays
        ``<name>``."""
        steps = [
            GuideStep(tool=step["tool"], query=_fill(step["query"], values), why=step["why"])
            for step in self.steps
        ]
        return Workflow(name=self.name, goal=self.goal, steps=steps)

    def examples(self) -> Workflow:
        """The workflow with every argument's example in its queries."""
        return self.filled({a.name: a.example for a in self.arguments})

    def prompt_values(self, given: Mapping[str, str]) -> dict[str, str | int]:
        """The caller's prompt arguments, typed like their examples.

        Raises ValueError naming a missing or malformed argument.
        """
        values: dict[str, str | int] = {}
        for argument in self.inputs:
            raw = given.get(argument.name, "").strip()
            if not raw:
                raise ValueError(f"argument '{argument.name}' is required: {argument.description}")
            if isinstance(argument.example, int):
                if not raw.isdigit():
                    raise ValueError(f"argument '{argument.name}' must be a whole number")
                values[argument.name] = int(raw)
            else:
                values[argument.name] = raw
        return values


def _fill(value: Any, values: Mapping[str, str | int]) -> Any:
    if isinstance(value, str):
        alone = _PLACEHOLDER.fullmatch(value)
        if alone:
            return values.get(alone[1], f"<{alone[1]}>")
        return _PLACEHOLDER.sub(lambda m: str(values.get(m[1], f"<{m[1]}>")), value)
    if isinstance(value, dict):
        return {key: _fill(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, values) for item in value]
    return value


@dataclass(frozen=True)
class Guide:
    quick_start: tuple[str, ...]
    concepts: Concepts
    workflows: tuple[GuideWorkflow, ...]

    def workflow(self, workflow_id: str) -> GuideWorkflow | None:
        return next((w for w in self.workflows if w.id == workflow_id), None)


@cache
def guide() -> Guide:
    """The guide file, read once."""
    data = tomllib.loads(files(__package__).joinpath("guide.toml").read_text(encoding="utf-8"))
    return Guide(
        quick_start=tuple(data["quick_start"]),
        concepts=Concepts(**{k: " ".join(v.split()) for k, v in data["concepts"].items()}),
        workflows=tuple(
            GuideWorkflow(
                id=w["id"],
                name=w["name"],
                goal=w["goal"],
                arguments=tuple(
                    Argument(a["name"], a["description"], a["example"], a.get("from"))
                    for a in w["arguments"]
                ),
                steps=tuple(w["steps"]),
            )
            for w in data["workflows"]
        ),
    )


def guide_result() -> FirstTimeUserGuideResult:
    """The guide as firstTimeUserGuide answers it, examples filled in."""
    current = guide()
    return FirstTimeUserGuideResult(
        quickStart=list(current.quick_start),
        concepts=current.concepts,
        workflows=[w.examples() for w in current.workflows],
    )


async def first_time_user_guide(
    ctx: QueryContext, query: NoParameters
) -> Answer[FirstTimeUserGuideResult]:
    """The quick start, the concepts and the workflows."""
    answer = Answer(guide_result())
    _off, hint = switched_off(ctx)
    if hint is not None:
        answer.hint(hint)
    answer.hint(
        "Every tool by category: getToolCategories {}.",
        "Over MCP the guide is the resource octo://guide, each tool's reference "
        "octo://tools/{name}, and each workflow a prompt.",
    )
    return answer


def steps_text(workflow: Workflow) -> list[str]:
    """A workflow's steps as numbered lines: ``1. tool {query} - why``."""
    return [
        f"{number}. {step.tool} {compact_json(step.query)} - {step.why}"
        for number, step in enumerate(workflow.steps, 1)
    ]


def prompt_text(workflow: GuideWorkflow, values: Mapping[str, str | int]) -> str:
    """What a workflow's prompt asks: its goal and its calls, ``values`` filled in."""
    filled = workflow.filled(values)
    later = [f"<{a.name}> comes from {a.source}'s answer." for a in workflow.arguments if a.source]
    return "\n".join(
        [
            f"{workflow.name} with octo's tools. {workflow.goal}",
            'Make these calls (each tool takes {"queries": [query]}), reading each answer and '
            "its hints before the next:",
            *steps_text(filled),
            *later,
        ]
    )


def guide_markdown() -> str:
    """The whole guide as Markdown (the MCP resource octo://guide)."""
    result = guide_result()
    lines = ["# octo: first steps", "", "## Quick start", ""]
    lines += [f"{number}. {step}" for number, step in enumerate(result.quickStart, 1)]
    lines += ["", "## Concepts", ""]
    lines += [f"- **{name}**: {text}" for name, text in result.concepts.model_dump().items()]
    for workflow in result.workflows:
        lines += ["", f"## {workflow.name}", "", workflow.goal, "", *steps_text(workflow)]
    return "\n".join(lines) + "\n"


def switched_off(ctx: QueryContext) -> tuple[dict[str, list[str]], str | None]:
    """The tools OCTO_TOOLSETS leaves out of MCP, by toolset, and the hint that says how to
    publish them (None when every toolset is published)."""
    toolsets = ctx.runtime.config.toolsets
    off: dict[str, list[str]] = {}
    if toolsets is not None:
        for category, names in ctx.runtime.tool_names.items():
            toolset = ToolCategory(category).toolset
            if toolset not in toolsets:
                off.setdefault(toolset, []).extend(names)
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
    off, hint = switched_off(ctx)
    hidden = {name for names in off.values() for name in names}
    categories = {
        category: [name for name in names if name not in hidden]
        for category, names in ctx.runtime.tool_names.items()
    }
    categories = {category: names for category, names in categories.items() if names}
    total = sum(len(names) for names in categories.values())
    answer = Answer(
        ToolCategoriesResult(categories=categories, totalTools=total, switchedOff=off or None)
    )
    if hint is not None:
        answer.hint(hint)
    answer.hint(
        "A tool's full reference: the MCP resource octo://tools/{name}, or docs/tools.md.",
        "How to start, with worked workflows: firstTimeUserGuide {}.",
    )
    return answer
