"""semanticIndexCodebase: bring an index in step with its tree, incrementally.

Files whose size and modification time are unchanged are not read; changed files are
re-chunked; a chunk whose text was embedded before (anywhere in the index) keeps its vector.
The keyword side is written in batches of files, each one transaction, so an interrupted run
keeps what it finished. Vectors are computed afterwards, in the background or (with
``waitForEmbeddings``) before the answer.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.errors import InvalidQueryError
from octo.core.errors import OctoError
from octo.core.errors import ToolNotAvailableError
from octo.core.formats import compact_json
from octo.semantic.backend import EmbeddingJob
from octo.semantic.backend import SemanticBackend
from octo.semantic.indexes import default_index_name
from octo.semantic.indexes import index_call
from octo.semantic.indexing.chunking import chunk_file
from octo.semantic.indexing.walk import ScannedFile
from octo.semantic.indexing.walk import SkippedFile
from octo.semantic.indexing.walk import list_files
from octo.semantic.indexing.walk import scan_files
from octo.semantic.models import EmbeddingState
from octo.semantic.models import IndexCodebaseQuery
from octo.semantic.models import IndexCodebaseResult
from octo.semantic.models import IndexRunStats
from octo.semantic.store.interface import FileWrite
from octo.semantic.store.interface import IndexMeta
from octo.transports.ripgrep import RgQueue

#: Files per transaction of the keyword side: what an interruption may lose.
FILE_BATCH = 200
#: Skipped files named in an answer (all are counted).
SKIPPED_SHOWN = 20


def model_mismatch(meta: IndexMeta, model: str) -> ToolNotAvailableError:
    """The error for an index whose vectors come from another model than this gateway's."""
    return ToolNotAvailableError(
        f"Index '{meta.name}' was embedded with model '{meta.model}', but this gateway embeds"
        f" with '{model}'; vectors of two models cannot be compared",
        hints=[
            "Use the index's model (OCTO_EMBED_URL / OCTO_EMBED_MODEL, or unset both for the"
            " bundled one), or rebuild it: "
            f"semanticClearIndex {compact_json({'indexName': meta.name})} then "
            + index_call(meta.root, meta.name),
        ],
    )


def _writes(scanned: list[ScannedFile], skipped: list[SkippedFile]) -> list[FileWrite]:
    """What to store of a batch (blocking: files are parsed here); a file the chunker
    cannot take (nesting deeper than Python's stack) joins ``skipped``."""
    writes = []
    for f in scanned:
        if f.text is None:
            writes.append(FileWrite(f.path, f.language, f.state))
            continue
        try:
            chunks = chunk_file(f.text, f.language)
        except RecursionError:
            skipped.append(SkippedFile(f.path, f"'{f.path}' is nested too deeply to chunk"))
            continue
        writes.append(FileWrite(f.path, f.language, f.state, f.text, chunks))
    return writes


async def _root(ctx: QueryContext, raw: str) -> Path:
    root = await anyio.to_thread.run_sync(ctx.paths.resolve, raw)
    if not await anyio.to_thread.run_sync(root.is_dir):
        raise InvalidQueryError(
            f"'{raw}' is not a directory",
            hints=[
                f"Index the directory that holds it: semanticIndexCodebase {compact_json({'path': str(root.parent)})}"
            ],
        )
    return root


async def _sync_files(
    ctx: QueryContext, backend: SemanticBackend, root: Path, name: str
) -> IndexRunStats:
    store = backend.store
    fenced = ctx.paths.fenced_below(root)
    names = await list_files(root, ctx.config, fenced, ctx.backend(RgQueue).place(ctx.arrived))
    known = await backend.call(store.file_states, name)
    added = updated = 0
    seen: set[str] = set()
    skipped: list[SkippedFile] = []
    for start in range(0, len(names), FILE_BATCH):
        batch = names[start : start + FILE_BATCH]
        scan = await anyio.to_thread.run_sync(scan_files, root, batch, known)
        skipped.extend(scan.skipped)
        changed = [f for f in scan.files if f.text is not None or known.get(f.path) != f.state]
        writes = await anyio.to_thread.run_sync(_writes, changed, skipped) if changed else []
        seen.update(f.path for f in scan.files)
        added += sum(1 for w in writes if w.chunks is not None and w.path not in known)
        updated += sum(1 for w in writes if w.chunks is not None and w.path in known)
        if writes:
            await backend.call(store.write_files, name, writes)
        done = min(start + FILE_BATCH, len(names))
        await ctx.report_progress(done, len(names), f"indexed {done}/{len(names)} files")
    # A file skipped now leaves the index: what it said before may no longer be true.
    removed = sorted(set(known) - (seen - {f.path for f in skipped}))
    if removed:
        await backend.call(store.remove_files, name, removed)
    await backend.call(store.finish, name, time.time())
    total, _ = await backend.call(store.counts, name)
    return IndexRunStats(
        filesAdded=added,
        filesUpdated=updated,
        filesRemoved=len(removed),
        filesSkipped=len(skipped),
        skipped=[f"{f.path}: {f.reason}" for f in skipped[:SKIPPED_SHOWN]],
        chunks=total,
    )


