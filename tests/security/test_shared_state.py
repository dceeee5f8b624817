"""Shared state under attack, on a real Redis: a content handle is bound to the credential
identity that minted it (another token, or none, gets NOT_FOUND and never the other
caller's query); values read from Redis are untrusted (a zlib bomb is a miss, within a
bounded amount of memory); a lease without an expiry does not hold a question hostage."""

from __future__ import annotations

import tracemalloc
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
import redis.asyncio as redis

import octo
from octo.core.cache import ResultCache
from octo.core.config import Config
from octo.core.meters import Meters
from octo.core.shared.codec import MAX_UNPACKED_BYTES
from octo.core.shared.redis_store import RedisStore
from octo.transports.http.remote_state import RemoteState
from octo.transports.http.remote_state import Shared


def _team(root: Path, redis_url: str, prefix: str, **tokens: str) -> Config:
    env = {"OCTO_REDIS_URL": redis_url, "OCTO_REDIS_PREFIX": prefix, **tokens}
    return replace(Config.from_env(env), roots=(root,), max_tokens=500)


async def _one(gateway: octo.Gateway, tool: str, query: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = (await gateway.call(tool, [query])).to_wire()["results"][0]
    return row


async def test_a_handle_is_bound_to_its_credential_identity(
    tmp_path: Path, redis_url: str, prefix: str
) -> None:
    (tmp_path / "private.py").write_text("".join(f"line {n}: {'y' * 60}\n" for n in range(400)))
    mine = _team(tmp_path, redis_url, prefix, GITHUB_TOKEN="token-a-not-real-0123456789")
    async with octo.Gateway(mine) as replica:
        read = await _one(replica, "localGetFileContent", {"path": "private.py"})
    handle = read["data"]["contentHandle"]
    others = {
        "another token": _team(tmp_path, redis_url, prefix, GITHUB_TOKEN="token-b-not-real-987"),
        "no token": _team(tmp_path, redis_url, prefix),
    }
    for config in others.values():
        async with octo.Gateway(config) as other:
            row = await _one(other, "getCachedContent", {"handle": handle})
        assert row["status"] == "error" and row["error"]["code"] == "NOT_FOUND"
        assert "private.py" not in str(row)
    async with octo.Gateway(mine) as same:
        row = await _one(same, "getCachedContent", {"handle": handle})
    assert row["status"] == "success"


@pytest.mark.slow
async def test_a_zlib_bomb_in_redis_is_a_miss_in_bounded_memory(
    tmp_path: Path, redis_url: str, prefix: str
) -> None:
    squeeze = zlib.compressobj(9)
    chunk = b"0" * (1 << 20)
    bomb = b"z" + b"".join(squeeze.compress(chunk) for _ in range(256)) + squeeze.flush()
    assert len(bomb) < (1 << 20)
    client = redis.Redis.from_url(redis_url)
    async with client:
        await client.set(f"{prefix}h:planted-handle", bomb)
    async with octo.Gateway(_team(tmp_path, redis_url, prefix)) as gateway:
        tracemalloc.start()
        try:
            row = await _one(gateway, "getCachedContent", {"handle": "planted-handle"})
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert row["error"]["code"] == "NOT_FOUND"
    # 256 MiB unpacked without the cap; with it, decompression stops past the cap.
    assert peak < 3 * MAX_UNPACKED_BYTES


async def test_a_lease_without_expiry_is_not_honoured(redis_url: str, prefix: str) -> None:
    config = Config.from_env({"OCTO_REDIS_URL": redis_url, "OCTO_REDIS_PREFIX": prefix})
    assert config.shared is not None
    store = RedisStore(config.shared, Meters())
    try:
        state = RemoteState(ResultCache(100, 10**6), store, Meters(), "https://host.test", {})
        name = state._name("scope", "key")
        client = redis.Redis.from_url(redis_url)
        async with client:
            # Planted: a holder that never renews, under a key that never expires.
            await client.set(f"{prefix}l:{name}", "nobody")
            # A lease of a live holder (its key expires within a lease) is still honoured.
            await client.set(f"{prefix}l:live", "holder", px=2000)

        async def load() -> int:
            return 42

        with anyio.fail_after(5):
            value = await state.coalesce(
                "key", "n", "scope", load, value_of=Shared, answer=lambda s, _c: s.value
            )
        assert value == 42
        assert await store.claim("l:live", "me", 3.0) == "holder"
    finally:
        await store.aclose()
