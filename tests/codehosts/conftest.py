"""What the code hosts' tests share: respx routing, and recorded answers replayed by URL."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlsplit

import httpx
import pytest
import respx


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    """respx mocking of every httpx client; unmatched requests fail the test."""
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        yield mock


def to_response(recorded: dict[str, Any]) -> httpx.Response:
    """A recorded response: its status, headers and body (JSON, or text when a string)."""
    body = recorded["body"]
    if isinstance(body, str):
        return httpx.Response(recorded["status"], headers=recorded["headers"], text=body)
    return httpx.Response(recorded["status"], headers=recorded["headers"], json=body)


def replay_by_url(router: respx.MockRouter, recording: Path) -> dict[str, respx.Route]:
    """Mock every GET of ``recording`` (``{"interactions": [{"request": {"url"}, "response":
    {"status", "headers", "body"}}]}``); routes by full recorded URL.

    The query must carry exactly the recorded parameters; interactions on one URL answer
    in turn.
    """
    interactions = json.loads(recording.read_text(encoding="utf-8"))
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
