"""Which index store a runtime uses: PostgreSQL + pgvector when ``OCTO_INDEX_URL`` is set (a
team's shared indexes), else one SQLite file per index under the user's cache directory."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from octo.core.config import cache_dir
from octo.semantic.store.interface import IndexStore


def index_directory(env: Mapping[str, str]) -> Path:
    """Where SQLite indexes live: ``OCTO_INDEX_DIR``, else ``indexes`` in octo's cache
    directory (:func:`octo.core.config.cache_dir`)."""
    explicit = env.get("OCTO_INDEX_DIR")
    if explicit:
        return Path(explicit).expanduser()
    return cache_dir(env) / "indexes"


def open_store(env: Mapping[str, str]) -> IndexStore:
    """The store the environment asks for: PostgreSQL when ``OCTO_INDEX_URL`` is set, else
    SQLite files."""
    url = env.get("OCTO_INDEX_URL")
    if url:
        from octo.semantic.store.postgres import PostgresStore

        return PostgresStore(url)
    from octo.semantic.store.sqlite import SqliteStore

    return SqliteStore(index_directory(env))
