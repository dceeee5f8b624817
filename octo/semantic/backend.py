"""The semantic family's per-runtime backend: the store, the embedder, one writer per index, and
the background jobs that compute vectors batch by batch.

Nobody waits for vectors to search: indexing writes the keyword side at once, then a job embeds
the chunks that have no vector yet in batches, each committed as it is done. A job interrupted
(the gateway closed, the machine stopped) loses at most its batch in flight; the next index run
or search resumes it from what the store says is missing.

One process embeds an index at a time: the job holds a lease in the store, renewed by every
batch and released when it stops, so ``embeddingRunning`` is true in every process exactly
while some process embeds. A job that finds the lease taken follows the other's progress and
takes over if that lease lapses (its holder died).
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TypeVar

import anyio

from octo.contract import ProgressReporter
from octo.contract import Runtime
from octo.core.errors import OctoError
from octo.core.errors import ToolNotAvailableError
from octo.semantic.indexing.embedder import Embedder
from octo.semantic.indexing.embedder import build_embedder
from octo.semantic.indexing.embedder import configured_model
from octo.semantic.indexing.walk import FileState
from octo.semantic.store.choice import open_store
from octo.semantic.store.interface import IndexStore

logger = logging.getLogger("octo.semantic")
T = TypeVar("T")

#: How long an embedding lease lives without renewal: longer than the slowest batch.
LEASE_SECONDS = 90.0
#: How often a job that waits on another process's lease looks again.
FOLLOW_SECONDS = 2.0
#: How long a "files changed since indexing" check is trusted.
STALE_CHECK_SECONDS = 30.0


@dataclass
class EmbeddingJob:
    """Embeds the chunks of one index that have no vector yet, until none is left."""

    name: str
    done: anyio.Event = field(default_factory=anyio.Event)
    listeners: list[ProgressReporter] = field(default_factory=list)
    error: str | None = None
    embedded: int = 0
    total: int = 0


class SemanticBackend:
    """Built once per runtime (``ctx.backend(SemanticBackend)``)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.env = runtime.config.env
        self._store: IndexStore | None = None
        self._embedder: Embedder | None = None
        self._writers: dict[str, anyio.Lock] = {}
        self.jobs: dict[str, EmbeddingJob] = {}
        self._freshness: dict[str, tuple[float, str | None]] = {}
        #: This runtime's name on embedding leases.
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    @property
    def store(self) -> IndexStore:
        if self._store is None:
            self._store = open_store(self.env)
        return self._store

    @property
    def model(self) -> str:
        """The model this gateway embeds with (an index built with another cannot be searched
        by vector here)."""
        return configured_model(self.env)

    def embedder(self) -> Embedder:
        if self._embedder is None:
            http = self.runtime.http if self.env.get("OCTO_EMBED_URL") else None
            self._embedder = build_embedder(self.env, http)
        return self._embedder

    async def call(self, func: Callable[..., T], *args: object) -> T:
        """Run a blocking store call in a worker thread."""
        return await anyio.to_thread.run_sync(func, *args)

    def writer(self, name: str) -> anyio.Lock:
        """The lock every writer of index ``name`` in this process holds."""
        return self._writers.setdefault(name, anyio.Lock())

    def start_embedding(self, name: str) -> EmbeddingJob | None:
        """The running job of index ``name``, else a new one in the runtime's background;
        None when this gateway runs no background work (not entered with ``async with``)."""
        job = self.jobs.get(name)
        if job is not None:
            return job
        job = EmbeddingJob(name)
        try:
            self.runtime.start_background(self.run_job, job, name=f"octo-embed-{name}")
        except ToolNotAvailableError:
            return None
        self.jobs[name] = job
        return job

    def resume_embedding(self, name: str) -> bool:
        """Start embedding index ``name`` in the background when a model is at hand; True when
        a job runs for it."""
        try:
            self.embedder()
        except OctoError:
            return False
        return self.start_embedding(name) is not None

    async def run_job(self, job: EmbeddingJob) -> None:
        """Embed batch after batch; never raises (it runs in the runtime's task group, where
        an error would stop every other background task)."""
        self.jobs.setdefault(job.name, job)
        try:
            await self._embed_all(job)
        except OctoError as exc:
            job.error = exc.message
        except Exception as exc:  # noqa: BLE001 - a store failure ends this job, not the gateway
            logger.warning("embedding of index %s stopped: %s", job.name, exc)
            job.error = f"{type(exc).__name__}: {exc}"
        finally:
            if self.jobs.get(job.name) is job:
                del self.jobs[job.name]
            job.done.set()

    async def _embed_all(self, job: EmbeddingJob) -> None:
        store = self.store
        await self._report(job)
        try:
            while job.embedded < job.total:
                until = time.time() + LEASE_SECONDS
                if not await self.call(store.claim, job.name, self.holder, until):
                    await anyio.sleep(FOLLOW_SECONDS)  # another process embeds: follow it
                    await self._report(job)
                    continue
                embedder = self.embedder()
                batch = await self.call(store.pending, job.name, embedder.batch)
                if not batch:
                    return
                vectors = await embedder.passages([text for _, text in batch])
                async with self.writer(job.name):
                    if await self.call(store.meta, job.name) is None:
                        return  # cleared meanwhile
                    pairs = [(digest, vectors[i]) for i, (digest, _) in enumerate(batch)]
                    await self.call(store.add_vectors, job.name, pairs)
                await self._report(job)
        finally:
            # A cleared index has no lease left to release.
            with anyio.CancelScope(shield=True), suppress(OctoError):
                await self.call(store.release, job.name, self.holder)

    async def _report(self, job: EmbeddingJob) -> None:
        job.total, job.embedded = await self.call(self.store.counts, job.name)
        for listener in list(job.listeners):
            await listener(job.embedded, job.total, f"embedded {job.embedded}/{job.total} chunks")

    async def embedding_running(self, name: str) -> bool:
        """True while some process (this one or another) embeds index ``name``."""
        return await self.call(self.store.embedding_running, name, time.time())

    async def changed_since_indexing(self, name: str, root: Path) -> str | None:
        """Why index ``name`` no longer matches its files (changed or deleted files), else
        None; checked with one ``stat`` per file, at most every STALE_CHECK_SECONDS."""
        now = time.monotonic()
        checked = self._freshness.get(name)
        if checked is not None and now - checked[0] < STALE_CHECK_SECONDS:
            return checked[1]
        states = await self.call(self.store.file_states, name)
        reason = await anyio.to_thread.run_sync(_changed_files, root, states)
        self._freshness[name] = (now, reason)
        return reason

    def forget(self, name: str) -> None:
        """Drop what this backend remembers of index ``name`` (re-indexed or cleared)."""
        self._freshness.pop(name, None)

    async def aclose(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def _changed_files(root: Path, states: dict[str, FileState]) -> str | None:
    changed = 0
    for path, state in states.items():
        try:
            info = (root / path).stat()
        except OSError:
            changed += 1
            continue
        if (info.st_size, info.st_mtime_ns) != (state.size, state.mtime_ns):
            changed += 1
    if changed:
        return f"{changed} indexed file(s) changed or were deleted since indexing"
    return None
