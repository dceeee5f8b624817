"""Retrieval quality of semantic search on a pinned corpus octo did not write.

The corpus is a fixed list of CPython 3.11.7 standard-library files read from the running
interpreter (their SHA-256 are pinned in semantic_retrieval_set.json; a different interpreter
is skipped with a message). Each question names the file and symbols that answer it; a hit
counts when its file matches and its symbol or hierarchy names one of them.

Used by bench_semantic.py (which prints the lines) and by the slow tests.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SET_PATH = Path(__file__).with_name("semantic_retrieval_set.json")
#: The second set: questions in plain words, without the code's identifiers.
PLAIN_PATH = Path(__file__).with_name("semantic_plain_questions.json")
STDLIB = Path(sysconfig.get_paths()["stdlib"])
MODES = ("keyword", "semantic", "hybrid")


@dataclass(frozen=True)
class Question:
    query: str
    file: str
    symbols: tuple[str, ...]


def load_set() -> tuple[dict[str, str], list[Question]]:
    """The pinned files (path -> sha256) and the questions."""
    data: dict[str, Any] = json.loads(SET_PATH.read_text(encoding="utf-8"))
    questions = [Question(q["query"], q["file"], tuple(q["symbols"])) for q in data["questions"]]
    return data["files"], questions


def load_plain() -> list[Question]:
    """The second set's questions (same corpus)."""
    data: dict[str, Any] = json.loads(PLAIN_PATH.read_text(encoding="utf-8"))
    return [Question(q["query"], q["file"], tuple(q["symbols"])) for q in data["questions"]]


def corpus_problem(files: dict[str, str]) -> str | None:
    """Why this interpreter cannot give the pinned corpus, or None when it can."""
    for name, digest in files.items():
        path = STDLIB / name
        if not path.is_file():
            return f"{path} is missing: the corpus is pinned to CPython 3.11.7's standard library"
        if hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            return f"{path} differs from the pinned file: run on CPython 3.11.7"
    return None


def copy_corpus(files: Iterable[str], dest: Path) -> Path:
    """Copy the pinned files under ``dest`` (keeping their relative paths); returns ``dest``."""
    for name in files:
        target = dest / name
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(STDLIB / name, target)
    return dest


def is_answer(question: Question, path: str, symbol: str | None, hierarchy: str) -> bool:
    if path != question.file:
        return False
    names = {symbol or "", *hierarchy.split(".")}
    return any(name in names for name in question.symbols)


def rank_of_answer(question: Question, hits: list[tuple[str, str | None, str]]) -> int | None:
    """1-based rank of the first answering hit among ``(path, symbol, hierarchy)``."""
    for rank, (path, symbol, hierarchy) in enumerate(hits, start=1):
        if is_answer(question, path, symbol, hierarchy):
            return rank
    return None


def scores(ranks: list[int | None]) -> tuple[float, float]:
    """recall@5 and MRR@10 of the answers' ranks."""
    recall = sum(1 for r in ranks if r is not None and r <= 5) / len(ranks)
    mrr = sum(1 / r for r in ranks if r is not None and r <= 10) / len(ranks)
    return recall, mrr


def evaluate(
    store: Any, name: str, questions: list[Question], vectors: list[Any]
) -> dict[str, Any]:
    """recall@5 and MRR@10 per mode (keyword, vector-only, hybrid), straight on the store, as
    a search ranks on an index with its present share of vectors."""
    from octo.semantic.indexing.terms import query_terms
    from octo.semantic.search.ranking import rank
    from octo.semantic.store.interface import ChunkFilter

    total, embedded = store.counts(name)
    share = embedded / total if total else 1.0
    results: dict[str, tuple[float, float]] = {}
    misses: dict[str, list[str]] = {}
    for mode in MODES:
        ranks = []
        for question, vector in zip(questions, vectors, strict=True):
            effective = mode if embedded else "keyword"
            terms = query_terms(question.query)
            ranked = rank(store, name, terms, vector, ChunkFilter(), effective, 50, share)
            chunks = {c.id: c for c in store.chunks(name, [r.id for r in ranked[:10]])}
            hits = [
                (c.path, c.chunk.symbol_name, c.chunk.hierarchy)
                for r in ranked[:10]
                if (c := chunks.get(r.id)) is not None
            ]
            found = rank_of_answer(question, hits)
            ranks.append(found)
            if found is None or found > 5:
                misses.setdefault(mode, []).append(question.query)
        results[mode] = scores(ranks)
    return {"scores": results, "misses": misses}
