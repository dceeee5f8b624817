"""The managed clone folder (``OCTO_CLONE_DIR``): one sub-folder per credential identity,
in it one per repository, commit and sparse path, reused while it lasts, expired by age
and evicted least recently used first when the whole folder outgrows its total.

A clone is visible only to the credential identity that fetched it (as content handles
are): each identity's clones are in their own folder, the one extra root of its runtimes
(:func:`~octo.core.files.paths.clone_root`), and nothing else of the clone folder is
readable through a tool. The folder and all in it are owner-only. Records (what a clone
is, its size, when it was made and last used) are in ``.records/<identity>/``; downloads
and extractions in progress in ``.work/``, both outside every root.

Downloads stream to a file; the extraction runs in a child process
(:mod:`octo.codehosts.clone.unpack`); at most ``OCTO_CLONE_MAX_CONCURRENT`` clones of a
runtime download or extract at once. One lock per clone (from a fixed set) keeps two
queries from writing the same clone at once.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import time
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from anyio import AsyncFile
from pydantic import BaseModel
from pydantic import ValidationError

from octo.codehosts.clone.extract import Caps
from octo.codehosts.clone.unpack import unpack
from octo.codehosts.settings import CodeHostSettings
from octo.core.errors import ToolNotAvailableError
from octo.core.files.paths import clone_root
from octo.transports.http.body import BodySink

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
#: Locks shared by all clones (a clone's is picked by its name): bounded, whatever is cloned.
_LOCKS = 64
_RECORDS = ".records"
_WORK = ".work"
#: A work entry older than this was left by a process that died mid-clone (a clone's
#: download and extraction end at its query's deadline, minutes at most).
_LEFTOVER_AGE = 3600.0


class CloneRecord(BaseModel):
    """What one clone is, in ``.records/<name>.json``."""

    name: str
    owner: str
    repo: str
    commit: str
    sparsePath: str | None = None
    size: int
    files: int
    created: float
    used: float


def clone_name(host: str, owner: str, repo: str, commit: str, sparse_path: str | None) -> str:
    """The clone's folder name: readable, one path component, distinct per host, repository,
    commit and sparse path."""
    readable = _UNSAFE.sub("_", f"{host}-{owner.replace('/', '~')}-{repo}")[:120]
    name = f"{readable}-{commit[:12]}"
    if sparse_path:
        name += "-" + hashlib.sha256(sparse_path.encode()).hexdigest()[:8]
    return name


class ArchiveFile(BodySink):
    """A download's file, written as the body arrives (a retry starts it over)."""

    def __init__(self, file: AsyncFile[bytes]) -> None:
        self._file = file

    async def restart(self) -> None:
        await self._file.seek(0)
        await self._file.truncate()

    async def write(self, chunk: bytes) -> bool:
        await self._file.write(chunk)
        return True

    async def end(self) -> None:
        """Nothing to finish: the file is closed by its opener."""


