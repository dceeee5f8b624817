"""Ranking while an index is partly embedded: every chunk competes on equal terms, and the
default never ranks below keywords alone (the real bundled model, on a fixed small set)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from octo import Config
from octo import Gateway
from octo.semantic.indexing.static_model import StaticEmbedder
from octo.semantic.search.ranking import HYBRID_FROM
from octo.semantic.search.ranking import fuse
from octo.semantic.store.sqlite import SqliteStore
from tests.semantic.conftest import one

pytest.importorskip("wordllama", reason="the bundled model needs the semantic extra")

FUNCTIONS = {
    "mail.py": ("send_message", "Deliver an e-mail message to one recipient over SMTP."),
    "config.py": ("load_settings", "Read the JSON configuration file and merge the defaults."),
    "retry.py": ("with_backoff", "Call again after a failure, waiting longer each time."),
    "csvfile.py": ("read_rows", "Parse comma separated lines into dictionaries by header."),
    "hashing.py": ("file_digest", "Compute the SHA-256 checksum of a file's bytes."),
    "slug.py": ("slugify", "Turn a title into a lower-case URL fragment with dashes."),
    "cache.py": ("remember", "Keep recent results of a function and drop the oldest."),
    "dates.py": ("parse_timestamp", "Turn an ISO 8601 date and time string into a datetime."),
    "paths.py": ("walk_tree", "List every file under a directory, descending into folders."),
    "money.py": ("round_cents", "Round an amount of money to whole cents."),
}
QUESTIONS = {
    "send an email to someone": "send_message",
    "read the json settings": "load_settings",
    "try again later after an error with growing delays": "with_backoff",
    "comma separated rows as dictionaries": "read_rows",
    "checksum of a file": "file_digest",
    "make a url fragment from a title": "slugify",
    "keep recent results and evict the oldest": "remember",
    "parse an iso date": "parse_timestamp",
    "list all files under a folder": "walk_tree",
    "round money to cents": "round_cents",
}


def test_an_unembedded_keyword_hit_is_not_crowded_out_by_embedded_ones() -> None:
    # Chunk 1 has no vector and tops the keywords; 2 and 3 are embedded and rank lower there.
    keyword = [(1, 9.0), (2, 5.0), (3, 4.0)]
    vector = [(2, 0.6), (3, 0.5)]
    naive = fuse(vector, keyword)
    assert naive[0].id == 2, "two votes beat one when the fusion ignores missing vectors"
    fair = fuse(vector, keyword, share=0.5, unembedded=frozenset({1}))
    assert fair[0].id == 1
    assert [r.id for r in fuse(vector, keyword, share=1.0)] == [r.id for r in naive]


def _tree(root: Path) -> Path:
    root.mkdir()
    for name, (function, doc) in FUNCTIONS.items():
        body = f'def {function}(value):\n    """{doc}"""\n    return value\n'
        (root / name).write_text(body)
    return root.resolve()


async def _recall(gw: Gateway, mode: bool | None) -> tuple[float, set[str]]:
    found = 0
    rankings: set[str] = set()
    for question, answer in QUESTIONS.items():
        query: dict[str, Any] = {"query": question, "limit": 3}
        if mode is not None:
            query["useHybridSearch"] = mode
        result = await one(gw, "semanticSearchCode", query)
        rankings.add(result["data"]["searchContext"]["ranking"])
        names = [hit["symbolName"] for hit in result["data"]["results"]]
        found += answer in names
    return found / len(QUESTIONS), rankings


@pytest.mark.slow
async def test_default_ranking_never_below_keywords_at_any_embedded_share(
    tmp_path: Path,
) -> None:
    root = _tree(tmp_path / "project")
    index_dir = tmp_path / "indexes"
    env = {"HOME": str(tmp_path / "home"), "OCTO_INDEX_DIR": str(index_dir)}
    # A gateway not entered runs no background work: the keyword side only.
    plain = Gateway(Config.from_env(env), roots=[root])
    try:
        indexed = await one(plain, "semanticIndexCodebase", {"path": ".", "indexName": "fixed"})
        assert indexed["data"]["embedding"]["embeddedChunks"] == 0
        store = SqliteStore(index_dir)
        pending = store.pending("fixed", 100)
        embedder = StaticEmbedder()
        vectors = embedder.encode([text for _, text in pending])
        keyword, _ = await _recall(plain, None)
        steps = (len(pending) // 2, len(pending) * 9 // 10, len(pending))
        done = 0
        for upto in steps:
            batch = [(digest, vectors[i]) for i, (digest, _) in enumerate(pending)][done:upto]
            store.add_vectors("fixed", batch)
            done = upto
            share = done / len(pending)
            hybrid, rankings = await _recall(plain, None)
            assert hybrid >= keyword - 0.02, (share, hybrid, keyword)
            [ranking] = rankings
            assert ranking.startswith("keyword" if share < HYBRID_FROM else "hybrid"), ranking
        store.close()
    finally:
        await plain.aclose()
