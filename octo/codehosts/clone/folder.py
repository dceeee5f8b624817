"""The managed clone folder (``OCTO_CLONE_DIR``): one sub-folder per repository, commit and
sparse path, reused while it lasts, expired by age and evicted least recently used first
when the folder outgrows its total.

Each clone has a record in ``.records/`` (what it is, its size, when it was made and last
used). Disk work runs in worker threads; one lock per clone (from a fixed set) keeps two
queries from writing the same clone at once.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import shutil
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from pydantic import BaseModel
from pydantic import ValidationError

from octo.codehosts.clone.extract import Caps
from octo.codehosts.clone.extract import extract
from octo.codehosts.settings import CodeHostSettings

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
#: Locks shared by all clones (a clone's is picked by its name): bounded, whatever is cloned.
_LOCKS = 64
_RECORDS = ".records"
#: Work folders of an extraction (``.partial-*`` inside :func:`extract`, ``.fresh-*`` and
#: ``.stale-*`` here); one older than this was left by a process that died mid-clone.
_LEFTOVER_PREFIXES = (".partial-", ".fresh-", ".stale-")
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


class CloneFolder:
    """The runtime's clone folder (a backend: one per runtime)."""

    def __init__(self, runtime: Runtime) -> None:
        self.root = runtime.config.clone_dir
        self.settings = CodeHostSettings.from_env(runtime.config.env)
        self.clock = time.time
        self._locks = [anyio.Lock() for _ in range(_LOCKS)]

    def lock(self, name: str) -> anyio.Lock:
        """The lock that guards clone ``name``."""
        return self._locks[int(hashlib.sha256(name.encode()).hexdigest(), 16) % _LOCKS]

    def path(self, name: str) -> Path:
        return self.root / name

    def _record_path(self, name: str) -> Path:
        return self.root / _RECORDS / f"{name}.json"

    def _read_record(self, name: str) -> CloneRecord | None:
        try:
            return CloneRecord.model_validate_json(self._record_path(name).read_bytes())
        except (OSError, ValidationError):
            return None

    def _write_record(self, record: CloneRecord) -> None:
        path = self._record_path(record.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{secrets.token_hex(4)}")
        partial.write_text(record.model_dump_json(), encoding="utf-8")
        partial.replace(path)

    def _reuse(self, name: str) -> CloneRecord | None:
        record = self._read_record(name)
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

    def _add(self, record: CloneRecord, data: bytes, stop: threading.Event) -> CloneRecord:
        self.root.mkdir(parents=True, exist_ok=True)
        target = self.path(record.name)
        fresh = target.parent / f".fresh-{secrets.token_hex(8)}"
        caps = Caps(self.settings.clone_max_bytes, self.settings.clone_max_files)
        done = extract(data, fresh, caps=caps, sparse_path=record.sparsePath, stop=stop)
        if target.exists():
            stale = target.parent / f".stale-{secrets.token_hex(8)}"
            target.rename(stale)
            shutil.rmtree(stale, ignore_errors=True)
        fresh.rename(target)
        record = record.model_copy(update={"size": done.size, "files": done.files})
        self._write_record(record)
        self._evict(keep=record.name)
        return record

    async def add(self, record: CloneRecord, data: bytes) -> CloneRecord:
        """Extract the archive ``data`` as clone ``record.name`` (replacing an older one),
        then expire and evict others; the record with its size and file count."""
        stop = threading.Event()
        try:
            return await anyio.to_thread.run_sync(self._add, record, data, stop)
        finally:
            stop.set()

    def _evict(self, keep: str) -> None:
        """Remove what a dead process left, expired clones, then the least recently used
        while over the total."""
        self._sweep_leftovers()
        records = [
            r
            for r in (self._read_record(p.stem) for p in (self.root / _RECORDS).glob("*.json"))
            if r is not None and r.name != keep
        ]
        now = self.clock()
        live = []
        for record in records:
            if now - record.created > self.settings.clone_max_age:
                self._remove(record.name)
            else:
                live.append(record)
        kept = self._read_record(keep)
        total = sum(r.size for r in live) + (kept.size if kept else 0)
        for record in sorted(live, key=lambda r: r.used):
            if total <= self.settings.clone_max_total:
                break
            self._remove(record.name)
            total -= record.size

    def _sweep_leftovers(self) -> None:
        # An hour old: no extraction of a live process takes that long (its timeout is 300 s).
        now = time.time()
        for entry in self.root.iterdir():
            if not entry.name.startswith(_LEFTOVER_PREFIXES) or entry.is_symlink():
                continue
            try:
                old = now - entry.stat().st_mtime > _LEFTOVER_AGE
            except OSError:
                continue
            if old:
                shutil.rmtree(entry, ignore_errors=True)

    def _remove(self, name: str) -> None:
        shutil.rmtree(self.path(name), ignore_errors=True)
        self._record_path(name).unlink(missing_ok=True)
