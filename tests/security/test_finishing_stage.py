"""The dispatcher's finishing stage redacts an answer before it cuts it: a remote text
clipped to the budget never leaves a token cut where no detector knows it any more."""

from __future__ import annotations

from typing import Any

import pytest

from octo.contract import Answer
from octo.contract import QueryContext
from octo.contract import ToolCategory
from octo.contract import ToolSpec
from octo.contract.runtime import Runtime
from octo.core.budget import TokenInfo
from octo.core.config import Config
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.dispatch import dispatch

#: Built at run time: no token-shaped literal in the tests.
TOKEN = "ghp_" + "A1b2" * 9
#: Where the budget's clip cuts a text (half of 200 tokens of 4 characters, less its "…").
CLIP = 399


class BodyQuery(ToolQuery):
    at: int


class BodyResult(ToolResult):
    body: str
    tokens: TokenInfo | None = None


async def _body(ctx: QueryContext, query: BodyQuery) -> Answer[BodyResult]:
    """A host's answer of 2,000 characters with a token whose start the clip keeps."""
    text = "x" * (query.at - 1) + " " + TOKEN
    return Answer(BodyResult(body=text + "y" * (2000 - len(text))))


SPEC = ToolSpec(
    name="remoteBody",
    title="Remote body",
    category=ToolCategory.GITHUB,
    description="A long remote text.",
    query_model=BodyQuery,
    result_model=BodyResult,
    handler=_body,
    max_queries=1,
    example={"at": 0},
)


@pytest.fixture
async def runtime() -> Any:
    rt = Runtime(Config(max_tokens=200))
    yield rt
    await rt.aclose()


@pytest.mark.parametrize("kept", [12, 20, 30])
async def test_a_token_cut_by_the_budget_is_never_shown_in_part(
    runtime: Runtime, kept: int
) -> None:
    bulk = await dispatch(SPEC, runtime, [{"at": CLIP - kept}])
    (envelope,) = bulk.results
    sent = envelope.model_dump_json()
    assert envelope.data is not None and envelope.data.body.endswith("…")
    assert TOKEN[4:12] not in sent
    assert "[REDACTED:" in sent
