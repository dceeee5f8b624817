"""ResultCache: TTL, bounds in entries and bytes, coalescing, stale entries for revalidation."""

from __future__ import annotations

import anyio
import pytest

from octo.core.cache import ResultCache


async def test_get_or_load_caches_and_reports_hits() -> None:
    cache = ResultCache(max_entries=10, max_bytes=10_000)
    calls = 0

    async def load() -> str:
        nonlocal calls
        calls += 1
        return "value"

    assert await cache.get_or_load("k", 60, load) == ("value", False)
    assert await cache.get_or_load("k", 60, load) == ("value", True)
    assert calls == 1


async def test_expired_entry_is_not_fresh_but_kept_for_revalidation() -> None:
    cache = ResultCache(max_entries=10, max_bytes=10_000)
    cache.set("k", "old", ttl=0, etag='"abc"')
    assert cache.get("k") is None
    entry = cache.entry("k")
    assert entry is not None and entry.etag == '"abc"' and not entry.fresh


def test_bounded_by_entry_count_evicting_least_recently_used() -> None:
    cache = ResultCache(max_entries=2, max_bytes=10_000)
    cache.set("a", "1", 60)
    cache.set("b", "2", 60)
    assert cache.get("a") == "1"  # touch a: b is now least recently used
    cache.set("c", "3", 60)
    assert len(cache) == 2
    assert cache.get("b") is None
    assert cache.get("a") == "1" and cache.get("c") == "3"


def test_bounded_by_bytes() -> None:
    cache = ResultCache(max_entries=100, max_bytes=100)
    for i in range(10):
        cache.set(f"k{i}", "x" * 30, 60)
    assert len(cache) == 3
    cache.set("huge", "x" * 1000, 60)
    assert cache.get("huge") is None


async def test_concurrent_identical_loads_run_once() -> None:
    cache = ResultCache(max_entries=10, max_bytes=10_000)
    calls = 0

    async def load() -> int:
        nonlocal calls
        calls += 1
        await anyio.sleep(0.05)
        return 42

    results: list[tuple[int, bool]] = []

    async def one() -> None:
        results.append(await cache.get_or_load("k", 60, load))

    async with anyio.create_task_group() as tg:
        for _ in range(10):
            tg.start_soon(one)
    assert calls == 1
    assert [value for value, _ in results] == [42] * 10


async def test_coalesced_waiters_share_the_leaders_error() -> None:
    cache = ResultCache(max_entries=10, max_bytes=10_000)

    async def load() -> int:
        await anyio.sleep(0.02)
        raise ValueError("upstream down")

    errors: list[BaseException] = []

    async def one() -> None:
        try:
            await cache.get_or_load("k", 60, load)
        except ValueError as exc:
            errors.append(exc)

    async with anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(one)
    assert len(errors) == 3
    assert cache.get("k") is None


async def test_a_cancelled_leader_hands_over_to_a_waiter() -> None:
    cache = ResultCache(max_entries=10, max_bytes=10_000)
    calls = 0

    async def load() -> str:
        nonlocal calls
        calls += 1
        await anyio.sleep(0.05)
        return "done"

    async with anyio.create_task_group() as tg:
        leader_scope = anyio.CancelScope()

        async def leader() -> None:
            with leader_scope:
                await cache.get_or_load("k", 60, load)

        got: list[str] = []

        async def waiter() -> None:
            got.append((await cache.get_or_load("k", 60, load))[0])

        tg.start_soon(leader)
        await anyio.sleep(0.01)
        tg.start_soon(waiter)
        await anyio.sleep(0.01)
        leader_scope.cancel()
    assert got == ["done"]
    assert calls == 2


@pytest.mark.parametrize("value", ["text", b"bytes"])
def test_size_of_text_and_bytes_is_their_length(value: str | bytes) -> None:
    fits = ResultCache(max_entries=10, max_bytes=len(value))
    fits.set("k", value, 60)
    assert fits.get("k") == value
    too_small = ResultCache(max_entries=10, max_bytes=len(value) - 1)
    too_small.set("k", value, 60)
    assert too_small.get("k") is None
