"""A real Redis for the shared-state tests.

Under CI, ``.ci/run`` starts one and passes its URL as OCTO_TEST_REDIS_URL. Elsewhere a
session Redis is started from ``redis-server`` (or ``valkey-server``) on PATH. When none
can run, the tests fail under CI (a skipped shared-state suite would pass for nothing) and
are skipped elsewhere, saying why. Tests that stop a Redis start their own.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def unavailable(reason: str) -> None:
    """Fail under CI, skip elsewhere: a shared-state test never passes without a Redis."""
    if os.environ.get("CI"):
        pytest.fail(f"CI needs a Redis for the shared-state tests: {reason}")
    pytest.skip(reason)


def server_binary() -> str:
    found = shutil.which("redis-server") or shutil.which("valkey-server")
    if found is None:
        unavailable("no redis-server or valkey-server on PATH")
    assert found is not None
    return found


class RedisProcess:
    """A redis-server of a test's own, on a free loopback port, without persistence."""

    def __init__(self, directory: Path, *extra: str) -> None:
        self.binary = server_binary()
        self.directory = directory
        self.port = free_port()
        self.extra = extra
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisProcess:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
                *self.extra,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        client = redis.Redis.from_url(self.url)
        while time.monotonic() < deadline:
            try:
                client.ping()
                client.close()
                return self
            except redis.RedisError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.02)
        self.stop()
        unavailable(f"{self.binary} did not start on port {self.port}")
        return self

    def kill(self) -> None:
        """Gone at once (SIGKILL), as a crashed Redis."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a Redis every shared-state test may use (keys under its own prefix)."""
    given = os.environ.get("OCTO_TEST_REDIS_URL")
    if given:
        try:
            redis.Redis.from_url(given).ping()
        except redis.RedisError as exc:
            unavailable(f"OCTO_TEST_REDIS_URL does not answer: {exc}")
        yield given
        return
    server = RedisProcess(tmp_path_factory.mktemp("redis")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A Redis of this test's own, to kill, slow down or restart."""
    server = RedisProcess(tmp_path, "--enable-debug-command", "yes").start()
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
        return {key: value for key, value in zip(keys, values, strict=True) if value is not None}
    finally:
        client.close()
