"""Connections to the SQLite index files, pooled: opening one (WAL, pragmas) costs several
milliseconds, and a search makes a dozen store calls, so each index keeps its idle
connections for the next call instead of opening one per call.

A pooled connection is used again only while its file is the one it opened (same inode and
change time: an inode number may be reused by a file made after a deletion): an index cleared
or rebuilt by another process is opened afresh, and a deleted one is NOT_FOUND.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from octo.core.errors import NotFoundError
from octo.core.errors import ToolNotAvailableError

#: Idle connections kept per index: more than the worker threads one search keeps busy.
IDLE_PER_INDEX = 4
_Identity = tuple[int, int, int]


def _identity(path: Path) -> _Identity:
    """What tells one database file from another made at the same path."""
    info = os.stat(path)
    return info.st_dev, info.st_ino, info.st_ctime_ns


class SqliteConnections:
    """The connections of every index under ``directory``; ``schema`` creates an index."""

    def __init__(self, directory: Path, schema: str) -> None:
        self.directory = directory
        self._schema = schema
        self._idle: dict[str, list[tuple[sqlite3.Connection, _Identity]]] = {}
        self._lock = threading.Lock()

    def path(self, name: str) -> Path:
        return self.directory / f"{name}.sqlite"

    @contextmanager
    def transaction(self, name: str, *, create: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection to index ``name`` in one transaction (committed on success).

        SQLite failures are not octo's bugs: an index deleted meanwhile is NOT_FOUND, an
        unwritable directory or a database locked for 30 s is TOOL_NOT_AVAILABLE.
        """
        path = self.path(name)
        try:
            db, inode = self._take(name, path, create)
        except (sqlite3.Error, OSError) as exc:
            raise self._error(name, path, create, exc) from None
        try:
            with db:
                yield db
        except (sqlite3.Error, OSError) as exc:
            db.close()
            raise self._error(name, path, create, exc) from None
        except BaseException:
            db.close()
            raise
        with self._lock:
            idle = self._idle.setdefault(name, [])
            if len(idle) < IDLE_PER_INDEX:
                idle.append((db, inode))
                return
        db.close()

    def _take(self, name: str, path: Path, create: bool) -> tuple[sqlite3.Connection, _Identity]:
        if create:
            self.directory.mkdir(parents=True, exist_ok=True)
        inode = _identity(path) if path.exists() or not create else None
        with self._lock:
            idle = self._idle.get(name, [])
            while idle:
                db, known = idle.pop()
                if known == inode and not create:
                    return db, known
                db.close()
        uri = f"file:{quote(str(path))}?mode={'rwc' if create else 'rw'}"
        db = sqlite3.connect(uri, uri=True, timeout=30.0, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout = 30000")
            if create:
                db.execute("PRAGMA journal_mode = WAL")
                db.executescript(self._schema)
            db.execute("PRAGMA synchronous = NORMAL")
            return db, _identity(path)
        except BaseException:
            db.close()
            raise

    def _error(
        self, name: str, path: Path, create: bool, exc: BaseException
    ) -> NotFoundError | ToolNotAvailableError:
        if not create and not path.exists():
            return NotFoundError(
                f"Index '{name}' was deleted",
                hints=["List the indexes: semanticListIndexes {}"],
            )
        return ToolNotAvailableError(
            f"The index store at {self.directory} failed: {exc}",
            hints=["Check that OCTO_INDEX_DIR is writable and has free space, then retry."],
        )

    def forget(self, name: str) -> None:
        """Close the idle connections of index ``name`` (deleted, or the store closing)."""
        with self._lock:
            idle = self._idle.pop(name, [])
        for db, _ in idle:
            db.close()

    def close(self) -> None:
        """Close every idle connection."""
        with self._lock:
            names = list(self._idle)
        for name in names:
            self.forget(name)
