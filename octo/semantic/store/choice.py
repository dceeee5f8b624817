"""Which index store a runtime uses: PostgreSQL + pgvector when ``OCTO_INDEX_URL`` is set (a
team's shared indexes), else one SQLite file per index under the user's cache directory."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from octo.semantic.store.interface import IndexStore


def index_directory(env: Mapping[str, str]) -> Path:
    """Where SQLite indexes live: ``OCTO_INDEX_DIR``, else ``indexes`` in octo's cache
    directory (platformdirs; ``XDG_CACHE_HOME`` and ``HOME`` are read from ``env`` so a
    gateway built with its own environment keeps its indexes there)."""
    explicit = env.get("OCTO_INDEX_DIR")
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform not in ("win32", "darwin"):
        base = env.get("XDG_CACHE_HOME") or (
            str(Path(env["HOME"]) / ".cache") if env.get("HOME") else ""
        )
        if base:
            return Path(base) / "octo" / "indexes"
    import platformdirs

    return Path(platformdirs.user_cache_dir("octo", appauthor=False)) / "indexes"


def open_store(env: Mapping[str, str]) -> IndexStore:
    """The store the environment asks for: PostgreSQL when ``OCTO_INDEX_URL`` is set, else
    SQLite files."""
    url = env.get("OCTO_INDEX_URL")
    if url:
        from octo.semantic.store.postgres import PostgresStore

        return PostgresStore(url)
    from octo.semantic.store.sqlite import SqliteStore

    return SqliteStore(index_directory(env))
