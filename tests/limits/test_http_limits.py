"""Hosts that answer too much or too little: octo reads a body only up to what its kind of
answer may need and closes the connection, and an answer cut off, malformed or endlessly
redirected fails with its own code (INVALID_RESPONSE, FILE_TOO_LARGE), never as a crash
nor as a success holding part of the content. A real local HTTP server plays the host."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import octo
from octo.core.config import Config
from tests.limits.hostile_server import HostileServer

# Bytes a closed connection may still have carried: socket buffers on both sides.
IN_FLIGHT = 32 * 1024 * 1024


@pytest.fixture
def host() -> Iterator[HostileServer]:
    server = HostileServer().start()
    yield server
    server.stop()


async def _call(host: HostileServer, tool: str, query: dict[str, Any]) -> dict[str, Any]:
    env = {
        "GITHUB_API_URL": host.url,
        "GITLAB_HOST": f"{host.url}/api/v4",
        "OCTO_NPM_REGISTRY": f"{host.url}/npm/",
        "PATH": "/usr/bin:/bin",
    }
    async with octo.Gateway(Config.from_env(env)) as gateway:
        response = await gateway.call(tool, [query])
    (row,) = response.to_wire()["results"]
    result: dict[str, Any] = row
    return result


def _github(path: str, **extra: Any) -> dict[str, Any]:
    return {"owner": "o", "repo": "r", "path": path, **extra}


def _gitlab(path: str, **extra: Any) -> dict[str, Any]:
    return {"provider": "gitlab", "owner": "o", "repo": "r", "path": path, **extra}


async def test_a_gigabyte_github_answer_is_read_no_further_than_its_cap(
    host: HostileServer,
) -> None:
    row = await _call(host, "githubGetFileContent", _github("huge.txt"))
    assert row["error"]["code"] == "INVALID_RESPONSE"
    assert host.sent_to("huge") < 10 * 1024 * 1024 + IN_FLIGHT  # before: all of it


async def test_a_redirect_is_followed_without_its_body_and_the_last_hop_is_capped(
    host: HostileServer,
) -> None:
    row = await _call(host, "githubGetFileContent", _github("hop.txt"))
    assert row["error"]["code"] == "INVALID_RESPONSE"
    assert host.sent_to("hop") < IN_FLIGHT  # the redirect's own gigabyte is never read
    assert host.sent_to("huge") < 10 * 1024 * 1024 + IN_FLIGHT


async def test_a_gigabyte_gitlab_file_is_refused_before_it_is_downloaded(
    host: HostileServer,
) -> None:
    row = await _call(host, "githubGetFileContent", _gitlab("huge.txt"))
    assert row["error"]["code"] == "FILE_TOO_LARGE"
    assert str(1024**3) in row["error"]["message"]  # known from Content-Length
    assert host.sent_to("huge") < IN_FLIGHT


async def test_a_gitlab_file_of_unknown_length_is_cut_at_the_file_limit(
    host: HostileServer,
) -> None:
    whole = await _call(host, "githubGetFileContent", _gitlab("unsized.txt"))
    assert whole["error"]["code"] == "FILE_TOO_LARGE"
    assert any("startLine/endLine" in hint for hint in whole["hints"])
    assert host.sent_to("unsized") < 300 * 1024 + IN_FLIGHT


async def test_gigabyte_package_metadata_is_read_no_further_than_its_cap(
    host: HostileServer,
) -> None:
    row = await _call(
        host, "packageSearch", {"name": "huge", "ecosystem": "npm", "npmFetchMetadata": True}
    )
    assert row["error"]["code"] == "INVALID_RESPONSE"
    assert host.sent_to("huge") < 32 * 1024 * 1024 + IN_FLIGHT


@pytest.mark.parametrize(
    ("tool", "query", "word"),
    [
        ("githubGetFileContent", _github("truncated.txt"), "truncated"),
        ("githubGetFileContent", _github("cut.txt"), "cut"),
        ("githubGetFileContent", _github("loop.txt"), "loop"),
        ("githubGetFileContent", _gitlab("short.txt"), "short"),
        ("githubViewRepoStructure", {"owner": "o", "repo": "r", "branch": "truncated"}, "t"),
    ],
    ids=["truncated-json", "body-cut-off", "endless-redirects", "gitlab-short-file", "tree"],
)
async def test_answers_octo_cannot_use_are_invalid_responses(
    host: HostileServer, tool: str, query: dict[str, Any], word: str
) -> None:
    row = await _call(host, tool, query)
    assert row["status"] == "error"  # before: INTERNAL_ERROR, or part of the file as success
    assert row["error"]["code"] == "INVALID_RESPONSE", row["error"]
    assert row["hints"]
