"""A real Redis for the shared-state tests.

Under CI, ``.ci/run`` starts one and passes its URL as OCTO_TEST_REDIS_URL. Elsewhere a
Redis per test module is started from ``redis-server`` (or ``valkey-server``) on PATH.
When none can run, the tests fail under CI (a skipped shared-state suite would pass for
nothing) and are skipped elsewhere, saying why. Tests that stop a Redis start their own.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest
import redis

from tests.core.shared.replicas import RedisProcess


def unavailable(reason: str) -> NoReturn:
    """Fail under CI, skip elsewhere: a shared-state test never passes without a Redis."""
    if os.environ.get("CI"):
        pytest.fail(f"CI needs a Redis for the shared-state tests: {reason}")
    pytest.skip(reason)


def started(directory: Path, *, debug: bool = False) -> RedisProcess:
    try:
        return RedisProcess(directory, debug=debug).start()
    except RuntimeError as exc:
        unavailable(str(exc))


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a Redis every shared-state test may use (keys under its own prefix); one
    per module when this suite starts it, so no Redis outlives its module as a child of the
    test process (the LSP tests count every live child as a leftover)."""
    given = os.environ.get("OCTO_TEST_REDIS_URL")
    if given:
        try:
            redis.Redis.from_url(given).ping()
        except redis.RedisError as exc:
            unavailable(f"OCTO_TEST_REDIS_URL does not answer: {exc}")
        yield given
        return
    server = started(tmp_path_factory.mktemp("redis"))
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A Redis of this test's own, to kill, slow down or restart."""
    server = started(tmp_path, debug=True)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def prefix() -> str:
    """A key prefix of this test's own: tests sharing a Redis never see each other."""
    return f"octo-test-{uuid.uuid4().hex[:12]}:"


def stored(url: str, prefix: str) -> dict[bytes, bytes]:
    """Every key under ``prefix`` with its value."""
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*"))
        values = client.mget(keys) if keys else []
        return {
            key: value for key, value in zip(keys, values, strict=True) if isinstance(value, bytes)
        }
    finally:
        client.close()
