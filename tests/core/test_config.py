"""Config.from_env: every OCTO_* variable, and unusable values named clearly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from octo.core.config import Config
from octo.core.config import ConfigError


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
        "OCTO_GIT_TIME_LIMIT": "0.5",
        "GITHUB_TOKEN": "test-token-not-real",
    }
    config = Config.from_env(env)
    assert config.roots == (Path("/a"), Path("/b"))
    assert (config.max_tokens, config.chars_per_token, config.query_timeout) == (8000, 3, 2.5)
    assert (config.cache_max_entries, config.cache_max_bytes) == (10, 4096)
    # Spec 003: rg's timeout is hard-capped at 30 s.
    assert config.rg_timeout_ms == 30_000
    assert config.rg_max_filesize == "1M"
    assert config.git_time_limit == 0.5
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


async def test_a_bad_provider_setting_fails_that_query_alone(tmp_path: Path) -> None:
    import octo

    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    config = Config.from_env({"OCTO_LSP_MAX_SERVERS": "many"})
    async with octo.Gateway(config, roots=[tmp_path]) as gw:
        lsp = await gw.lsp_goto_definition(
            [{"uri": str(tmp_path / "a.py"), "symbolName": "f", "lineHint": 1}]
        )
        search = await gw.local_search_code([{"pattern": "def f", "path": str(tmp_path)}])
    error = lsp.results[0].error
    assert error is not None and error.code == "TOOL_NOT_AVAILABLE"
    assert "OCTO_LSP_MAX_SERVERS" in error.message
    assert search.results[0].status == "success"


@pytest.mark.parametrize(
    ("variable", "tool", "query"),
    [
        ("OCTO_GITHUB_TTL_REPO_SEARCH", "githubSearchRepositories", {"keywordsToSearch": ["x"]}),
        ("OCTO_PACKAGE_CACHE_TTL", "packageSearch", {"name": "x", "ecosystem": "npm"}),
    ],
)
async def test_bad_remote_settings_name_the_variable(
    variable: str, tool: str, query: dict[str, object]
) -> None:
    import octo

    env = {
        variable: "soon",
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "OCTO_NPM_REGISTRY": "http://127.0.0.1:9/",
    }
    async with octo.Gateway(Config.from_env(env)) as gw:
        answer = await gw.call(tool, [query])
    error = answer.results[0].error
    assert error is not None and error.code == "TOOL_NOT_AVAILABLE"
    assert variable in error.message


def test_handle_ttl_is_read_and_checked() -> None:
    assert Config.from_env({}).handle_ttl == 900
    assert Config.from_env({"OCTO_HANDLE_TTL": "30"}).handle_ttl == 30
    with pytest.raises(ConfigError, match="OCTO_HANDLE_TTL"):
        Config.from_env({"OCTO_HANDLE_TTL": "0"})
