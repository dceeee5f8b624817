"""Hits as a search shows them: smartContext widens a hit to its symbol without swallowing a
class's own methods, and a hit that matches the query badly says so (``weak``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from octo import Config
from octo import Gateway
from tests.semantic.conftest import one


@pytest.fixture
async def keyword_gateway(env: dict[str, str], tree: Path) -> AsyncIterator[Gateway]:
    """A gateway that is not entered: the keyword side only, so the ranking is fixed; its
    index is the only one under its root (PostgreSQL keeps every test's indexes)."""
    gw = Gateway(Config.from_env(env), roots=[tree])
    try:
        built = await one(gw, "semanticIndexCodebase", {"path": "."})
        assert built["status"] == "success", built
        yield gw
    finally:
        await gw.aclose()


async def test_smart_context_keeps_a_class_apart_from_its_own_methods(
    keyword_gateway: Gateway,
) -> None:
    query = {
        "query": "mailer send message retry later",
        "symbolType": ["class", "method"],
        "limit": 5,
    }
    found = await one(keyword_gateway, "semanticSearchCode", query)
    hits = found["data"]["results"]
    assert {h["hierarchy"] for h in hits} >= {
        "Mailer",
        "Mailer.send_message",
        "Mailer.retry_later",
    }, hits
    mailer = next(h for h in hits if h["hierarchy"] == "Mailer")
    assert "class Mailer" in mailer["content"] and "def retry_later" in mailer["content"]


async def test_a_hit_holding_few_of_the_query_words_is_marked_weak(
    keyword_gateway: Gateway,
) -> None:
    strong = await one(keyword_gateway, "semanticSearchCode", {"query": "parse duration"})
    assert strong["data"]["results"][0]["symbolName"] == "parseDuration"
    assert "weak" not in strong["data"]["results"][0]
    weak = await one(
        keyword_gateway,
        "semanticSearchCode",
        {"query": "parse zebra quantum giraffe"},
    )
    assert weak["data"]["results"] and all(h["weak"] is True for h in weak["data"]["results"])
    assert any("weak" in hint for hint in weak["hints"])
    assert weak["data"]["searchContext"]["ranking"].startswith("keyword")
