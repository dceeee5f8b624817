"""Finding, listing, describing and clearing indexes: semanticListIndexes, semanticIndexStats,
semanticClearIndex, and how a search finds its index when it names none."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.errors import NotFoundError
from octo.core.errors import PathNotAllowedError
from octo.core.formats import compact_json
from octo.core.formats import iso_utc
from octo.semantic.backend import SemanticBackend
from octo.semantic.models import ClearIndexResult
from octo.semantic.models import IndexDetails
from octo.semantic.models import IndexNameQuery
from octo.semantic.models import IndexStatsQuery
from octo.semantic.models import IndexStatsResult
from octo.semantic.models import IndexSummary
from octo.semantic.models import ListIndexesQuery
from octo.semantic.models import ListIndexesResult
from octo.semantic.store.interface import IndexMeta

_LIST_HINT = "semanticListIndexes {}"


def default_index_name(root: Path) -> str:
    """``<folder>-<6 hex of the absolute path>``: readable, and distinct for two checkouts of
    one project."""
    folder = re.sub(r"[^A-Za-z0-9._-]+", "-", root.name).strip("-._")[:40] or "root"
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogatepass")).hexdigest()[:6]
    return f"{folder}-{digest}"


def index_call(root: Path | str, name: str) -> str:
    """The call that builds or refreshes index ``name`` of ``root``, for hints."""
    return f"semanticIndexCodebase {compact_json({'path': str(root), 'indexName': name})}"


def finish_call(meta: IndexMeta) -> str:
    """The call that embeds every chunk of index ``meta``, for hints."""
    query = {"path": meta.root, "indexName": meta.name, "waitForEmbeddings": True}
    return f"semanticIndexCodebase {compact_json(query)}"


def under_roots(ctx: QueryContext, indexes: list[IndexMeta]) -> list[IndexMeta]:
    """The indexes whose tree lies under the call's allowed roots: the others are not shown,
    not even their root path."""
    return [m for m in indexes if ctx.paths.root_of(Path(m.root)) is not None]


def unknown_index(name: str) -> NotFoundError:
    return NotFoundError(
        f"No index named '{name}'",
        hints=[
            f"List the indexes: {_LIST_HINT}",
            f"Build one: semanticIndexCodebase {compact_json({'path': '.', 'indexName': name})}",
        ],
    )


def authorize(ctx: QueryContext, meta: IndexMeta) -> Path:
    """The index's root, when it lies under the call's allowed roots."""
    root = Path(meta.root)
    if ctx.paths.root_of(root) is None:
        raise PathNotAllowedError(
            # Its root is not named: a tree outside the roots is not shown in any answer.
            f"Index '{meta.name}' covers a tree outside the allowed roots",
            hints=[
                "Allowed roots: " + ", ".join(str(r) for r in ctx.paths.roots),
                f"Pick an index of one of them: {_LIST_HINT}",
            ],
        )
    return root


async def existing(backend: SemanticBackend, name: str) -> IndexMeta:
    """Index ``name``, or NOT_FOUND with the calls that list or build indexes."""
    meta = await backend.call(backend.store.meta, name)
    if meta is None:
        raise unknown_index(name)
    return meta


@dataclass(frozen=True)
class Located:
    """The index a search runs on, how it was found, and the sub-path it is limited to."""

    meta: IndexMeta
    source: Literal["indexName", "path", "root"]
    prefix: str | None


async def locate(
    ctx: QueryContext, backend: SemanticBackend, name: str | None, path: str | None
) -> Located:
    """The index of a search: by name; else the deepest index covering ``path``; else the one
    covering the first allowed root that has one."""
    target = await anyio.to_thread.run_sync(ctx.paths.resolve, path) if path else None
    if name is not None:
        meta = await existing(backend, name)
        return Located(meta, "indexName", _prefix(meta, target))
    indexes = await backend.call(backend.store.list_indexes)
    places = [target] if target is not None else list(ctx.paths.roots)
    for place in places:
        covering = [m for m in indexes if place == Path(m.root) or place.is_relative_to(m.root)]
        if covering:
            meta = max(covering, key=lambda m: len(m.root))
            return Located(meta, "path" if target else "root", _prefix(meta, target))
    where = str(target or ctx.paths.roots[0])
    raise NotFoundError(
        f"No index covers {where}",
        hints=[
            f"Index it first: semanticIndexCodebase {compact_json({'path': where})}",
            f"Or name an index: {_LIST_HINT}",
        ],
    )


def _prefix(meta: IndexMeta, target: Path | None) -> str | None:
    if target is None or str(target) == meta.root:
        return None
    if not target.is_relative_to(meta.root):
        raise NotFoundError(
            f"{target} is not inside index '{meta.name}' ({meta.root})",
            hints=[f"Leave indexName out to use the index covering the path, or: {_LIST_HINT}"],
        )
    return target.relative_to(meta.root).as_posix()


async def list_indexes(ctx: QueryContext, query: ListIndexesQuery) -> Answer[ListIndexesResult]:
    backend = ctx.backend(SemanticBackend)
    indexes = under_roots(ctx, await backend.call(backend.store.list_indexes))
    if query.path is not None:
        place = await anyio.to_thread.run_sync(ctx.paths.resolve, query.path)
        indexes = [
            m for m in indexes if place.is_relative_to(m.root) or Path(m.root).is_relative_to(place)
        ]
    answer = Answer(
        ListIndexesResult(
            storage=backend.store.location,
            indexes=[
                IndexSummary(
                    name=m.name, root=m.root, model=m.model, updatedAt=iso_utc(m.updated_at)
                )
                for m in indexes
            ],
        )
    )
    if indexes:
        answer.hint(
            f"Details of one: semanticIndexStats {compact_json({'indexName': indexes[0].name})}"
        )
    else:
        answer.hint('Build one: semanticIndexCodebase {"path": "."}')
    return answer


async def index_stats(ctx: QueryContext, query: IndexStatsQuery) -> Answer[IndexStatsResult]:
    backend = ctx.backend(SemanticBackend)
    if query.indexName is not None:
        meta = await existing(backend, query.indexName)
        authorize(ctx, meta)
        chosen = [meta]
    else:
        chosen = under_roots(ctx, await backend.call(backend.store.list_indexes))
    details = [await _details(backend, meta) for meta in chosen]
    answer = Answer(IndexStatsResult(storage=backend.store.location, indexes=details))
    for meta, item in zip(chosen, details, strict=True):
        if item.embeddedChunks < item.chunks and not item.embeddingRunning:
            answer.hint(
                f"Index '{meta.name}': {item.chunks - item.embeddedChunks} chunks have no vector"
                f" yet (they rank by keyword); finish them: {finish_call(meta)}"
            )
    if not chosen:
        answer.hint(
            'No index under the allowed roots; build one: semanticIndexCodebase {"path": "."}'
        )
    return answer


async def _details(backend: SemanticBackend, meta: IndexMeta) -> IndexDetails:
    stats = await backend.call(backend.store.stats, meta.name)
    return IndexDetails(
        indexName=meta.name,
        root=meta.root,
        files=stats.files,
        chunks=stats.chunks,
        embeddedChunks=stats.embedded_chunks,
        embeddingRunning=await backend.embedding_running(meta.name),
        languages=list(stats.languages),
        filesByLanguage=stats.languages,
        bytes=stats.bytes,
        model=meta.model,
        createdAt=iso_utc(meta.created_at),
        updatedAt=iso_utc(meta.updated_at),
    )


async def clear_index(ctx: QueryContext, query: IndexNameQuery) -> Answer[ClearIndexResult]:
    backend = ctx.backend(SemanticBackend)
    meta = await existing(backend, query.indexName)
    authorize(ctx, meta)
    async with backend.writer(meta.name):
        cleared = await backend.call(backend.store.drop, meta.name)
    backend.forget(meta.name)
    if not cleared:
        raise unknown_index(meta.name)
    answer = Answer(
        ClearIndexResult(
            indexName=meta.name,
            cleared=True,
            message=f"Index '{meta.name}' of {meta.root} cleared",
        )
    )
    answer.hint(f"Rebuild it: {index_call(meta.root, meta.name)}")
    return answer
