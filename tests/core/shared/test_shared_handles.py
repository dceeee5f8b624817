"""Content handles one replica gives out are read whole on another; their roots still bind
them; what is too large for Redis stays on the replica that cut it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

import octo
from octo.core.config import Config
from octo.core.handles import Origin
from octo.core.shared.handles import SharedHandleStore


async def one(gateway: octo.Gateway, tool: str, query: dict[str, Any], **kw: Any) -> dict[str, Any]:
    row: dict[str, Any] = (await gateway.call(tool, [query], **kw)).to_wire()["results"][0]
    return row


def team(root: Path, redis_url: str, prefix: str, **extra: str) -> Config:
    env = {"OCTO_REDIS_URL": redis_url, "OCTO_REDIS_PREFIX": prefix, **extra}
    return replace(Config.from_env(env), roots=(root,), max_tokens=1000)


def big_file(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    (root / "big.py").write_text("".join(f"line {n}: {'x' * 60}\n" for n in range(1, 401)))
    (root / "inner").mkdir()
    return root


async def test_a_handle_from_one_replica_reads_whole_on_another(
    tmp_path: Path, redis_url: str, prefix: str
) -> None:
    root = big_file(tmp_path)
    config = team(root, redis_url, prefix)
    async with octo.Gateway(config) as one_replica:
        read = await one(one_replica, "localGetFileContent", {"path": "big.py"})
    handle = read["data"]["contentHandle"]
    async with octo.Gateway(config) as other:
        first = await one(other, "getCachedContent", {"handle": handle})
        pages = [first] + [
            await one(other, "getCachedContent", {"handle": handle, "page": page})
            for page in range(2, first["data"]["totalPages"] + 1)
        ]
        # A client's roots only narrow the gateway's: other roots are narrower ones.
        elsewhere = await one(other, "getCachedContent", {"handle": handle}, roots=[root / "inner"])
    assert "".join(p["data"]["content"] for p in pages) == (root / "big.py").read_text()
    assert elsewhere["status"] == "error" and elsewhere["error"]["code"] == "NOT_FOUND"


async def test_content_over_the_value_limit_stays_local(
    tmp_path: Path, redis_url: str, prefix: str
) -> None:
    root = big_file(tmp_path)
    config = team(root, redis_url, prefix, OCTO_REDIS_MAX_VALUE="1k")
    async with octo.Gateway(config) as one_replica:
        handle = (await one(one_replica, "localGetFileContent", {"path": "big.py"}))["data"][
            "contentHandle"
        ]
        here = await one(one_replica, "getCachedContent", {"handle": handle})
        async with octo.Gateway(config) as other:
            there = await one(other, "getCachedContent", {"handle": handle})
    assert here["status"] == "success"
    assert there["status"] == "error" and there["error"]["code"] == "NOT_FOUND"


async def test_an_expired_handle_names_its_call_on_every_replica(
    tmp_path: Path, redis_url: str, prefix: str
) -> None:
    config = team(tmp_path, redis_url, prefix)
    async with octo.Gateway(config) as gateway:
        store = gateway.runtime.handles
        assert isinstance(store, SharedHandleStore)
        store.ttl = 0.001
        origin = Origin("localGetFileContent", {"path": "a.py"}, None, gateway.runtime.identity)
        handle = await store.put("text", origin)
        await anyio.sleep(0.02)
        gone = await one(gateway, "getCachedContent", {"handle": handle})
    assert gone["error"]["code"] == "NOT_FOUND"
    assert 'localGetFileContent {"path":"a.py"}' in gone["hints"][0]