def _owner_only(folder: Path) -> None:
    """Make ``folder`` (created when missing) owner-only: readable by no other user."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)


class CloneFolder:
    """The runtime's clone folder (a backend: one per runtime, of one credential identity)."""

    def __init__(self, runtime: Runtime) -> None:
        self.base = runtime.config.clone_dir
        #: This identity's clones: the extra root of its runtimes.
        self.root = clone_root(self.base, runtime.identity)
        self._records = self.base / _RECORDS / self.root.name
        self._work = self.base / _WORK
        self.env = runtime.config.env
        self.settings = CodeHostSettings.from_env(runtime.config.env)
        self.clock = time.time
        self._locks = [anyio.Lock() for _ in range(_LOCKS)]
        self._running = anyio.CapacityLimiter(self.settings.clone_max_concurrent)

    def lock(self, name: str) -> anyio.Lock:
        """The lock that guards clone ``name``."""
        return self._locks[int(hashlib.sha256(name.encode()).hexdigest(), 16) % _LOCKS]

    def path(self, name: str) -> Path:
        return self.root / name

    def _record_path(self, name: str) -> Path:
        return self._records / f"{name}.json"

    def _read_record(self, path: Path) -> CloneRecord | None:
        try:
            return CloneRecord.model_validate_json(path.read_bytes())
        except (OSError, ValidationError):
            return None

    def _write_record(self, record: CloneRecord) -> None:
        path = self._record_path(record.name)
        partial = path.with_suffix(f".{secrets.token_hex(4)}")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with open(descriptor, "w", encoding="utf-8") as out:
            out.write(record.model_dump_json())
        partial.replace(path)

    def _reuse(self, name: str) -> CloneRecord | None:
        record = self._read_record(self._record_path(name))
        if record is None or not self.path(name).is_dir():
            return None
        if self.clock() - record.created > self.settings.clone_max_age:
            return None
        record = record.model_copy(update={"used": self.clock()})
        self._write_record(record)
        return record

    async def reuse(self, name: str) -> CloneRecord | None:
        """Clone ``name`` when it is there and not expired (its last use renewed)."""
        return await anyio.to_thread.run_sync(self._reuse, name)

    def _prepare(self) -> None:
        for folder in (self.base, self._work, self.root, self._records.parent, self._records):
            _owner_only(folder)

    async def add(
        self, record: CloneRecord, download: Callable[[BodySink], Awaitable[None]]
    ) -> CloneRecord:
        """Stream ``download`` to a file and extract it as clone ``record.name`` (replacing
        an older one), then expire and evict others; the record with its size and file
        count. Nothing is left of a failed or cancelled clone."""
        token = secrets.token_hex(8)
        archive, extracted = self._work / f"download-{token}", self._work / f"partial-{token}"
        try:
            await anyio.to_thread.run_sync(self._prepare)
            try:
                async with self._running:
                    async with await anyio.open_file(archive, "xb") as file:
                        await download(ArchiveFile(file))
                    done = await unpack(
                        archive,
                        extracted,
                        caps=Caps(self.settings.clone_max_bytes, self.settings.clone_max_files),
                        sparse_path=record.sparsePath,
                        env=self.env,
                    )
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(lambda: archive.unlink(missing_ok=True))
            record = record.model_copy(update={"size": done.size, "files": done.files})
            # Extracted, it is put in place whatever happens now: nothing is left half-done.
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self._place, record, extracted)
        except OSError as exc:
            raise ToolNotAvailableError(
                f"The clone folder could not be written: {exc.strerror or exc}",
                hints=["Check the space and permissions of OCTO_CLONE_DIR."],
            ) from None
        return record

    def _place(self, record: CloneRecord, extracted: Path) -> None:
        target = self.path(record.name)
        if target.exists():
            stale = self._work / f"stale-{secrets.token_hex(8)}"
            target.rename(stale)
            shutil.rmtree(stale, ignore_errors=True)
        extracted.rename(target)
        self._write_record(record)
        self._evict(keep=record.name)

    def _evict(self, keep: str) -> None:
        """Remove what a dead process left, expired clones of every identity, then the least
        recently used while the whole folder is over its total."""
        self._sweep_leftovers()
        records: list[tuple[Path, CloneRecord]] = []
        for path in (self.base / _RECORDS).glob("*/*.json"):
            record = self._read_record(path)
            if record is not None and not (path.parent == self._records and record.name == keep):
                records.append((path, record))
        now = self.clock()
        live = []
        for path, record in records:
            if now - record.created > self.settings.clone_max_age:
                self._remove(path, record)
            else:
                live.append((path, record))
        kept = self._read_record(self._record_path(keep))
        total = sum(r.size for _, r in live) + (kept.size if kept else 0)
        for path, record in sorted(live, key=lambda pair: pair[1].used):
            if total <= self.settings.clone_max_total:
                break
            self._remove(path, record)
            total -= record.size

    def _sweep_leftovers(self) -> None:
        now = time.time()
        for entry in self._work.iterdir():
            try:
                old = now - entry.lstat().st_mtime > _LEFTOVER_AGE
            except OSError:
                continue
            if old and entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            elif old:
                entry.unlink(missing_ok=True)

    def _remove(self, record_path: Path, record: CloneRecord) -> None:
        """Remove a clone of any identity: its folder (named like its records' folder) and
        its record."""
        shutil.rmtree(self.base / record_path.parent.name / record.name, ignore_errors=True)
        record_path.unlink(missing_ok=True)
