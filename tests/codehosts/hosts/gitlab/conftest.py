"""Hand-written GitLab answers (recordings/, shapes from GitLab's API docs) replayed with respx."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlsplit

import httpx
import pytest
import respx

import octo
from octo.codehosts.hosts.gitlab.backend import GitLabBackend
from octo.core.config import Config

RECORDINGS = Path(__file__).parent / "recordings"
HOST = "https://gl.test"
API = f"{HOST}/api/v4"
TOKEN = "test-token-not-real-gl"


def to_response(recorded: dict[str, Any]) -> httpx.Response:
    body = recorded["body"]
    if isinstance(body, str):
        return httpx.Response(recorded["status"], headers=recorded["headers"], text=body)
    return httpx.Response(recorded["status"], headers=recorded["headers"], json=body)


def load_recording(router: respx.MockRouter, name: str) -> dict[str, respx.Route]:
    """Mock every interaction of ``recordings/<name>.json``; routes by full recorded URL.

    The query must carry exactly the recorded parameters; interactions on one URL answer
    in turn.
    """
    interactions = json.loads((RECORDINGS / f"{name}.json").read_text(encoding="utf-8"))
    grouped: dict[str, list[httpx.Response]] = defaultdict(list)
    for interaction in interactions["interactions"]:
        grouped[interaction["request"]["url"]].append(to_response(interaction["response"]))
    routes = {}
    for url, responses in grouped.items():
        split = urlsplit(url)
        route = router.request(
            "GET",
            f"{split.scheme}://{split.netloc}{split.path}",
            params__eq=dict(parse_qsl(split.query)),
        )
        route.mock(side_effect=responses) if len(responses) > 1 else route.mock(
            return_value=responses[0]
        )
        routes[url] = route
    return routes


class Sleeps(list[float]):
    """An injected sleep: records each wait and returns at once."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    """respx mocking of every httpx client; unmatched requests fail the test."""
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        yield mock


@pytest.fixture
def recorded(router: respx.MockRouter) -> Callable[[str], dict[str, respx.Route]]:
    return lambda name: load_recording(router, name)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


def gitlab_env(**extra: str) -> dict[str, str]:
    return {"GITLAB_HOST": HOST, "GITLAB_TOKEN": TOKEN, **extra}


GatewayFactory = Callable[..., octo.Gateway]


@pytest.fixture
async def gateway_factory(sleeps: Sleeps) -> AsyncIterator[GatewayFactory]:
    """Gateways on an injected environment whose GitLab client sleeps into ``sleeps``."""
    made: list[octo.Gateway] = []

    def make(env: dict[str, str] | None = None, *, clock: float | None = None) -> octo.Gateway:
        gateway = octo.Gateway(config=Config.from_env(gitlab_env() if env is None else env))
        remote = gateway.runtime.backend(GitLabBackend).remote
        remote.sleep = sleeps
        if clock is not None:
            remote.clock = lambda: clock
        made.append(gateway)
        return gateway

    yield make
    for gateway in made:
        await gateway.aclose()


@pytest.fixture
def gateway(gateway_factory: GatewayFactory) -> octo.Gateway:
    return gateway_factory()
