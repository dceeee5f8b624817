"""Hits as a search shows them: smartContext widens a hit to its symbol, no line of a file is
shown twice (a class and its own methods), and a hit that matches the query badly says so
(``weak``)."""

from __future__ import annotations

import itertools
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


async def test_a_class_and_its_own_methods_show_each_line_once(
    keyword_gateway: Gateway,
) -> None:
    # Before: the class widened to its whole body, and each method again (3 hits, 10.6 KB
    # on a real class).
    query = {
        "query": "mailer send message retry later",
        "symbolType": ["class", "method"],
        "limit": 5,
    }
    found = await one(keyword_gateway, "semanticSearchCode", query)
    hits = [h for h in found["data"]["results"] if h["hierarchy"].startswith("Mailer")]
    text = "\n".join(h["content"] for h in hits)
    for needed in ("class Mailer", "def send_message", "def retry_later"):
        assert text.count(needed) == 1, hits
    spans = sorted((h["startLine"], h["endLine"]) for h in hits)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans)), spans


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
