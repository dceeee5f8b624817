"""A JSON answer nested deeper than any API's is an INVALID_RESPONSE, refused at the HTTP
client before a parser recurses into it: for GitHub, GitLab and a package registry alike
(before: RecursionError, an INTERNAL_ERROR). The hosts are replayed with respx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx

import octo
from octo.core.config import Config
from octo.transports.http.body import MAX_JSON_DEPTH
from octo.transports.http.body import json_depth

#: 100,000 levels of arrays, the body of a hostile or broken host.
DEEP = b"[" * 100_000 + b"]" * 100_000
ENV = {
    "GITHUB_API_URL": "https://gh.test/api/v3",
    "GITHUB_TOKEN": "test-token-not-real-7f3a9c",
    "GITLAB_HOST": "https://gitlab.test",
    "GITLAB_TOKEN": "glpat-test-not-real-3b9d",
    "OCTO_NPM_REGISTRY": "https://registry.test/",
    "OCTO_PYPI_INDEX": "https://registry.test/simple/",
    "PATH": "",
}


@pytest.fixture
def deep_hosts() -> Iterator[respx.MockRouter]:
    """Every request to any host answers the deep body, as JSON."""
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        mock.route().mock(
            return_value=httpx.Response(
                200, content=DEEP, headers={"content-type": "application/json"}
            )
        )
        yield mock


@pytest.mark.parametrize(
    ("tool", "query"),
    [
        ("githubGetCommit", {"owner": "o", "repo": "r", "sha": "abc1234"}),
        ("githubSearchIssues", {"owner": "o", "repo": "r"}),
        ("githubGetCommit", {"provider": "gitlab", "owner": "o", "repo": "r", "sha": "abc1234"}),
        ("githubSearchIssues", {"provider": "gitlab", "owner": "o", "repo": "r"}),
        ("packageSearch", {"name": "left-pad", "ecosystem": "npm"}),
    ],
    ids=["github-commit", "github-issues", "gitlab-commit", "gitlab-issues", "registry"],
)
async def test_json_nested_100000_deep_is_an_invalid_response(
    deep_hosts: respx.MockRouter, tool: str, query: dict[str, Any]
) -> None:
    async with octo.Gateway(Config.from_env(ENV)) as gateway:
        (row,) = (await gateway.call(tool, [query])).to_wire()["results"]
    assert deep_hosts.calls, "the host was asked"
    assert row["status"] == "error", row
    assert row["error"]["code"] == "INVALID_RESPONSE", row["error"]
    assert "nested deeper" in row["error"]["message"]


def test_depth_counts_brackets_outside_strings_only() -> None:
    assert json_depth(b'{"a": [1, {"b": "[[[[\\"{"}]}') == 3
    assert json_depth(b'"[[["') == 0
    assert json_depth(b"[]" * 1000) == 1
    assert json_depth(b"[" * (MAX_JSON_DEPTH + 1)) == MAX_JSON_DEPTH + 1
