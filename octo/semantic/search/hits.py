"""Search hits from a ranking: widened to their symbol (smartContext), each line of a file shown
once an answer, cut to the token budget, and marked weak when they match the query badly.

A hit is weak when it holds fewer than half of the query's words and its vector, if any, is
less similar to the query than the model's floor: such a hit is the best of a bad lot, not an
answer, and says so (``weak: true`` and a hint).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from octo.core.budget import cut_lines
from octo.semantic.indexing.chunking import Chunk
from octo.semantic.indexing.terms import body_words
from octo.semantic.models import SearchHit
from octo.semantic.search.ranking import Ranked
from octo.semantic.store.interface import IndexStore

#: smartContext widens a hit to its enclosing symbol only when that symbol is this short.
SMART_MAX_LINES = 120
#: Share of the query's words a hit must hold not to be weak.
WORD_COVERAGE = 0.5
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class HitCut:
    """How hits are cut: context lines, smart widening, and characters per hit."""

    before: int | None
    after: int | None
    smart: bool
    budget_chars: int


def build_hits(
    store: IndexStore,
    name: str,
    ranked: Sequence[Ranked],
    limit: int,
    cut_as: HitCut,
    terms: Sequence[str],
    floor: float | None,
) -> list[SearchHit]:
    """The best ``limit`` hits, widened and cut as ``cut_as`` says; a hit whose lines an earlier
    hit already shows (two windows of one function, a method of a class shown whole) is
    skipped; a hit far from the query is marked weak (blocking)."""
    stored = {c.id: c for c in store.chunks(name, [r.id for r in ranked[: limit * 4]])}
    texts: dict[str, list[str] | None] = {}
    shown: dict[str, list[tuple[int, int]]] = {}
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
        taken = shown.setdefault(found.path, [])
        start, end = chunk.start_line, chunk.end_line
        explicit = cut_as.before is not None or cut_as.after is not None
        scope = chunk.scope_end - chunk.scope_start + 1
        widened = (chunk.scope_start, chunk.scope_end)
        # Widened to its symbol unless that would show lines again (a class after one of
        # its own methods keeps its header): each line of a file is shown once an answer.
        smart = lines is not None and cut_as.smart and not explicit and scope <= SMART_MAX_LINES
        if smart and not any(_overlap(widened, other) for other in taken):
            start, end = widened
        if any(a <= start and end <= b for a, b in taken):
            continue  # already shown whole: two windows of one function, a class's method
        taken.append((start, end))
        body = lines[start - 1 : end] if lines is not None else chunk.content.split("\n")
        cut = cut_lines([f"{line}\n" for line in body], start, cut_as.budget_chars, 1)
        before = after = None
        if lines is not None and cut_as.before:
            before = "\n".join(lines[max(0, start - 1 - cut_as.before) : start - 1]) or None
        if lines is not None and cut_as.after:
            after = "\n".join(lines[end : end + cut_as.after]) or None
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
                weak=True if is_weak(terms, chunk, ranked_chunk, floor) else None,
            )
        )
        if len(hits) == limit:
            break
    return hits


def _overlap(one: tuple[int, int], other: tuple[int, int]) -> bool:
    return one[0] <= other[1] and other[0] <= one[1]


def is_weak(terms: Sequence[str], chunk: Chunk, ranked: Ranked, floor: float | None) -> bool:
    """True when ``chunk`` holds few of the query's ``terms`` (a word counts when one of the
    chunk's words starts with its first five letters) and its cosine is below ``floor``
    (None: no floor is known for the model, so only a hit without a vector can be weak)."""
    if ranked.vector_score is not None and (floor is None or ranked.vector_score >= floor):
        return False
    if not terms:
        return True
    text = f"{chunk.hierarchy} {chunk.signature or ''} {chunk.content}".lower()
    words = set(_WORD.findall(text)) | set(body_words(text, limit=10_000).split())
    stems = {word[:5] for word in words}
    found = sum(1 for term in terms if term[:5] in stems)
    return found < WORD_COVERAGE * len(terms)
