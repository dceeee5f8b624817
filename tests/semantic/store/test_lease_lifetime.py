"""An embedding lease lives at most ``MAX_LEASE_SECONDS`` ahead: a claim asking for longer gets
that much, and a lease planted further ahead (written into the store by hand) blocks nobody."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from octo.semantic.store.choice import open_store
from octo.semantic.store.interface import MAX_LEASE_SECONDS
from octo.semantic.store.interface import IndexMeta
from octo.semantic.store.interface import IndexStore

FOREVER = time.time() + 100 * 365 * 86_400.0


def plant(env: dict[str, str], name: str, until: float) -> None:
    """Write a lease of index ``name`` ending at ``until`` straight into the store, as someone
    with its files or database could."""
    url = env.get("OCTO_INDEX_URL")
    if url:
        import psycopg

        with psycopg.connect(url, autocommit=True) as pg:
            pg.execute("DELETE FROM octo_semantic_leases WHERE index_name = %s", (name,))
            pg.execute("INSERT INTO octo_semantic_leases VALUES (%s, 'planted', %s)", (name, until))
        return
    with sqlite3.connect(Path(env["OCTO_INDEX_DIR"]) / f"{name}.sqlite") as db:
        db.execute("DELETE FROM lease")
        db.execute("INSERT INTO lease VALUES (1, 'planted', ?)", (until,))


def lease_until(env: dict[str, str], name: str) -> float:
    """When the lease of index ``name`` ends, as the store holds it."""
    url = env.get("OCTO_INDEX_URL")
    if url:
        import psycopg

        with psycopg.connect(url, autocommit=True) as pg:
            query = "SELECT until FROM octo_semantic_leases WHERE index_name = %s"
            row = pg.execute(query, (name,)).fetchone()
    else:
        with sqlite3.connect(Path(env["OCTO_INDEX_DIR"]) / f"{name}.sqlite") as db:
            row = db.execute("SELECT until FROM lease").fetchone()
    assert row is not None
    return float(row[0])


@pytest.fixture
def store(store_env: dict[str, str], tmp_path: Path) -> Iterator[IndexStore]:
    opened = open_store(store_env)
    now = time.time()
    opened.create(IndexMeta("leased", str(tmp_path), "model", now, now))
    opened.claim("leased", "first", now + 1)  # makes the lease table
    opened.release("leased", "first")
    yield opened
    opened.drop("leased")
    opened.close()


def test_a_lease_planted_far_ahead_blocks_nobody(
    store: IndexStore, store_env: dict[str, str]
) -> None:
    plant(store_env, "leased", FOREVER)
    assert not store.embedding_running("leased", time.time())
    assert store.claim("leased", "worker", time.time() + 60)
    assert store.embedding_running("leased", time.time())
    store.release("leased", "worker")


def test_a_claim_gets_at_most_the_maximum_lifetime_and_is_renewed(
    store: IndexStore, store_env: dict[str, str]
) -> None:
    before = time.time()
    assert store.claim("leased", "greedy", FOREVER)
    assert lease_until(store_env, "leased") <= time.time() + MAX_LEASE_SECONDS
    assert not store.claim("leased", "other", before + 60)  # live: the holder's own
    assert store.claim("leased", "greedy", before + 120)  # renewed by its holder
    assert lease_until(store_env, "leased") == pytest.approx(before + 120)
    store.release("leased", "greedy")
