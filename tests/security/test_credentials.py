"""No credential of any provider reaches an origin other than the configured one: a redirect
to another origin is re-issued without credentials, and the answer says so. Two real local
HTTP servers on two ports are the two origins."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from octo.core.config import Config
from octo.faces.library import Gateway
from tests.recording_server import RecordingServer
from tests.security.conftest import Reply
from tests.security.conftest import serve_recording

TOKEN = "cred-not-real-7d1e5a"
MANIFEST = {"name": "left-pad", "version": "1.3.0", "description": "pads"}


@pytest.fixture
def elsewhere() -> Iterator[RecordingServer]:
    """The other origin: answers an npm manifest to anything."""
    yield from serve_recording(lambda _path: Reply(body=MANIFEST))


@pytest.fixture
def configured(elsewhere: RecordingServer) -> Iterator[RecordingServer]:
    """The configured origin: redirects every request to the other origin."""
    yield from serve_recording(
        lambda path: Reply(302, headers={"location": elsewhere.origin + path})
    )


def _setup(provider: str, origin: RecordingServer, home: Path) -> tuple[dict[str, str], str, Any]:
    """Environment, tool and query that send ``provider``'s credentials to ``origin``."""
    env = {"HOME": str(home), "PATH": ""}
    host = f"127.0.0.1:{origin.port}"
    if provider == "github":
        env |= {"GITHUB_API_URL": origin.origin, "GITHUB_TOKEN": TOKEN}
        return env, "githubGetFileContent", {"owner": "o", "repo": "r", "path": "README.md"}
    if provider == "gitlab":
        env |= {"GITLAB_HOST": origin.origin, "GITLAB_TOKEN": TOKEN}
        query = {"owner": "g", "repo": "r", "path": "README.md", "provider": "gitlab"}
        return env, "githubGetFileContent", query
    if provider == "npm":
        (home / ".npmrc").write_text(f"//{host}/:_authToken={TOKEN}\n")
        env |= {"OCTO_NPM_REGISTRY": f"{origin.origin}/"}
        return env, "packageSearch", {"name": "left-pad", "ecosystem": "npm"}
    env |= {"OCTO_PYPI_INDEX": f"http://reader:{TOKEN}@{host}/simple/"}
    return env, "packageSearch", {"name": "left-pad", "ecosystem": "python"}


def _carries_credentials(headers: dict[str, str]) -> bool:
    basic = base64.b64encode(f"reader:{TOKEN}".encode()).decode()
    return any(TOKEN in value or basic in value for value in headers.values())


async def _call(env: dict[str, str], tool: str, query: Any) -> dict[str, Any]:
    async with Gateway(Config.from_env(env)) as gateway:
        response = await gateway.call(tool, [query])
    row: dict[str, Any] = response.to_wire()["results"][0]
    return row


@pytest.mark.parametrize("provider", ["github", "gitlab", "npm", "python"])
async def test_a_redirect_to_another_origin_carries_no_credential(
    provider: str, configured: RecordingServer, elsewhere: RecordingServer, tmp_path: Path
) -> None:
    env, tool, query = _setup(provider, configured, tmp_path)
    await _call(env, tool, query)
    assert configured.requests and _carries_credentials(configured.headers_seen()[0])
    assert elsewhere.requests, "the redirect was not followed"
    for headers in elsewhere.headers_seen():
        assert not _carries_credentials(headers), headers
        assert "authorization" not in headers and "private-token" not in headers


async def test_the_answer_says_it_was_re_sent_without_credentials(
    configured: RecordingServer, tmp_path: Path
) -> None:
    env, tool, query = _setup("npm", configured, tmp_path)
    row = await _call(env, tool, query)
    assert row["status"] == "success"
    assert row["data"]["packages"][0]["name"] == "left-pad"
    assert any("re-sent there without" in hint for hint in row["hints"])


async def test_a_redirect_within_the_origin_keeps_credentials(tmp_path: Path) -> None:
    def answer(path: str) -> Reply:
        if path.startswith("/moved/"):
            return Reply(body=MANIFEST)
        return Reply(301, headers={"location": "/moved" + path})

    for origin in serve_recording(answer):
        env, tool, query = _setup("npm", origin, tmp_path)
        row = await _call(env, tool, query)
        assert row["status"] == "success"
        assert [path.startswith("/moved/") for path, _ in origin.requests] == [False, True]
        assert all(_carries_credentials(headers) for headers in origin.headers_seen())
        assert not any("re-sent" in hint for hint in row.get("hints", []))
