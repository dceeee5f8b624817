"""The embedded store: one SQLite database per index (WAL: many readers and one writer, across
processes too), keyword search with FTS5's BM25, vectors as float16 blobs searched exactly
with numpy (vector_blobs.py; a 10,000 x 256 matrix product takes about a millisecond, an ANN
library pays off only far beyond the sizes one machine indexes)."""

from __future__ import annotations

import sqlite3
import threading
import time
import zlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from octo.core.errors import NotFoundError
from octo.core.errors import ToolNotAvailableError
from octo.semantic.indexing.walk import FileState
from octo.semantic.store.interface import CHUNK_COLUMNS
from octo.semantic.store.interface import MAX_LEASE_SECONDS
from octo.semantic.store.interface import ChunkFilter
from octo.semantic.store.interface import FileWrite
from octo.semantic.store.interface import IndexMeta
from octo.semantic.store.interface import IndexStats
from octo.semantic.store.interface import StoredChunk
from octo.semantic.store.interface import body_text
from octo.semantic.store.interface import bounded_lease
from octo.semantic.store.interface import filter_sql
from octo.semantic.store.interface import names_text
from octo.semantic.store.interface import stored_chunk
from octo.semantic.store.sqlite_connections import SqliteConnections
from octo.semantic.store.vector_blobs import FORMAT_KEY
from octo.semantic.store.vector_blobs import NEW_FORMAT
from octo.semantic.store.vector_blobs import VectorFormat
from octo.semantic.store.vector_blobs import to_blob
from octo.semantic.store.vector_blobs import to_matrix
from octo.semantic.store.vector_blobs import top_scores
from octo.semantic.store.vector_blobs import vector_format

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from octo.semantic.store.interface import Vector

#: The embedding lease: who embeds this index, until when (renewed by every batch).
_LEASE_TABLE = """
CREATE TABLE IF NOT EXISTS lease(
    id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT NOT NULL, until REAL NOT NULL);
"""
_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    path TEXT PRIMARY KEY, language TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, text BLOB);
CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL, language TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, block_type TEXT NOT NULL,
    hierarchy TEXT NOT NULL, symbol_type TEXT, symbol_name TEXT, signature TEXT,
    scope_start INTEGER NOT NULL, scope_end INTEGER NOT NULL, content TEXT NOT NULL,
    embed_hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(embed_hash);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(names, body, tokenize='porter unicode61');
