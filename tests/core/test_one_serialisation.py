"""Each query's answer is serialised whole once on its way (its tokens measured) plus the once
it is sent: the dispatcher's finishing stage, a call's budget share and the redaction add
no serialisation of their own."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from pydantic import SerializerFunctionWrapHandler
from pydantic import model_serializer

from octo.contract import Answer
from octo.contract import QueryContext
from octo.contract import ToolCategory
from octo.contract import ToolSpec
from octo.contract.runtime import Runtime
from octo.core.budget import TokenInfo
from octo.core.budget import with_tokens
from octo.core.config import Config
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.dispatch import _envelope
from octo.dispatch import dispatch

#: Every serialisation of an answer, nested ones included (the envelope's, the call's).
SERIALISED: list[str] = []


class NoteQuery(ToolQuery):
    text: str
    measured: bool = True


class Note(ToolResult):
    """An answer that counts each time pydantic serialises it."""

    text: str
    tokens: TokenInfo | None = None

    @model_serializer(mode="wrap")
    def _counted(self, handler: SerializerFunctionWrapHandler) -> Any:
        SERIALISED.append(self.text)
        return handler(self)


async def _note(ctx: QueryContext, query: NoteQuery) -> Answer[Note]:
    note = Note(text=query.text)
    # A handler measures its answer (as a page's fit does): the one serialisation on the way.
    return Answer(with_tokens(note, ctx.config) if query.measured else note)


LOCAL = ToolSpec(
    name="noteTool",
    title="Note",
    category=ToolCategory.LOCAL,
    description="Answers a note.",
    query_model=NoteQuery,
    result_model=Note,
    handler=_note,
    max_queries=5,
    example={"text": "hello"},
)
#: A remote tool's answer, measured by the finishing stage when its handler did not.
REMOTE = replace(LOCAL, name="remoteNoteTool", category=ToolCategory.GITHUB)


@pytest.fixture
def counted() -> Iterator[list[str]]:
    SERIALISED.clear()
    yield SERIALISED
    SERIALISED.clear()


@pytest.mark.parametrize(
    ("spec", "measured"),
    [(LOCAL, True), (LOCAL, False), (REMOTE, False)],
    ids=["measured by its handler", "not measured", "measured by the finishing stage"],
)
@pytest.mark.parametrize("call_tokens", [None, 600], ids=["own budget", "a call's share"])
async def test_an_answer_is_serialised_once_on_its_way_and_once_sent(
    counted: list[str], spec: ToolSpec, measured: bool, call_tokens: int | None
) -> None:
    config = Config() if call_tokens is None else Config(max_call_tokens=call_tokens)
    queries: list[dict[str, Any]] = [{"text": f"note {i}", "measured": measured} for i in range(3)]
    async with Runtime(config) as runtime:
        response = await dispatch(spec, runtime, queries)
        sent = response.to_compact_json()
    assert '"note 0"' in sent
    for query in queries:
        # A local answer nobody measured (no tokens block) and no share to check is only sent.
        once = 0 if (spec is LOCAL and not measured and call_tokens is None) else 1
        assert counted.count(query["text"]) == once + 1, counted


@pytest.mark.parametrize("spec", [LOCAL, REMOTE], ids=["local", "remote"])
@pytest.mark.parametrize("text", ["", "plain", 'ünïcode ✓ and "quotes"\n', "x" * 5000])
async def test_the_size_taken_from_the_way_is_the_size_sent(spec: ToolSpec, text: str) -> None:
    # Answers stay byte-for-byte what a full measurement gives: the call's budget hint is
    # added on the same size.
    async with Runtime(Config()) as runtime:
        ctx = QueryContext(runtime, runtime.paths, tool=spec.name)
        envelope, chars = await _envelope(spec, ctx, 0, {"text": text, "measured": spec is LOCAL})
    assert envelope.data is not None
    assert chars == len(envelope.data.model_dump_json(exclude_none=True))


@pytest.mark.parametrize("spec", [LOCAL, REMOTE], ids=["local", "remote"])
async def test_a_size_redaction_changed_is_not_taken_from_the_way(spec: ToolSpec) -> None:
    # The finishing stage redacts before it cuts: a handler's tokens block then measured a
    # text longer than the one sent, so the size is measured again (None: a full dump).
    text = "token ghp_" + "A1b2C3d4" * 5
    async with Runtime(Config()) as runtime:
        ctx = QueryContext(runtime, runtime.paths, tool=spec.name)
        envelope, chars = await _envelope(spec, ctx, 0, {"text": text, "measured": spec is LOCAL})
    assert envelope.data is not None
    sent = envelope.data.model_dump_json(exclude_none=True)
    assert "ghp_" not in sent
    assert chars is None or chars == len(sent)
