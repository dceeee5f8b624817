"""Hand-written GitLab answers (recordings/, shapes from GitLab's API docs) replayed with respx."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import respx

from octo.codehosts.hosts.gitlab.backend import GitLabBackend
from octo.codehosts.hosts.host import CodeHost
from tests.codehosts.conftest import replay_by_url

RECORDINGS = Path(__file__).parent / "recordings"
HOST = "https://gl.test"
API = f"{HOST}/api/v4"
TOKEN = "test-token-not-real-gl"


def load_recording(router: respx.MockRouter, name: str) -> dict[str, respx.Route]:
    """Mock every interaction of ``recordings/<name>.json``; routes by full recorded URL."""
    return replay_by_url(router, RECORDINGS / f"{name}.json")


@pytest.fixture
def recorded(router: respx.MockRouter) -> Callable[[str], dict[str, respx.Route]]:
    return lambda name: load_recording(router, name)


def gitlab_env(**extra: str) -> dict[str, str]:
    return {"GITLAB_HOST": HOST, "GITLAB_TOKEN": TOKEN, **extra}


@pytest.fixture
def host_backend() -> type[CodeHost]:
    return GitLabBackend


@pytest.fixture
def host_env() -> dict[str, str]:
    return gitlab_env()
