"""semanticSearchCode: find code by meaning and by words, in an index, with the hits widened to
their function or class and every answer saying how much of the index has vectors and which
ranking it used."""

from __future__ import annotations

import time

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.errors import OctoError
from octo.core.formats import compact_json
from octo.core.formats import iso_utc
from octo.semantic.backend import SemanticBackend
from octo.semantic.index_codebase import model_mismatch
from octo.semantic.indexes import authorize
from octo.semantic.indexes import finish_call
from octo.semantic.indexes import index_call
from octo.semantic.indexes import locate
from octo.semantic.indexing.embedder import similarity_floor
from octo.semantic.indexing.languages import canonical_language
from octo.semantic.indexing.terms import query_terms
from octo.semantic.models import SearchContext
from octo.semantic.models import SemanticSearchQuery
from octo.semantic.models import SemanticSearchResult
from octo.semantic.search.hits import HitCut
from octo.semantic.search.hits import build_hits
from octo.semantic.search.ranking import Mode
from octo.semantic.search.ranking import rank
from octo.semantic.search.ranking import ranking_used
from octo.semantic.store.interface import ChunkFilter

#: An index older than this is stale (the seed's rule).
STALE_AFTER = 7 * 86400


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
    # An embedder that cannot run here: its hints say what to install, and no hint sends
    # the caller to index again (that would not give vectors either).
    cannot_embed = False
    if mode != "keyword":
        if meta.model != backend.model:
            raise model_mismatch(meta, backend.model)
        try:
            vector = await backend.embedder().query(query.query)
        except OctoError as exc:
            mode = "keyword"
            cannot_embed = True
            notes.extend([f"Ranked by keyword only: {exc.message}", *exc.hints])
    terms = query_terms(query.query)
    depth = max(50, query.limit * 5)
    share = embedded / total if total else 1.0
    where = _filter(query, located.prefix)
    ranked = await backend.call(rank, store, meta.name, terms, vector, where, mode, depth, share)
    budget = max(800, ctx.config.max_tokens * ctx.config.chars_per_token // query.limit)
    cut_as = HitCut(query.contextBefore, query.contextAfter, query.smartContext, budget)
    floor = similarity_floor(meta.model)
    hits = await backend.call(
        build_hits, store, meta.name, ranked, query.limit, cut_as, terms, floor
    )

    stale_reason = None
    if time.time() - meta.updated_at > STALE_AFTER:
        stale_reason = "indexed more than 7 days ago"
    else:
        stale_reason = await backend.changed_since_indexing(meta.name, root)
    running = await backend.embedding_running(meta.name)
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
                ranking=ranking_used(mode, share),
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
    if embedded < total and not cannot_embed:
        try:
            backend.embedder()  # cheap: finds the model's files, loads nothing
        except OctoError as exc:
            cannot_embed = True
            answer.hint(f"The index has no vectors here: {exc.message}", *exc.hints)
    if embedded < total and not cannot_embed:
        answer.hint(
            f"The index is incomplete: {embedded} of {total} chunks have vectors, the rest rank"
            " by keyword"
            + (" (embedding continues in the background)" if running else "")
            + f"; finish it: {finish_call(meta)} (or `octo index {meta.root}`)"
        )
    if not hits:
        answer.hint(
            "Nothing matched: drop filters (language, symbolType, symbolName, path) or reword;"
            " exact text search: localSearchCode "
            + compact_json({"pattern": (terms or [query.query])[0], "path": meta.root})
        )
    elif all(hit.weak for hit in hits):
        answer.hint(
            "No hit matches well (all weak: few of the query's words, far in meaning): reword"
            " with words the code would use, or search exact text with localSearchCode."
        )
    elif any(hit.weak for hit in hits):
        answer.hint("Hits marked weak match the query badly: treat them as leads, not answers.")
    if any(hit.truncated for hit in hits):
        answer.hint("Hits were cut to the token budget: read the rest with localGetFileContent.")
    return answer
