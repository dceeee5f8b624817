"""Shared fixtures: every async test runs on asyncio (pygls is asyncio-only); and an echo tool
for the tests of query validation and the dispatcher."""

from __future__ import annotations

import sys

import anyio
import pytest
from pydantic import Field

from octo.contract import Answer
from octo.contract import QueryContext
from octo.contract import ToolCategory
from octo.contract import ToolSpec
from octo.core.errors import NotFoundError
from octo.core.errors import RateLimitError
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult

# Bytecode caches are kept even under PYTHONDONTWRITEBYTECODE (set on some machines): without
# them every run compiles and assertion-rewrites every test module and octo again, which
# doubles the fast lane's collection (14 s against 7.5 s on 2 cores).
sys.dont_write_bytecode = False


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class EchoQuery(ToolQuery):
    """The query of an echo tool, for the tests of query validation and the dispatcher."""

    value: int = Field(ge=0, le=100, description="What to echo.")
    behaviour: str = "ok"


class EchoResult(ToolResult):
    value: int

    def is_empty(self) -> bool:
        return self.value == 0


async def echo(ctx: QueryContext, query: EchoQuery) -> Answer[EchoResult]:
    """The value back with a hint, unless ``behaviour`` says to sleep, fail or answer as cached."""
    if query.behaviour == "sleep":
        await anyio.sleep(10)
    if query.behaviour == "missing":
        raise NotFoundError("no such thing", hints=["try another"])
    if query.behaviour == "ratelimit":
        raise RateLimitError("slow down", reset_at=0)
    if query.behaviour == "bug":
        raise KeyError("oops")
    answer = Answer(EchoResult(value=query.value), cached=query.behaviour == "cached")
    answer.hint(f"next value: {query.value + 1}")
    return answer


ECHO_SPEC = ToolSpec(
    name="echoTool",
    title="Echo",
    category=ToolCategory.LOCAL,
    description="Echoes a value.",
    query_model=EchoQuery,
    result_model=EchoResult,
    handler=echo,
    max_queries=5,
    example={"value": 1},
    timeout=0.2,
)
