"""Recorded GitHub HTTP (cassettes in recordings/) replayed with respx, and gateways wired to it.

A cassette is ``{"interactions": [{"request": {"method", "url"}, "response": {"status",
"headers", "body"}}]}``; interactions on one URL answer in turn.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlsplit

import httpx
import pytest
import respx

from octo.codehosts.hosts.github.backend import GitHubBackend
from octo.codehosts.hosts.host import CodeHost
from tests.codehosts.conftest import to_response

RECORDINGS = Path(__file__).parent / "recordings"
API = "https://gh.test/api/v3"
TOKEN = "test-token-not-real-7f3a9c"


def cassette(name: str) -> list[dict[str, Any]]:
    interactions: list[dict[str, Any]] = json.loads((RECORDINGS / f"{name}.json").read_text())[
        "interactions"
    ]
    return interactions


def load_cassette(router: respx.MockRouter, name: str) -> dict[str, respx.Route]:
    """Mock every interaction of cassette ``name``; routes by path (query params must match)."""
    grouped: dict[tuple[str, str, tuple[tuple[str, str], ...]], list[httpx.Response]] = defaultdict(
        list
    )
    for interaction in cassette(name):
        request = interaction["request"]
        split = urlsplit(request["url"])
        params = tuple(parse_qsl(split.query))
        url = f"{split.scheme}://{split.netloc}{split.path}"
        grouped[(request["method"], url, params)].append(to_response(interaction["response"]))
    routes = {}
    for (method, url, params), responses in grouped.items():
        route = router.request(method, url, params=dict(params))
        route.mock(side_effect=responses) if len(responses) > 1 else route.mock(
            return_value=responses[0]
        )
        routes[urlsplit(url).path.removeprefix("/api/v3")] = route
    return routes


def graphql_replay(router: respx.MockRouter, name: str) -> respx.Route:
    """Mock GitHub's GraphQL endpoint with cassette ``name``, whose requests name the
    operation (the field the query asks for) and the variables: each POST is answered by
    the interaction that matches it, whatever the order concurrent requests arrive in."""

    def answer(request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content)
        for interaction in cassette(name):
            asked = interaction["request"]
            if (
                f"{asked['operation']}(" in sent["query"]
                and asked["variables"] == sent["variables"]
            ):
                return to_response(interaction["response"])
        return httpx.Response(200, json={"errors": [{"type": "NOT_FOUND", "message": "none"}]})

    return router.post("https://gh.test/api/graphql").mock(side_effect=answer)


def make_env(**extra: str) -> dict[str, str]:
    return {"GITHUB_API_URL": API, "GITHUB_TOKEN": TOKEN, **extra}


Recorded = Callable[[str], dict[str, respx.Route]]


@pytest.fixture
def recorded(router: respx.MockRouter) -> Recorded:
    """``recorded("code_search")`` mocks that cassette; returns its routes by API path."""
    return lambda name: load_cassette(router, name)


@pytest.fixture
def env() -> Callable[..., dict[str, str]]:
    """``env(OCTO_MAX_TOKENS="50")``: the test environment with extra variables."""
    return make_env


@pytest.fixture
def host_backend() -> type[CodeHost]:
    return GitHubBackend


@pytest.fixture
def host_env() -> dict[str, str]:
    return make_env()


@pytest.fixture
def token() -> str:
    return TOKEN


def pull_seven(router: respx.MockRouter) -> None:
    """Pull request o/r#7 on the GitHub Enterprise host gh.test."""
    router.get("https://gh.test/api/v3/repos/o/r/pulls/7").respond(
        json={
            "number": 7,
            "title": "t",
            "state": "open",
            "user": {"login": "u"},
            "html_url": "https://gh.test/o/r/pull/7",
            "created_at": "",
            "updated_at": "",
            "base": {"ref": "main", "repo": {"full_name": "o/r"}},
        }
    )