CREATE TABLE IF NOT EXISTS vectors(hash TEXT PRIMARY KEY, vec BLOB NOT NULL);
"""
    + _LEASE_TABLE
)
#: BM25 weights of the FTS columns: a word in a name counts four times one in the code.
_BM25 = "bm25(chunks_fts, 4.0, 1.0)"
#: A chunk whose vector is not computed yet.
_NO_VECTOR = "c.embed_hash NOT IN (SELECT hash FROM vectors)"


class SqliteStore:
    """Indexes as ``<directory>/<name>.sqlite``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.location = f"sqlite:{directory}"
        self._matrices: dict[str, tuple[int, npt.NDArray[np.int64], npt.NDArray[np.float32]]] = {}
        self._counts: dict[str, tuple[int, tuple[int, int]]] = {}
        self._lock = threading.Lock()
        self._connections = SqliteConnections(directory, _SCHEMA)

    def _path(self, name: str) -> Path:
        return self._connections.path(name)

    def _db(self, name: str, *, create: bool = False) -> AbstractContextManager[sqlite3.Connection]:
        """A pooled connection to index ``name`` in one transaction."""
        return self._connections.transaction(name, create=create)

    def _bump(self, db: sqlite3.Connection) -> None:
        db.execute(
            "INSERT INTO meta VALUES ('version', '1') ON CONFLICT(key) DO UPDATE"
            " SET value = CAST(value AS INTEGER) + 1"
        )

    def list_indexes(self) -> list[IndexMeta]:
        if not self.directory.is_dir():
            return []
        found = []
        for path in sorted(self.directory.glob("*.sqlite")):
            meta = self.meta(path.stem)
            if meta is not None:
                found.append(meta)
        return found

    def meta(self, name: str) -> IndexMeta | None:
        if not self._path(name).is_file():
            return None
        try:
            with self._db(name) as db:
                values = dict(db.execute("SELECT key, value FROM meta").fetchall())
        except (NotFoundError, ToolNotAvailableError):
            return None  # deleted meanwhile, or not an index of octo's
        if "root" not in values:
            return None
        return IndexMeta(
            name,
            values["root"],
            values["model"],
            float(values["created_at"]),
            float(values["updated_at"]),
        )

    def create(self, meta: IndexMeta) -> None:
        with self._db(meta.name, create=True) as db:
            db.executemany(
                "INSERT OR IGNORE INTO meta VALUES (?, ?)",
                [
                    ("root", meta.root),
                    ("model", meta.model),
                    ("created_at", repr(meta.created_at)),
                    ("updated_at", repr(meta.updated_at)),
                    ("version", "0"),
                    (FORMAT_KEY, NEW_FORMAT),
                ],
            )

    def file_states(self, name: str) -> dict[str, FileState]:
        with self._db(name) as db:
            rows = db.execute("SELECT path, hash, size, mtime_ns FROM files").fetchall()
        return {path: FileState(digest, size, mtime) for path, digest, size, mtime in rows}

    def write_files(self, name: str, files: Sequence[FileWrite]) -> None:
        with self._db(name) as db:
            for item in files:
                state = item.state
                if item.chunks is None:
                    db.execute(
                        "UPDATE files SET hash = ?, size = ?, mtime_ns = ? WHERE path = ?",
                        (state.hash, state.size, state.mtime_ns, item.path),
                    )
                    continue
                self._delete_chunks(db, [item.path])
                text = zlib.compress((item.text or "").encode("utf-8"))
                db.execute(
                    "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)",
                    (item.path, item.language, state.hash, state.size, state.mtime_ns, text),
                )
                for chunk in item.chunks:
                    cursor = db.execute(
                        "INSERT INTO chunks VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            item.path,
                            item.language,
                            chunk.start_line,
                            chunk.end_line,
                            chunk.block_type,
                            chunk.hierarchy,
                            chunk.symbol_type,
                            chunk.symbol_name,
                            chunk.signature,
                            chunk.scope_start,
                            chunk.scope_end,
                            chunk.content,
                            chunk.embed_hash(),
                        ),
                    )
                    db.execute(
                        "INSERT INTO chunks_fts(rowid, names, body) VALUES (?, ?, ?)",
                        (cursor.lastrowid, names_text(item.path, chunk), body_text(chunk)),
                    )
            self._bump(db)

    def _delete_chunks(self, db: sqlite3.Connection, paths: Sequence[str]) -> None:
        for path in paths:
            db.execute(
                "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE path = ?)",
                (path,),
            )
            db.execute("DELETE FROM chunks WHERE path = ?", (path,))

    def remove_files(self, name: str, paths: Sequence[str]) -> None:
        with self._db(name) as db:
            self._delete_chunks(db, paths)
            db.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in paths])
            self._bump(db)

    def finish(self, name: str, updated_at: float) -> None:
        with self._db(name) as db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'updated_at'", (repr(updated_at),))
            db.execute("DELETE FROM vectors WHERE hash NOT IN (SELECT embed_hash FROM chunks)")
            self._bump(db)

    def pending(self, name: str, limit: int) -> list[tuple[str, str]]:
        with self._db(name) as db:
            rows = db.execute(
                f"SELECT {CHUNK_COLUMNS} FROM chunks c WHERE c.embed_hash NOT IN"
                " (SELECT hash FROM vectors) GROUP BY c.embed_hash ORDER BY min(c.id) LIMIT ?",
                (limit,),
            ).fetchall()
        return [(row[13], stored_chunk(row).chunk.embed_text()) for row in rows]

    def add_vectors(self, name: str, vectors: Sequence[tuple[str, Vector]]) -> None:
        with self._db(name) as db:
            fmt = self._format(db)
            db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                [(digest, to_blob(v, fmt)) for digest, v in vectors],
            )
            self._bump(db)

    def counts(self, name: str) -> tuple[int, int]:
        # Counting joins every chunk with its vector (25 ms at 90,000 chunks), and every
        # search asks: the answer is kept until the index changes.
        with self._db(name) as db:
            version = self._version(db)
            with self._lock:
                cached = self._counts.get(name)
            if cached is not None and cached[0] == version:
                return cached[1]
            total, embedded = db.execute(
                "SELECT count(*), count(v.hash) FROM chunks c"
                " LEFT JOIN vectors v ON v.hash = c.embed_hash"
            ).fetchone()
        counted = (int(total), int(embedded))
        with self._lock:
            self._counts[name] = (version, counted)
        return counted

    def claim(self, name: str, holder: str, until: float) -> bool:
        now = time.time()
        with self._db(name) as db:
            db.execute(_LEASE_TABLE)  # indexes built before leases existed
            cursor = db.execute(
                "INSERT INTO lease VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET"
                " holder = excluded.holder, until = excluded.until"
                " WHERE lease.holder = excluded.holder OR lease.until < ? OR lease.until > ?",
                (holder, bounded_lease(until, now), now, now + MAX_LEASE_SECONDS),
            )
            return cursor.rowcount == 1

    def release(self, name: str, holder: str) -> None:
        with self._db(name) as db:
            db.execute(_LEASE_TABLE)
            db.execute("DELETE FROM lease WHERE holder = ?", (holder,))

    def embedding_running(self, name: str, now: float) -> bool:
        with self._db(name) as db:
            db.execute(_LEASE_TABLE)
            live = db.execute(
                "SELECT 1 FROM lease WHERE until BETWEEN ? AND ?", (now, now + MAX_LEASE_SECONDS)
            )
            return live.fetchone() is not None

    def _version(self, db: sqlite3.Connection) -> int:
        """Bumped by every write: what cached figures of the index are checked against."""
        return int(db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0])

    def keyword(
        self, name: str, terms: Sequence[str], where: ChunkFilter, limit: int
    ) -> list[tuple[int, float]]:
        condition, params = filter_sql(where, "?", _NO_VECTOR)
        match = " OR ".join(f'"{term}"' for term in terms)
        with self._db(name) as db:
            rows = db.execute(
                f"SELECT c.id, -{_BM25} AS score FROM chunks_fts JOIN chunks c"
                f" ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? AND {condition}"
                " ORDER BY score DESC LIMIT ?",
                [match, *params, limit],
            ).fetchall()
        return [(int(i), float(s)) for i, s in rows]

    def _matrix(
        self, db: sqlite3.Connection, name: str
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Every embedded chunk's id and vector, cached until the index changes."""
        import numpy as np

        version = self._version(db)
        with self._lock:
            cached = self._matrices.get(name)
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
        rows = db.execute(
            "SELECT c.id, v.vec FROM chunks c JOIN vectors v ON v.hash = c.embed_hash"
        ).fetchall()
        ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        matrix = to_matrix([row[1] for row in rows], self._format(db))
        with self._lock:
            self._matrices[name] = (version, ids, matrix)
        return ids, matrix

    def _format(self, db: sqlite3.Connection) -> VectorFormat:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (FORMAT_KEY,)).fetchone()
        return vector_format(row[0] if row else None)

    def nearest(
        self, name: str, vector: Vector, where: ChunkFilter, limit: int
    ) -> list[tuple[int, float]]:
        with self._db(name) as db:
            ids, matrix = self._matrix(db, name)
            condition, params = filter_sql(where, "?", _NO_VECTOR)
            allowed = None
            if params:
                query = f"SELECT c.id FROM chunks c WHERE {condition}"
                allowed = [row[0] for row in db.execute(query, params)]
        return top_scores(ids, matrix, vector, allowed, limit)

    def chunks(self, name: str, ids: Sequence[int]) -> list[StoredChunk]:
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        with self._db(name) as db:
            rows = db.execute(
                f"SELECT {CHUNK_COLUMNS} FROM chunks c WHERE c.id IN ({marks})", list(ids)
            ).fetchall()
        return [stored_chunk(row) for row in rows]

    def file_text(self, name: str, path: str) -> str | None:
        with self._db(name) as db:
            row = db.execute("SELECT text FROM files WHERE path = ?", (path,)).fetchone()
        if row is None or row[0] is None:
            return None
        return zlib.decompress(row[0]).decode("utf-8")

    def stats(self, name: str) -> IndexStats:
        total, embedded = self.counts(name)
        with self._db(name) as db:
            files, size = db.execute(
                "SELECT count(*), coalesce(sum(size), 0) FROM files"
            ).fetchone()
            languages = dict(
                db.execute(
                    "SELECT language, count(*) FROM files GROUP BY language ORDER BY 2 DESC, 1"
                )
            )
        return IndexStats(int(files), total, embedded, int(size), languages)

    def drop(self, name: str) -> bool:
        path = self._path(name)
        existed = path.is_file()
        self._connections.forget(name)  # an open file cannot be deleted everywhere
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        with self._lock:
            self._matrices.pop(name, None)
            self._counts.pop(name, None)
        return existed

    def close(self) -> None:
        self._connections.close()
        with self._lock:
            self._matrices.clear()
            self._counts.clear()
