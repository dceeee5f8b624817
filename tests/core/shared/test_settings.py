"""The shared store's settings, what travels through it, and that a process on its own
never loads a Redis client."""

from __future__ import annotations

import subprocess
import sys

import pytest

from octo.core.config import Config
from octo.core.config import ConfigError
from octo.core.errors import NotFoundError
from octo.core.errors import RateLimitError
from octo.core.shared.codec import error_document
from octo.core.shared.codec import error_from
from octo.core.shared.codec import pack
from octo.core.shared.codec import unpack


def test_no_url_no_shared_store() -> None:
    assert Config.from_env({}).shared is None


def test_settings_from_the_environment_never_show_the_password() -> None:
    shared = Config.from_env(
        {
            "OCTO_REDIS_URL": "rediss://:s3cret-pass@cache.internal:6380/2",
            "OCTO_REDIS_PREFIX": "team-a:",
            "OCTO_REDIS_TIMEOUT": "0.1",
            "OCTO_REDIS_MAX_VALUE": "256k",
        }
    ).shared
    assert shared is not None
    assert (shared.prefix, shared.timeout, shared.max_value_bytes) == ("team-a:", 0.1, 262144)
    assert shared.where == "rediss://cache.internal:6380"
    password = Config.from_env(
        {"OCTO_REDIS_URL": "redis://cache:6379", "OCTO_REDIS_PASSWORD": "from-env"}
    ).shared
    assert password is not None and password.password == "from-env"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("OCTO_REDIS_URL", "http://cache:6379"),
        ("OCTO_REDIS_TIMEOUT", "soon"),
        ("OCTO_REDIS_MAX_VALUE", "lots"),
    ],
)
def test_an_unusable_setting_names_its_variable(name: str, value: str) -> None:
    env = {"OCTO_REDIS_URL": "redis://cache:6379", name: value}
    with pytest.raises(ConfigError, match=name):
        Config.from_env(env)


def test_values_pack_compactly_and_compress_when_long() -> None:
    short, long = {"a": 1}, {"text": "line of code\n" * 1000}
    assert pack(short) == b'j{"a":1}' and unpack(pack(short)) == short
    assert pack(long).startswith(b"z") and len(pack(long)) < 500
    assert unpack(pack(long)) == long
    with pytest.raises(ValueError):
        unpack(b"\x80\x04pickle")


def test_an_error_travels_with_its_class_and_fields() -> None:
    error = RateLimitError("quota used up", reset_at=1_800_000_000.0, hints=["wait"])
    document = error_document(error)
    assert document is not None
    back = error_from(unpack(pack(document)))
    assert isinstance(back, RateLimitError) and back is not error
    assert (back.message, back.hints, back.reset_at, str(back)) == (
        "quota used up",
        ["wait"],
        1_800_000_000.0,
        "quota used up",
    )
    assert error_from({"class": "os:system", "attributes": {}}) is None
    assert isinstance(error_from(error_document(NotFoundError("x"))), NotFoundError)


@pytest.mark.slow
def test_a_process_on_its_own_never_imports_a_redis_client(tmp_path: object) -> None:
    script = """
import sys, anyio, octo
async def main():
    async with octo.Gateway(roots=["."]) as gw:
        await gw.local_search_code([{"pattern": "def main", "path": "."}])
anyio.run(main)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("redis", "prometheus_client")
             or m == "octo.core.shared.redis_store"))
"""
    env = {"PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "[]"
    shared = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**env, "OCTO_REDIS_URL": "redis://127.0.0.1:9/0"},
        check=True,
    )
    assert "'octo.core.shared.redis_store'" in shared.stdout