async def _embedding(
    ctx: QueryContext, backend: SemanticBackend, name: str, wait: bool
) -> tuple[EmbeddingState, list[str]]:
    """How far the vectors are, and the hints of an embedder that cannot run (what to
    install or configure: indexing again would not help)."""
    total, embedded = await backend.call(backend.store.counts, name)
    model = backend.model
    if embedded == total:
        state = EmbeddingState(
            status="complete", model=model, embeddedChunks=embedded, totalChunks=total
        )
        return state, []
    try:
        backend.embedder()
    except OctoError as exc:
        state = EmbeddingState(
            status="unavailable",
            model=model,
            embeddedChunks=embedded,
            totalChunks=total,
            message=f"{exc.message}; searches rank by keyword only",
        )
        return state, list(exc.hints)
    return await _vectors(ctx, backend, name, wait), []


async def _vectors(
    ctx: QueryContext, backend: SemanticBackend, name: str, wait: bool
) -> EmbeddingState:
    """Start (or join) the embedding of index ``name``; wait for it when ``wait``."""
    total, embedded = await backend.call(backend.store.counts, name)
    model = backend.model
    job = backend.start_embedding(name)
    if not wait:
        status: Literal["background", "not started"]
        if job is None:
            message = (
                "this gateway runs no background work (a library Gateway not entered with"
                " `async with`); searches rank unembedded chunks by keyword"
            )
            status = "not started"
        else:
            message = (
                "vectors are being computed in the background while this gateway runs;"
                " searches rank unembedded chunks by keyword meanwhile"
            )
            status = "background"
        return EmbeddingState(
            status=status, model=model, embeddedChunks=embedded, totalChunks=total, message=message
        )
    if job is None:
        job = EmbeddingJob(name)
        job.listeners.append(ctx.report_progress)
        await backend.run_job(job)
    else:
        job.listeners.append(ctx.report_progress)
        try:
            await job.done.wait()
        finally:
            job.listeners.remove(ctx.report_progress)
    if job.error is not None:
        raise ToolNotAvailableError(
            f"Embedding index '{name}' stopped: {job.error}",
            hints=["The keyword index is complete; retry to resume the embedding."],
        )
    total, embedded = await backend.call(backend.store.counts, name)
    return EmbeddingState(
        status="complete" if embedded == total else "background",
        model=model,
        embeddedChunks=embedded,
        totalChunks=total,
    )


async def index_codebase(
    ctx: QueryContext, query: IndexCodebaseQuery
) -> Answer[IndexCodebaseResult]:
    started = time.perf_counter()
    backend = ctx.backend(SemanticBackend)
    root = await _root(ctx, query.path)
    name = query.indexName or default_index_name(root)
    model = backend.model
    async with backend.writer(name):
        meta = await backend.call(backend.store.meta, name)
        if meta is None:
            now = time.time()
            meta = IndexMeta(name, str(root), model, now, now)
            await backend.call(backend.store.create, meta)
        elif meta.root != str(root):
            raise InvalidQueryError(
                f"Index '{name}' already covers {meta.root}",
                hints=[
                    f"Choose another indexName, or leave it out: semanticIndexCodebase {compact_json({'path': query.path})}"
                ],
            )
        elif meta.model != model:
            raise model_mismatch(meta, model)
        stats = await _sync_files(ctx, backend, root, name)
    backend.forget(name)
    embedding, setup_hints = await _embedding(ctx, backend, name, query.waitForEmbeddings)
    answer = Answer(
        IndexCodebaseResult(
            indexName=name,
            path=str(root),
            stats=stats,
            elapsedMs=round((time.perf_counter() - started) * 1000),
            embedding=embedding,
        )
    )
    answer.hint(
        f"Search it: semanticSearchCode {compact_json({'query': 'what you look for', 'indexName': name})}",
        *setup_hints,
    )
    if embedding.status in ("background", "not started"):
        query_json = {"path": str(root), "indexName": name, "waitForEmbeddings": True}
        answer.hint(
            f"Wait for every vector: semanticIndexCodebase {compact_json(query_json)}"
            f" (or `octo index {root}`)"
        )
    if stats.filesSkipped:
        answer.hint(
            f"{stats.filesSkipped} file(s) could not be indexed and were skipped (stats.skipped"
            " says why); the rest of the tree is indexed."
        )
    return answer
