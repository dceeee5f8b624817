"""The content-handle store: time to live on an injected clock, bounds, unguessable names."""

from __future__ import annotations

from octo.core.handles import MemoryHandleStore
from octo.core.handles import Origin

ORIGIN = Origin("localGetFileContent", {"path": "a.py"}, ("/root",))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_handle_lives_its_ttl_then_remembers_its_call() -> None:
    clock = Clock()
    store = MemoryHandleStore(900, clock=clock)
    handle = await store.put("text", ORIGIN)
    clock.now += 899
    live = await store.get(handle)
    assert live is not None and (live.content, live.origin) == ("text", ORIGIN)
    clock.now += 1
    expired = await store.get(handle)
    assert expired is not None and expired.content is None and expired.origin == ORIGIN
    assert len(store) == 0


async def test_unknown_handles_are_none() -> None:
    store = MemoryHandleStore(900)
    await store.put("text", ORIGIN)
    assert await store.get("not-a-handle") is None


async def test_handles_are_unguessable_and_distinct() -> None:
    store = MemoryHandleStore(900)
    handles = {await store.put("x", ORIGIN) for _ in range(200)}
    assert len(handles) == 200
    assert all(len(h) >= 24 and h.replace("-", "").replace("_", "").isalnum() for h in handles)


async def test_the_oldest_go_first_beyond_the_bounds() -> None:
    store = MemoryHandleStore(900, max_entries=3, max_chars=10)
    first = await store.put("aaaa", ORIGIN)
    second = await store.put("bbbb", ORIGIN)
    third = await store.put("cccc", ORIGIN)  # 12 characters: the first goes
    gone, kept = await store.get(first), await store.get(third)
    assert gone is not None and gone.content is None
    assert kept is not None and kept.content == "cccc"
    assert (await store.get(second)) is not None
    for _ in range(3):
        await store.put("d", ORIGIN)
    assert len(store) == 3


async def test_content_larger_than_the_store_is_not_kept() -> None:
    store = MemoryHandleStore(900, max_chars=4)
    handle = await store.put("too long", ORIGIN)
    stored = await store.get(handle)
    assert stored is not None and stored.content is None
