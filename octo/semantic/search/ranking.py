"""Hybrid ranking: reciprocal rank fusion of the vector and keyword lists.

RRF (Cormack et al., 2009) scores a chunk by ``sum(1 / (k + rank))`` over the lists it appears
in, with k = 60. It needs no calibration between cosine similarities and BM25 scores, which
live on unrelated scales, and a chunk near the top of both lists beats one that tops only one.

Chunks without a vector yet cannot be in the vector list. Fused naively, an embedded chunk
gets two votes and an unembedded one a single vote, so while an index is partly embedded the
embedded chunks crowd out the rest (hybrid recall@5 fell from 0.94 to 0.78 on held-out
questions). So while vectors are missing every chunk competes on equal terms: a vector rank
among the embedded fraction f of the index is scaled to its expected place among all chunks
(rank / f), and a chunk without a vector casts its keyword rank as its second vote. Below
HYBRID_FROM of the index embedded, even that fusion lost to keywords alone on the benchmark's
questions (half embedded: 0.721 against 0.744 recall@5), so the default ranks by keyword
until then; ``searchContext.ranking`` says which ranking answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set
from dataclasses import dataclass
from dataclasses import replace
from typing import TYPE_CHECKING
from typing import Literal

from octo.semantic.store.interface import ChunkFilter
from octo.semantic.store.interface import IndexStore

if TYPE_CHECKING:
    from octo.semantic.store.interface import Vector

RRF_K = 60
#: The embedded share of an index from which the default (hybrid) mode fuses vectors.
HYBRID_FROM = 0.8
Mode = Literal["hybrid", "semantic", "keyword"]


@dataclass(frozen=True)
class Ranked:
    """A chunk's place in the fused ranking and the scores behind it."""

    id: int
    score: float
    vector_score: float | None
    keyword_score: float | None

    @property
    def match_type(self) -> Literal["semantic", "keyword", "both"]:
        if self.vector_score is not None and self.keyword_score is not None:
            return "both"
        return "semantic" if self.vector_score is not None else "keyword"


#: How each mode ranks, for answers (searchContext.ranking).
RANKINGS = {
    "keyword": "keyword: BM25 only",
    "semantic": "semantic: cosine similarity; chunks without a vector by BM25",
    "hybrid": "hybrid: reciprocal rank fusion of cosine similarity and BM25",
    "partial": "hybrid, partly embedded: reciprocal rank fusion; vector ranks scaled to the"
    " whole index and chunks without a vector voting twice by BM25, so every chunk competes"
    " on equal terms",
    "early": f"keyword: BM25 only until {HYBRID_FROM:.0%} of the index has vectors, so"
    " chunks without one are not crowded out",
}


def fuse(
    vector: Sequence[tuple[int, float]],
    keyword: Sequence[tuple[int, float]],
    share: float = 1.0,
    unembedded: Set[int] = frozenset(),
) -> list[Ranked]:
    """Both lists (best first) fused by RRF; keyword scores reported relative to the best.

    ``share`` is the embedded fraction of the index and ``unembedded`` the keyword hits
    without a vector: their keyword rank stands in for the vector rank they cannot have.
    """
    fused: dict[int, float] = {}
    for rank, (chunk_id, _) in enumerate(vector, start=1):
        fused[chunk_id] = 1.0 / (RRF_K + rank / max(share, 1e-6))
    for rank, (chunk_id, _) in enumerate(keyword, start=1):
        votes = 2.0 if chunk_id in unembedded else 1.0
        fused[chunk_id] = fused.get(chunk_id, 0.0) + votes / (RRF_K + rank)
    cosine = dict(vector)
    best = keyword[0][1] if keyword and keyword[0][1] > 0 else 1.0
    relative = {chunk_id: max(score, 0.0) / best for chunk_id, score in keyword}
    ordered = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
    return [
        Ranked(
            chunk_id,
            round(score, 6),
            round(cosine[chunk_id], 4) if chunk_id in cosine else None,
            round(relative[chunk_id], 4) if chunk_id in relative else None,
        )
        for chunk_id, score in ordered
    ]


def rank(
    store: IndexStore,
    name: str,
    terms: Sequence[str],
    vector: Vector | None,
    where: ChunkFilter,
    mode: Mode,
    depth: int,
    share: float = 1.0,
) -> list[Ranked]:
    """The fused ranking of index ``name`` (blocking); ``share``: its embedded fraction.

    ``hybrid``: keywords only while ``share`` < HYBRID_FROM, then vectors and keywords over
    every chunk, on equal terms while ``share`` < 1;
    ``semantic``: vectors, plus keywords over the chunks without a vector; ``keyword``:
    keywords only (BM25).
    """

    def matching(where: ChunkFilter) -> list[tuple[int, float]]:
        # No words match nothing: neither store is asked an empty query.
        return store.keyword(name, terms, where, depth) if terms else []

    if mode == "keyword" or vector is None or (mode == "hybrid" and share < HYBRID_FROM):
        return fuse([], matching(where))
    nearest = store.nearest(name, vector, where, depth)
    if mode == "semantic":
        return fuse(nearest, matching(replace(where, unembedded_only=True)))
    keyword = matching(where)
    if share >= 1.0:
        return fuse(nearest, keyword)
    missing = matching(replace(where, unembedded_only=True))
    return fuse(nearest, keyword, share, frozenset(chunk_id for chunk_id, _ in missing))


def ranking_used(mode: Mode, share: float) -> str:
    """How a search of ``mode`` on an index with embedded fraction ``share`` ranked."""
    if mode == "hybrid" and share < HYBRID_FROM:
        return RANKINGS["early"]
    return RANKINGS["partial" if mode == "hybrid" and share < 1.0 else mode]
