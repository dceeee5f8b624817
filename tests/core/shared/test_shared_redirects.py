"""The shared state on top of the redirect follower: an answer GitHub redirected to another
origin (re-sent there without the token) is fetched once for every replica, each of them
says it was re-sent, and the token reaches neither the other origin nor Redis."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

import octo
from octo.core.config import Config
from tests.core.shared.conftest import stored
from tests.recording_server import RecordingServer
from tests.security.conftest import Reply
from tests.security.conftest import serve_recording

TOKEN = "cred-not-real-team-5c2e91"
TEXT = "# moved\n\nServed by the other origin.\n"


def file_answer(_path: str) -> Reply:
    # Slow enough that every identical query arrives while the first is in flight.
    time.sleep(0.3)
    encoded = base64.b64encode(TEXT.encode()).decode()
    body = {"type": "file", "encoding": "base64", "content": encoded, "sha": "5e1f"}
    return Reply(body={**body, "size": len(TEXT)})


@pytest.fixture
def elsewhere() -> Iterator[RecordingServer]:
    yield from serve_recording(file_answer)


@pytest.fixture
def configured(elsewhere: RecordingServer) -> Iterator[RecordingServer]:
    """The configured GitHub: redirects every request to the other origin."""
    yield from serve_recording(
        lambda path: Reply(302, headers={"location": elsewhere.origin + path})
    )


@pytest.mark.slow
async def test_a_redirected_answer_is_fetched_once_for_every_replica(
    configured: RecordingServer,
    elsewhere: RecordingServer,
    tmp_path: Path,
    redis_url: str,
    prefix: str,
) -> None:
    env = {"HOME": str(tmp_path), "PATH": "", "GITHUB_API_URL": configured.origin}
    env |= {"GITHUB_TOKEN": TOKEN, "OCTO_REDIS_URL": redis_url, "OCTO_REDIS_PREFIX": prefix}
    config = Config.from_env(env)
    query = {"owner": "o", "repo": "r", "path": "README.md"}
    rows: list[dict[str, Any]] = []
    with anyio.fail_after(30):
        async with octo.Gateway(config) as one, octo.Gateway(config) as two:

            async def ask(gateway: octo.Gateway) -> None:
                response = await gateway.github_get_file_content([query])
                rows.extend(response.to_wire()["results"])

            async with anyio.create_task_group() as tg:
                for index in range(10):
                    tg.start_soon(ask, (one, two)[index % 2])
    assert len(configured.requests) == 1 and len(elsewhere.requests) == 1
    assert "authorization" in configured.headers_seen()[0]
    assert not any(TOKEN in value for value in elsewhere.headers_seen()[0].values())
    assert [row["status"] for row in rows] == ["success"] * 10
    assert {row["data"]["content"] for row in rows} == {TEXT}
    assert all(any("re-sent there without" in hint for hint in row["hints"]) for row in rows)
    kept = stored(redis_url, prefix)
    assert kept and not any(TOKEN.encode() in key + value for key, value in kept.items())
