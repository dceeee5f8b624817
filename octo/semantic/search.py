"""semanticSearchCode: find code by meaning and by words, in an index, with the hits widened to
their function or class and every answer saying how much of the index has vectors."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import cut_lines
from octo.core.errors import OctoError
from octo.core.formats import compact_json
from octo.core.formats import iso_utc
from octo.semantic.backend import SemanticBackend
from octo.semantic.indexes import authorize
from octo.semantic.indexes import index_call
from octo.semantic.indexes import locate
from octo.semantic.indexing import model_mismatch
from octo.semantic.languages import canonical_language
from octo.semantic.models import SearchContext
from octo.semantic.models import SearchHit
from octo.semantic.models import SemanticSearchQuery
from octo.semantic.models import SemanticSearchResult
from octo.semantic.ranking import Mode
from octo.semantic.ranking import Ranked
from octo.semantic.ranking import rank
from octo.semantic.store import ChunkFilter
from octo.semantic.store import IndexStore
from octo.semantic.terms import query_terms

#: An index older than this is stale (the seed's rule).
STALE_AFTER = 7 * 86400
#: smartContext widens a hit to its enclosing symbol only when that symbol is this short.
SMART_MAX_LINES = 120


@dataclass(frozen=True)
class _Shape:
    """How hits are cut: context lines, smart widening, and characters per hit."""

    before: int | None
    after: int | None
    smart: bool
    budget_chars: int


def _mode(query: SemanticSearchQuery, embedded: int) -> Mode:
    if embedded == 0:
        return "keyword"
    return "semantic" if query.useHybridSearch is False else "hybrid"


def _filter(query: SemanticSearchQuery, prefix: str | None) -> ChunkFilter:
    languages = tuple(dict.fromkeys(canonical_language(name) for name in query.languages))
    return ChunkFilter(
        languages=languages or None,
        symbol_types=tuple(query.symbol_types) or None,
        symbol_name=query.symbolName,
        path_prefix=prefix,
    )


def build_hits(
    store: IndexStore, name: str, ranked: Sequence[Ranked], limit: int, shape: _Shape
) -> list[SearchHit]:
    """The best ``limit`` hits, widened and cut as ``shape`` says; a hit inside one already
    taken (two windows of one function) is skipped (blocking)."""
    stored = {c.id: c for c in store.chunks(name, [r.id for r in ranked[: limit * 4]])}
    texts: dict[str, list[str] | None] = {}
    taken: list[tuple[str, int, int]] = []
    hits: list[SearchHit] = []
    for ranked_chunk in ranked[: limit * 4]:
        found = stored.get(ranked_chunk.id)
        if found is None:
            continue  # re-indexed meanwhile
        chunk = found.chunk
        if found.path not in texts:
            text = store.file_text(name, found.path)
            texts[found.path] = text.split("\n") if text is not None else None
        lines = texts[found.path]
        start, end = chunk.start_line, chunk.end_line
        explicit = shape.before is not None or shape.after is not None
        scope = chunk.scope_end - chunk.scope_start + 1
        if lines is not None and shape.smart and not explicit and scope <= SMART_MAX_LINES:
            start, end = chunk.scope_start, chunk.scope_end
        if any(p == found.path and a <= start and end <= b for p, a, b in taken):
            continue
        taken.append((found.path, start, end))
        body = lines[start - 1 : end] if lines is not None else chunk.content.split("\n")
        cut = cut_lines([f"{line}\n" for line in body], start, shape.budget_chars, 1)
        before = after = None
        if lines is not None and shape.before:
            before = "\n".join(lines[max(0, start - 1 - shape.before) : start - 1]) or None
        if lines is not None and shape.after:
            after = "\n".join(lines[end : end + shape.after]) or None
        hits.append(
            SearchHit(
                path=found.path,
                startLine=start,
                endLine=cut.last_line,
                score=ranked_chunk.score,
                content=cut.content.rstrip("\n"),
                blockType=chunk.block_type,
                hierarchy=chunk.hierarchy,
                language=found.language,
                symbolType=chunk.symbol_type,
                symbolName=chunk.symbol_name,
                symbolSignature=chunk.signature,
                contextBefore=before,
                contextAfter=after,
                matchType=ranked_chunk.match_type,
                vectorScore=ranked_chunk.vector_score,
                keywordScore=ranked_chunk.keyword_score,
                truncated=True if cut.truncated else None,
            )
        )
        if len(hits) == limit:
            break
    return hits


async def search_code(
    ctx: QueryContext, query: SemanticSearchQuery
) -> Answer[SemanticSearchResult]:
    backend = ctx.backend(SemanticBackend)
    store = backend.store
    located = await locate(ctx, backend, query.indexName, query.path)
    meta = located.meta
    root = authorize(ctx, meta)
    total, embedded = await backend.call(store.counts, meta.name)
    mode = _mode(query, embedded)
    notes: list[str] = []
    vector = None
    if mode != "keyword":
        if meta.model != backend.model:
            raise model_mismatch(meta, backend.model)
        try:
            vector = await backend.embedder().query(query.query)
        except OctoError as exc:
            mode = "keyword"
            notes.append(f"Ranked by keyword only: {exc.message}")
    terms = query_terms(query.query)
    depth = max(50, query.limit * 5)
    ranked = await backend.call(
        rank, store, meta.name, terms, vector, _filter(query, located.prefix), mode, depth
    )
    budget = max(800, ctx.config.max_tokens * ctx.config.chars_per_token // query.limit)
    shape = _Shape(query.contextBefore, query.contextAfter, query.smartContext, budget)
    hits = await backend.call(build_hits, store, meta.name, ranked, query.limit, shape)

    stale_reason = None
    if time.time() - meta.updated_at > STALE_AFTER:
        stale_reason = "indexed more than 7 days ago"
    else:
        stale_reason = await backend.changed_since_indexing(meta.name, root)
    running = meta.name in backend.jobs
    if embedded < total and not running and backend.model == meta.model:
        running = backend.resume_embedding(meta.name)
    answer = Answer(
        SemanticSearchResult(
            searchContext=SearchContext(
                indexName=meta.name,
                root=meta.root,
                resolvedFrom=located.source,
                path=located.prefix,
                mode=mode,
                model=meta.model,
                embeddedChunks=embedded,
                totalChunks=total,
                embeddingRunning=running,
                updatedAt=iso_utc(meta.updated_at),
                stale=stale_reason is not None,
                staleReason=stale_reason,
            ),
            results=hits,
        )
    )
    answer.hint(*notes)
    if stale_reason is not None:
        answer.hint(
            f"The index is stale ({stale_reason}); refresh it: {index_call(meta.root, meta.name)}"
        )
    if embedded < total:
        answer.hint(
            f"{embedded} of {total} chunks have vectors; the rest rank by keyword only"
            + (" (embedding continues in the background)." if running else ".")
        )
    if not hits:
        answer.hint(
            "Nothing matched: drop filters (language, symbolType, symbolName, path) or reword;"
            " exact text search: localSearchCode "
            + compact_json({"pattern": (terms or [query.query])[0], "path": meta.root})
        )
    if any(hit.truncated for hit in hits):
        answer.hint("Hits were cut to the token budget: read the rest with localGetFileContent.")
    return answer
