"""Query and result models of the gateway's own tools."""

from __future__ import annotations

from typing import Any
from typing import ClassVar

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field

from octo.core.budget import TokenInfo
from octo.core.queries import CONTEXT_FIELDS
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import optional


def _without_context_fields(schema: dict[str, Any]) -> None:
    # The gateway's own tools serve no research: their schemas need not spell out the
    # research-context fields (still accepted) in every tools/list.
    for name in CONTEXT_FIELDS:
        schema["properties"].pop(name, None)
    schema.pop("additionalProperties", None)


class GatewayQuery(ToolQuery):
    """Base of the gateway tools' queries."""

    model_config = ConfigDict(json_schema_extra=_without_context_fields)


class NoParameters(GatewayQuery):
    """No parameters: {}."""


class GetCachedContentQuery(GatewayQuery):
    """One page of a content handle."""

    handle: str = Field(min_length=1, max_length=100, description="A contentHandle of an answer.")
    page: int = Field(default=1, ge=1)


class GetCachedContentResult(ToolResult):
    """A page of the content behind a handle, cut at line boundaries within the token budget."""

    items_field: ClassVar[str] = "content"

    content: str
    page: int
    totalPages: int
    hasMore: bool
    startLine: int = Field(description="The content's line this page starts in (1-based).")
    endLine: int = Field(description="The content's line this page ends in.")
    tokens: TokenInfo | None = optional("Always given.")


class ToolCategoriesResult(ToolResult):
    """The tools this gateway publishes, by category."""

    categories: dict[str, list[str]] = Field(description="Tool names by category.")
    totalTools: int = Field(description="Tools published (the length of tools/list).")
    switchedOff: dict[str, list[str]] | None = optional(
        "Tools by toolset that OCTO_TOOLSETS leaves out of MCP (the CLI and the library keep them)."
    )


class GuideStep(BaseModel):
    """One call of a workflow: the tool, a query it accepts, and what the call is for."""

    tool: str
    query: dict[str, Any]
    why: str


class Workflow(BaseModel):
    """A research task done with octo, step by step."""

    name: str
    goal: str
    steps: list[GuideStep]


class Concepts(BaseModel):
    """What to know before the first call."""

    bulkQueries: str
    envelopesAndHints: str
    pagingAndTokenBudget: str
    rootsAndOptIns: str
    providers: str


class FirstTimeUserGuideResult(ToolResult):
    """How to start: the first calls, the ideas behind every answer, and worked workflows."""

    quickStart: list[str]
    concepts: Concepts
    workflows: list[Workflow]
