"""Config.from_env: every OCTO_* variable, and unusable values named clearly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from octo.config import Config, ConfigError


def test_defaults_without_variables() -> None:
    config = Config.from_env({})
    assert config.roots == ()
    assert (config.max_tokens, config.chars_per_token) == (5000, 4)
    assert (config.rg_timeout_ms, config.rg_max_filesize) == (4000, "10M")


def test_every_variable_is_read() -> None:
    env = {
        "OCTO_ROOTS": os.pathsep.join(["/a", "", "/b"]),
        "OCTO_MAX_TOKENS": "8000",
        "OCTO_CHARS_PER_TOKEN": "3",
        "OCTO_QUERY_TIMEOUT": "2.5",
        "OCTO_CACHE_MAX_ENTRIES": "10",
        "OCTO_CACHE_MAX_BYTES": "4096",
        "OCTO_RG_TIMEOUT_MS": "99999",
        "OCTO_RG_MAX_FILESIZE": "1M",
        "GITHUB_TOKEN": "test-token-not-real",
    }
    config = Config.from_env(env)
    assert config.roots == (Path("/a"), Path("/b"))
    assert (config.max_tokens, config.chars_per_token, config.query_timeout) == (8000, 3, 2.5)
    assert (config.cache_max_entries, config.cache_max_bytes) == (10, 4096)
    # Spec 003: rg's timeout is hard-capped at 30 s.
    assert config.rg_timeout_ms == 30_000
    assert config.rg_max_filesize == "1M"
    assert config.env["GITHUB_TOKEN"] == "test-token-not-real"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("OCTO_MAX_TOKENS", "abc", "OCTO_MAX_TOKENS must be a whole number, got 'abc'"),
        ("OCTO_MAX_TOKENS", "0", "OCTO_MAX_TOKENS must be between 1 and"),
        ("OCTO_CHARS_PER_TOKEN", "-2", "OCTO_CHARS_PER_TOKEN must be between 1 and"),
        ("OCTO_QUERY_TIMEOUT", "soon", "OCTO_QUERY_TIMEOUT must be a number of seconds"),
        ("OCTO_QUERY_TIMEOUT", "0", "OCTO_QUERY_TIMEOUT must be above 0"),
        ("OCTO_RG_MAX_FILESIZE", "huge", "OCTO_RG_MAX_FILESIZE: 'huge' is not a size"),
    ],
)
def test_unusable_values_name_the_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Config.from_env({name: value})
    assert str(caught.value).startswith(message)
