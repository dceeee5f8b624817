"""Temporary bridge while the tool families move onto the contract: old-style handlers
``(run, query) -> result`` that add hints to ``run`` are wrapped into the contract's
``(ctx, query) -> Answer`` shape. Deleted once every family returns Answers itself."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, TypeVar

from octo.contract import Answer, Handler, QueryContext, Runtime
from octo.contract.runtime import B
from octo.core.envelope import ToolResult
from octo.core.paths import PathPolicy

ResultT = TypeVar("ResultT", bound=ToolResult)


@dataclass
class QueryRun:
    """The old handler context: runtime, path policy, and a place for hints."""

    ctx: QueryContext
    hints: list[str] = field(default_factory=list)
    cached: bool = False

    @property
    def runtime(self) -> Runtime:
        return self.ctx.runtime

    @property
    def paths(self) -> PathPolicy:
        return self.ctx.paths

    def provider(self, cls: type[B]) -> B:
        return self.ctx.backend(cls)

    def hint(self, text: str) -> None:
        if text not in self.hints:
            self.hints.append(text)


OldHandler = Callable[[QueryRun, Any], Awaitable[ToolResult]]


def legacy(target: str) -> Handler:
    """An old-style handler ``"module:function"`` in the contract's shape, loaded lazily."""
    module_name, _, function = target.partition(":")

    async def handler(ctx: QueryContext, query: Any) -> Answer[Any]:
        old: OldHandler = getattr(import_module(module_name), function)
        run = QueryRun(ctx)
        result = await old(run, query)
        return Answer(result, run.hints, run.cached)

    return handler


# The old handlers, one per tool; each family's specs name them until the family moves.


async def lsp_goto_definition(run: QueryRun, query: Any) -> Any:
    from octo.lsp import navigate

    return await navigate.goto_definition(run, query)


async def lsp_find_references(run: QueryRun, query: Any) -> Any:
    from octo.lsp import navigate

    return await navigate.find_references(run, query)


async def lsp_call_hierarchy(run: QueryRun, query: Any) -> Any:
    from octo.lsp import navigate

    return await navigate.call_hierarchy(run, query)
