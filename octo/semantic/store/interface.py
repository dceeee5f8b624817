"""Where indexes live, behind one small interface: SQLite files under the user's cache
directory (one machine, the default) or PostgreSQL with pgvector (``OCTO_INDEX_URL``, shared
by a team's octo servers). Both implement :class:`IndexStore`; both are blocking and are
called from worker threads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol

from octo.semantic.indexing.chunking import Chunk
from octo.semantic.indexing.terms import identifier_words
from octo.semantic.indexing.walk import FileState

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vector = npt.NDArray[np.float32]

#: The longest an embedding lease may run ahead of now: a claim asking for more gets this
#: much, and a lease found further ahead (planted, or from a clock far off) counts as lapsed,
#: so no record can block embedding for longer. Holders renew well within it.
MAX_LEASE_SECONDS = 300.0


def bounded_lease(until: float, now: float) -> float:
    """``until`` no later than :data:`MAX_LEASE_SECONDS` from ``now``."""
    return min(until, now + MAX_LEASE_SECONDS)


#: Index names: a folder-like word, safe as a file name and in SQL.
INDEX_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class IndexMeta:
    """An index: its name, the tree it covers, the model of its vectors, its times (Unix)."""

    name: str
    root: str
    model: str
    created_at: float
    updated_at: float


@dataclass(frozen=True)
class FileWrite:
    """One file of an indexing batch; ``chunks`` is None when only its state changed."""

    path: str
    language: str
    state: FileState
    text: str | None = None
    chunks: Sequence[Chunk] | None = None


@dataclass(frozen=True)
class StoredChunk:
    """A chunk as the index holds it."""

    id: int
    path: str
    language: str
    chunk: Chunk
    embed_hash: str


@dataclass(frozen=True)
class ChunkFilter:
    """Restrictions of a search; None means no restriction."""

    languages: tuple[str, ...] | None = None
    symbol_types: tuple[str, ...] | None = None
    #: A case-insensitive glob on the symbol name (``get*``, ``*Handler``).
    symbol_name: str | None = None
    #: Only files at or under this root-relative path.
    path_prefix: str | None = None
    #: Only chunks whose vector is not computed yet (the keyword fallback).
    unembedded_only: bool = False


@dataclass(frozen=True)
class IndexStats:
    """Totals of one index."""

    files: int
    chunks: int
    embedded_chunks: int
    bytes: int
    languages: dict[str, int] = field(default_factory=dict)


class IndexStore(Protocol):
    """Storage of every index: files, chunks, a keyword index and vectors by content hash.

    Writers of one index are serialised by the caller; readers may run at any time.
    """

    #: Where the indexes are, for answers ("sqlite:/path", "postgresql").
    location: str

    def list_indexes(self) -> list[IndexMeta]: ...

    def meta(self, name: str) -> IndexMeta | None: ...

    def create(self, meta: IndexMeta) -> None: ...

    def file_states(self, name: str) -> dict[str, FileState]: ...

    def write_files(self, name: str, files: Sequence[FileWrite]) -> None:
        """Replace the chunks of changed files and the state of all ``files``, atomically."""

    def remove_files(self, name: str, paths: Sequence[str]) -> None: ...

    def finish(self, name: str, updated_at: float) -> None:
        """Close an indexing run: record its time, drop vectors no chunk uses any more."""

    def pending(self, name: str, limit: int) -> list[tuple[str, str]]:
        """Up to ``limit`` ``(embed hash, text)`` of chunks that have no vector yet."""

    def add_vectors(self, name: str, vectors: Sequence[tuple[str, Vector]]) -> None: ...

    def counts(self, name: str) -> tuple[int, int]:
        """``(chunks, chunks with a vector)``."""

    def claim(self, name: str, holder: str, until: float) -> bool:
        """Take or renew the embedding lease of index ``name`` for ``holder`` up to ``until``
        (Unix time, at most :data:`MAX_LEASE_SECONDS` ahead), atomically; False while another
        holder's lease is live (a lease further ahead than that is not)."""

    def release(self, name: str, holder: str) -> None:
        """Give up ``holder``'s embedding lease, if it holds it."""

    def embedding_running(self, name: str, now: float) -> bool:
        """True while some process holds a live embedding lease on index ``name`` (one ending
        within :data:`MAX_LEASE_SECONDS` of ``now``)."""

    def keyword(
        self, name: str, terms: Sequence[str], where: ChunkFilter, limit: int
    ) -> list[tuple[int, float]]:
        """Chunk ids matching any of ``terms`` (never empty), best first, with a score (higher
        is better)."""

    def nearest(
        self, name: str, vector: Vector, where: ChunkFilter, limit: int
    ) -> list[tuple[int, float]]:
        """Embedded chunk ids nearest to ``vector``, with their cosine similarity."""

    def chunks(self, name: str, ids: Sequence[int]) -> list[StoredChunk]: ...

    def file_text(self, name: str, path: str) -> str | None: ...

    def stats(self, name: str) -> IndexStats: ...

    def drop(self, name: str) -> bool:
        """Delete the index; False when there was none."""

    def close(self) -> None: ...


#: The columns of table ``c`` (chunks) both stores select, in :func:`stored_chunk`'s order.
CHUNK_COLUMNS = (
    "c.id, c.path, c.language, c.start_line, c.end_line, c.block_type, c.hierarchy,"
    " c.symbol_type, c.symbol_name, c.signature, c.scope_start, c.scope_end, c.content,"
    " c.embed_hash"
)


def stored_chunk(row: Sequence[Any]) -> StoredChunk:
    """A row of :data:`CHUNK_COLUMNS`."""
    chunk = Chunk(row[3], row[4], row[12], row[5], row[6], row[7], row[8], row[9], row[10], row[11])
    return StoredChunk(row[0], row[1], row[2], chunk, row[13])


def filter_sql(where: ChunkFilter, mark: str, unembedded: str) -> tuple[str, list[str]]:
    """SQL conditions on table ``c`` (chunks) for ``where``, with ``mark`` as placeholder and
    ``unembedded`` as the backend's condition of a chunk without a vector."""
    parts: list[str] = [unembedded] if where.unembedded_only else []
    params: list[str] = []
    for column, values in (("language", where.languages), ("symbol_type", where.symbol_types)):
        if values is not None:
            parts.append(f"c.{column} IN ({', '.join([mark] * len(values))})")
            params.extend(values)
    if where.symbol_name is not None:
        parts.append(f"lower(c.symbol_name) LIKE {mark} ESCAPE '\\'")
        params.append(glob_to_like(where.symbol_name.lower()))
    if where.path_prefix is not None:
        parts.append(f"(c.path = {mark} OR c.path LIKE {mark} ESCAPE '\\')")
        params.extend([where.path_prefix, glob_to_like(where.path_prefix) + "/%"])
    return " AND ".join(parts) or "TRUE", params


def names_text(path: str, chunk: Chunk) -> str:
    """The keyword index's high-weight column: path, hierarchy, symbol and signature words."""
    text = " ".join([path.replace("/", " "), chunk.hierarchy, chunk.signature or ""])
    return f"{text} {identifier_words(text)}"


def body_text(chunk: Chunk) -> str:
    """The keyword index's body column: the code and the words inside its identifiers."""
    return f"{chunk.content}\n{identifier_words(chunk.content)}"


def glob_to_like(pattern: str) -> str:
    r"""A glob (``*``, ``?``) as a SQL LIKE pattern with ``\`` as its escape character."""
    escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%").replace("?", "_")
