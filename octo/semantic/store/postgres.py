"""The team store: every index in one PostgreSQL database with the pgvector extension
(``OCTO_INDEX_URL=postgresql://...``), so several octo servers share them.

Keyword ranking is PostgreSQL's full-text search (``ts_rank`` over an English ``tsvector``,
names weighted above code); vectors are searched exactly with pgvector's cosine distance.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Iterator
from collections.abc import Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING
from typing import Any

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

if TYPE_CHECKING:
    import psycopg

    from octo.semantic.store.interface import Vector

_SCHEMA = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS octo_semantic_indexes(
    name text PRIMARY KEY, root text NOT NULL, model text NOT NULL,
    created_at double precision NOT NULL, updated_at double precision NOT NULL);
CREATE TABLE IF NOT EXISTS octo_semantic_files(
    index_name text NOT NULL REFERENCES octo_semantic_indexes(name) ON DELETE CASCADE,
    path text NOT NULL, language text NOT NULL, hash text NOT NULL, size bigint NOT NULL,
    mtime_ns bigint NOT NULL, text bytea, PRIMARY KEY(index_name, path));
CREATE TABLE IF NOT EXISTS octo_semantic_chunks(
    id bigserial PRIMARY KEY,
    index_name text NOT NULL REFERENCES octo_semantic_indexes(name) ON DELETE CASCADE,
    path text NOT NULL, language text NOT NULL, start_line int NOT NULL, end_line int NOT NULL,
    block_type text NOT NULL, hierarchy text NOT NULL, symbol_type text, symbol_name text,
    signature text, scope_start int NOT NULL, scope_end int NOT NULL, content text NOT NULL,
    embed_hash text NOT NULL, tsv tsvector NOT NULL);
CREATE INDEX IF NOT EXISTS octo_semantic_chunks_path ON octo_semantic_chunks(index_name, path);
CREATE INDEX IF NOT EXISTS octo_semantic_chunks_hash
    ON octo_semantic_chunks(index_name, embed_hash);
CREATE INDEX IF NOT EXISTS octo_semantic_chunks_tsv ON octo_semantic_chunks USING gin(tsv);
CREATE TABLE IF NOT EXISTS octo_semantic_vectors(
    index_name text NOT NULL REFERENCES octo_semantic_indexes(name) ON DELETE CASCADE,
    hash text NOT NULL, embedding vector NOT NULL, PRIMARY KEY(index_name, hash));
CREATE TABLE IF NOT EXISTS octo_semantic_leases(
    index_name text PRIMARY KEY REFERENCES octo_semantic_indexes(name) ON DELETE CASCADE,
    holder text NOT NULL, until double precision NOT NULL);
"""
_CHUNKS = "octo_semantic_chunks"
_NO_VECTOR = (
    "NOT EXISTS (SELECT 1 FROM octo_semantic_vectors v"
    " WHERE v.index_name = c.index_name AND v.hash = c.embed_hash)"
)
#: Serialises schema creation among servers starting together (any constant works).
_SCHEMA_LOCK = 0x0C70_5E3A


