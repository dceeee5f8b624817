"""Hybrid ranking: reciprocal rank fusion of the vector and keyword lists.

RRF (Cormack et al., 2009) scores a chunk by ``sum(1 / (k + rank))`` over the lists it appears
in, with k = 60. It needs no calibration between cosine similarities and BM25 scores, which
live on unrelated scales, and a chunk near the top of both lists beats one that tops only one.

Chunks without a vector yet cannot be in the vector list; in every mode they compete through
the keyword list, so a half-embedded index still finds all of its code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
from typing import TYPE_CHECKING
from typing import Literal

from octo.semantic.store import ChunkFilter
from octo.semantic.store import IndexStore

if TYPE_CHECKING:
    from octo.semantic.store import Vector

RRF_K = 60
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


def fuse(vector: Sequence[tuple[int, float]], keyword: Sequence[tuple[int, float]]) -> list[Ranked]:
    """Both lists (best first) fused by RRF; keyword scores reported relative to the best."""
    fused: dict[int, float] = {}
    for ranking in (vector, keyword):
        for rank, (chunk_id, _) in enumerate(ranking, start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
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
) -> list[Ranked]:
    """The fused ranking of index ``name`` (blocking).

    ``hybrid``: vectors and keywords over every chunk; ``semantic``: vectors, plus keywords
    over the chunks without a vector; ``keyword``: keywords only (BM25).
    """
    if mode == "keyword" or vector is None:
        return fuse([], store.keyword(name, terms, where, depth))
    nearest = store.nearest(name, vector, where, depth)
    keyword_where = replace(where, unembedded_only=mode == "semantic")
    return fuse(nearest, store.keyword(name, terms, keyword_where, depth))
