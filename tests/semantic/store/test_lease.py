"""The embedding lease across processes, on both stores: ``embeddingRunning`` is true in every
process exactly while one of them embeds the index, and a second process waits for the first
rather than embedding the same chunks."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream

from octo import Config
from octo import Gateway
from octo.semantic.store.choice import open_store
from tests.semantic.conftest import FakeEmbeddings
from tests.semantic.conftest import one

#: Another process holding or reading the lease, driven line by line on its stdin.
CHILD = """
import sys, time
from octo.semantic.store.choice import open_store
import os
store = open_store(os.environ)
name = sys.argv[1]
for line in sys.stdin:
    command = line.strip()
    if command == "claim":
        print(store.claim(name, "other-process", time.time() + 60), flush=True)
    elif command == "release":
        store.release(name, "other-process")
        print("released", flush=True)
    elif command == "running":
        print(store.embedding_running(name, time.time()), flush=True)
"""


async def ask(child: Process, lines: TextReceiveStream, command: str) -> str:
    assert child.stdin is not None
    await child.stdin.send(f"{command}\n".encode())
    with anyio.fail_after(30):
        return (await lines.receive()).strip()


async def stats(gw: Gateway, name: str) -> dict[str, object]:
    found = await one(gw, "semanticIndexStats", {"indexName": name})
    detail: dict[str, object] = found["data"]["indexes"][0]
    return detail


@pytest.mark.slow
async def test_two_processes_see_one_embedding_lease(
    env: dict[str, str], tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    plain = Gateway(Config.from_env(env), roots=[tree])  # not entered: keyword side only
    try:
        built = await one(plain, "semanticIndexCodebase", {"path": ".", "indexName": "shared"})
        assert built["data"]["embedding"]["embeddedChunks"] == 0
    finally:
        await plain.aclose()
    child = await anyio.open_process(
        [sys.executable, "-c", CHILD, "shared"], env={**env, "PYTHONPATH": ":".join(sys.path)}
    )
    assert child.stdout is not None
    lines = TextReceiveStream(child.stdout)
    async with child, Gateway(Config.from_env(env), roots=[tree]) as gw:
        assert await ask(child, lines, "claim") == "True"
        assert (await stats(gw, "shared"))["embeddingRunning"] is True
        searched = await one(gw, "semanticSearchCode", {"query": "parse duration"})
        assert searched["data"]["searchContext"]["embeddingRunning"] is True

        # This process's index run follows the other's lease instead of embedding too.
        outcome: dict[str, object] = {}

        async def index_and_wait() -> None:
            query = {"path": ".", "indexName": "shared", "waitForEmbeddings": True}
            outcome.update(await one(gw, "semanticIndexCodebase", query))

        async with anyio.create_task_group() as group:
            group.start_soon(index_and_wait)
            await anyio.sleep(3)
            assert fake_embeddings.texts == [], "nothing embedded while the other holds the lease"
            assert (await stats(gw, "shared"))["embeddedChunks"] == 0
            assert await ask(child, lines, "release") == "released"
        assert outcome["status"] == "success", outcome
        assert outcome["data"]["embedding"]["status"] == "complete"  # type: ignore[index]
        assert (await stats(gw, "shared"))["embeddingRunning"] is False
        assert await ask(child, lines, "running") == "False"

        # And the other way round: a lease this process holds is seen by the other.
        store = open_store(env)
        assert store.claim("shared", "this-process", time.time() + 60)
        assert await ask(child, lines, "running") == "True"
        assert await ask(child, lines, "claim") == "False"
        store.release("shared", "this-process")
        assert await ask(child, lines, "running") == "False"
        store.close()
        assert child.stdin is not None
        await child.stdin.aclose()