class PostgresStore:
    """Indexes in the tables ``octo_semantic_*`` of one database."""

    location = "postgresql"

    def __init__(self, url: str) -> None:
        try:
            import pgvector.psycopg  # noqa: F401
            import psycopg  # noqa: F401
        except ImportError as exc:
            raise ToolNotAvailableError(
                f"OCTO_INDEX_URL needs psycopg and pgvector ({exc})",
                hints=['Install the semantic extra: pip install "octo-gateway[semantic]"'],
            ) from None
        self._url = url
        self._idle: list[psycopg.Connection[Any]] = []
        self._lock = threading.Lock()
        self._ready = False
        self._closed = False

    def _connect(self) -> psycopg.Connection[Any]:
        import psycopg
        from pgvector.psycopg import register_vector

        try:
            conn = psycopg.connect(self._url, autocommit=True, connect_timeout=10)
        except psycopg.OperationalError as exc:
            raise ToolNotAvailableError(
                f"Cannot reach the index database (OCTO_INDEX_URL): {exc}".strip()[:400],
                hints=["Check OCTO_INDEX_URL, or unset it to keep indexes in local files."],
            ) from None
        try:
            if not self._ready:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                    conn.execute(_SCHEMA)
                self._ready = True
            register_vector(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    @contextmanager
    def _db(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection inside one transaction."""
        import psycopg

        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None or conn.closed:
            conn = self._connect()
        try:
            with conn.transaction():
                yield conn
        except psycopg.Error as exc:
            conn.close()
            # A database that fails (gone, full, a vector of another size) is no bug of octo's.
            raise ToolNotAvailableError(
                f"The index database (OCTO_INDEX_URL) failed: {exc}".strip()[:400],
                hints=["Check the database, then retry; a retry resumes where this stopped."],
            ) from None
        except BaseException:
            conn.close()
            raise
        with self._lock:
            # A thread abandoned at its query's deadline may come back after close().
            if not self._closed:
                self._idle.append(conn)
                return
        conn.close()

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows one statement selects, in its own transaction."""
        with self._db() as db:
            return db.execute(sql, params).fetchall()

    def _row(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        """The first row one statement selects (None when there is none)."""
        with self._db() as db:
            return db.execute(sql, params).fetchone()

    def list_indexes(self) -> list[IndexMeta]:
        rows = self._rows(
            "SELECT name, root, model, created_at, updated_at FROM octo_semantic_indexes"
            " ORDER BY name"
        )
        return [IndexMeta(*row) for row in rows]

    def meta(self, name: str) -> IndexMeta | None:
        row = self._row(
            "SELECT name, root, model, created_at, updated_at FROM octo_semantic_indexes"
            " WHERE name = %s",
            (name,),
        )
        return IndexMeta(*row) if row else None

    def create(self, meta: IndexMeta) -> None:
        with self._db() as db:
            db.execute(
                "INSERT INTO octo_semantic_indexes VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT (name) DO NOTHING",
                (meta.name, meta.root, meta.model, meta.created_at, meta.updated_at),
            )

    def file_states(self, name: str) -> dict[str, FileState]:
        rows = self._rows(
            "SELECT path, hash, size, mtime_ns FROM octo_semantic_files WHERE index_name = %s",
            (name,),
        )
        return {path: FileState(digest, size, mtime) for path, digest, size, mtime in rows}

    def write_files(self, name: str, files: Sequence[FileWrite]) -> None:
        with self._db() as db, db.cursor() as cur:
            for item in files:
                state = item.state
                if item.chunks is None:
                    cur.execute(
                        "UPDATE octo_semantic_files SET hash = %s, size = %s, mtime_ns = %s"
                        " WHERE index_name = %s AND path = %s",
                        (state.hash, state.size, state.mtime_ns, name, item.path),
                    )
                    continue
                cur.execute(
                    f"DELETE FROM {_CHUNKS} WHERE index_name = %s AND path = %s", (name, item.path)
                )
                cur.execute(
                    "INSERT INTO octo_semantic_files VALUES (%s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (index_name, path) DO UPDATE SET language = EXCLUDED.language,"
                    " hash = EXCLUDED.hash, size = EXCLUDED.size, mtime_ns = EXCLUDED.mtime_ns,"
                    " text = EXCLUDED.text",
                    (
                        name,
                        item.path,
                        item.language,
                        state.hash,
                        state.size,
                        state.mtime_ns,
                        zlib.compress((item.text or "").encode("utf-8")),
                    ),
                )
                cur.executemany(
                    f"INSERT INTO {_CHUNKS} (index_name, path, language, start_line, end_line,"
                    " block_type, hierarchy, symbol_type, symbol_name, signature, scope_start,"
                    " scope_end, content, embed_hash, tsv) VALUES (%s, %s, %s, %s, %s, %s, %s,"
                    " %s, %s, %s, %s, %s, %s, %s, setweight(to_tsvector('english', %s), 'A')"
                    " || setweight(to_tsvector('english', %s), 'D'))",
                    [
                        (
                            name,
                            item.path,
                            item.language,
                            c.start_line,
                            c.end_line,
                            c.block_type,
                            c.hierarchy,
                            c.symbol_type,
                            c.symbol_name,
                            c.signature,
                            c.scope_start,
                            c.scope_end,
                            c.content,
                            c.embed_hash(),
                            names_text(item.path, c),
                            body_text(c),
                        )
                        for c in item.chunks
                    ],
                )

    def remove_files(self, name: str, paths: Sequence[str]) -> None:
        with self._db() as db:
            for table in (_CHUNKS, "octo_semantic_files"):
                db.execute(
                    f"DELETE FROM {table} WHERE index_name = %s AND path = ANY(%s)",
                    (name, list(paths)),
                )

    def finish(self, name: str, updated_at: float) -> None:
        with self._db() as db:
            db.execute(
                "UPDATE octo_semantic_indexes SET updated_at = %s WHERE name = %s",
                (updated_at, name),
            )
            db.execute(
                "DELETE FROM octo_semantic_vectors v WHERE v.index_name = %s AND NOT EXISTS"
                f" (SELECT 1 FROM {_CHUNKS} c WHERE c.index_name = v.index_name"
                " AND c.embed_hash = v.hash)",
                (name,),
            )

    def pending(self, name: str, limit: int) -> list[tuple[str, str]]:
        rows = self._rows(
            f"SELECT DISTINCT ON (c.embed_hash) {CHUNK_COLUMNS} FROM {_CHUNKS} c"
            f" WHERE c.index_name = %s AND {_NO_VECTOR} ORDER BY c.embed_hash LIMIT %s",
            (name, limit),
        )
        return [(row[13], stored_chunk(row).chunk.embed_text()) for row in rows]

    def add_vectors(self, name: str, vectors: Sequence[tuple[str, Vector]]) -> None:
        with self._db() as db, db.cursor() as cur:
            cur.executemany(
                "INSERT INTO octo_semantic_vectors SELECT %s, %s, %s WHERE EXISTS"
                " (SELECT 1 FROM octo_semantic_indexes WHERE name = %s)"
                " ON CONFLICT (index_name, hash) DO UPDATE SET embedding = EXCLUDED.embedding",
                [(name, digest, vector, name) for digest, vector in vectors],
            )

    def counts(self, name: str) -> tuple[int, int]:
        row = self._row(
            f"SELECT count(*), count(*) FILTER (WHERE NOT {_NO_VECTOR}) FROM {_CHUNKS} c"
            " WHERE c.index_name = %s",
            (name,),
        )
        assert row is not None
        return int(row[0]), int(row[1])

    def claim(self, name: str, holder: str, until: float) -> bool:
        now = time.time()
        with self._db() as db:
            cursor = db.execute(
                "INSERT INTO octo_semantic_leases SELECT name, %s, %s FROM octo_semantic_indexes"
                " WHERE name = %s ON CONFLICT (index_name) DO UPDATE SET holder = EXCLUDED.holder,"
                " until = EXCLUDED.until WHERE octo_semantic_leases.holder = EXCLUDED.holder"
                " OR octo_semantic_leases.until NOT BETWEEN %s AND %s",
                (holder, bounded_lease(until, now), name, now, now + MAX_LEASE_SECONDS),
            )
            return cursor.rowcount == 1

    def release(self, name: str, holder: str) -> None:
        with self._db() as db:
            db.execute(
                "DELETE FROM octo_semantic_leases WHERE index_name = %s AND holder = %s",
                (name, holder),
            )

    def embedding_running(self, name: str, now: float) -> bool:
        row = self._row(
            "SELECT 1 FROM octo_semantic_leases WHERE index_name = %s AND until BETWEEN %s AND %s",
            (name, now, now + MAX_LEASE_SECONDS),
        )
        return row is not None

    def keyword(
        self, name: str, terms: Sequence[str], where: ChunkFilter, limit: int
    ) -> list[tuple[int, float]]:
        condition, params = filter_sql(where, "%s", _NO_VECTOR)
        rows = self._rows(
            f"SELECT c.id, ts_rank(c.tsv, q) AS score FROM {_CHUNKS} c,"
            " to_tsquery('english', %s) q WHERE c.index_name = %s AND c.tsv @@ q"
            f" AND {condition} ORDER BY score DESC, c.id LIMIT %s",
            [" | ".join(terms), name, *params, limit],
        )
        return [(int(i), float(s)) for i, s in rows]

    def nearest(
        self, name: str, vector: Vector, where: ChunkFilter, limit: int
    ) -> list[tuple[int, float]]:
        condition, params = filter_sql(where, "%s", _NO_VECTOR)
        rows = self._rows(
            f"SELECT c.id, 1 - (v.embedding <=> %s) AS similarity FROM {_CHUNKS} c"
            " JOIN octo_semantic_vectors v ON v.index_name = c.index_name"
            f" AND v.hash = c.embed_hash WHERE c.index_name = %s AND {condition}"
            " ORDER BY v.embedding <=> %s, c.id LIMIT %s",
            [vector, name, *params, vector, limit],
        )
        return [(int(i), float(s)) for i, s in rows]

    def chunks(self, name: str, ids: Sequence[int]) -> list[StoredChunk]:
        rows = self._rows(
            f"SELECT {CHUNK_COLUMNS} FROM {_CHUNKS} c WHERE c.index_name = %s AND c.id = ANY(%s)",
            (name, list(ids)),
        )
        return [stored_chunk(row) for row in rows]

    def file_text(self, name: str, path: str) -> str | None:
        row = self._row(
            "SELECT text FROM octo_semantic_files WHERE index_name = %s AND path = %s",
            (name, path),
        )
        if row is None or row[0] is None:
            return None
        return zlib.decompress(row[0]).decode("utf-8")

    def stats(self, name: str) -> IndexStats:
        total, embedded = self.counts(name)
        row = self._row(
            "SELECT count(*), coalesce(sum(size), 0) FROM octo_semantic_files"
            " WHERE index_name = %s",
            (name,),
        )
        languages = self._rows(
            "SELECT language, count(*) FROM octo_semantic_files WHERE index_name = %s"
            " GROUP BY language ORDER BY 2 DESC, 1",
            (name,),
        )
        assert row is not None
        return IndexStats(int(row[0]), total, embedded, int(row[1]), dict(languages))

    def drop(self, name: str) -> bool:
        with self._db() as db:
            deleted = db.execute("DELETE FROM octo_semantic_indexes WHERE name = %s", (name,))
            return deleted.rowcount > 0

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
