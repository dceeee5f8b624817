"""Semantic search figures: retrieval quality per mode, index throughput, re-index of an
unchanged tree, warm query latency on a large index, peak RSS while indexing.

Run: ``.venv/bin/python benchmarks/bench_semantic.py`` (needs the semantic extra and
CPython 3.11.7; see benchmarks/README.md). ``--work-dir DIR`` keeps the trees and indexes (and
their vectors) for the next run; ``--quick`` skips the large-tree parts.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from bench_semantic_retrieval import STDLIB
from bench_semantic_retrieval import copy_corpus
from bench_semantic_retrieval import corpus_problem
from bench_semantic_retrieval import evaluate
from bench_semantic_retrieval import load_set

from octo import Config
from octo import Gateway

#: Files of the large tree (re-index and latency): the first this many standard-library
#: modules in path order.
LARGE_FILES = 2000
LATENCY_QUERIES = 60


def env_for(index_dir: Path) -> dict[str, str]:
    return {**os.environ, "OCTO_INDEX_DIR": str(index_dir), "OCTO_ROOTS": ""}


def index_in_child(tree: Path, index_dir: Path) -> tuple[float, float, str]:
    """``octo index TREE`` in a child process: wall seconds, its peak RSS (MB), its output."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "octo", "index", str(tree)],
        env=env_for(index_dir),
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak_mb, done.stdout


async def quality_lines(tree: Path, index_dir: Path) -> list[str]:
    from octo.semantic.indexing.embedder import BundledEmbedder
    from octo.semantic.indexes import default_index_name
    from octo.semantic.store.sqlite import SqliteStore

    store = SqliteStore(index_dir)
    name = default_index_name(tree)
    before = store.counts(name)[1] if store.meta(name) else 0
    seconds, peak_mb, _ = index_in_child(tree, index_dir)
    total, embedded = store.counts(name)
    files, questions = load_set()
    embedder = BundledEmbedder()
    started = time.perf_counter()
    vectors = [await embedder.query(q.query) for q in questions]
    per_query = (time.perf_counter() - started) / len(questions) * 1000
    result = evaluate(store, name, questions, vectors)
    lines = [
        f"corpus: {len(files)} pinned stdlib files, {total} chunks, {len(questions)} questions",
    ]
    fresh = embedded - before
    if fresh:
        lines.append(
            f"index throughput (octo index, keyword side + {fresh} chunks embedded, "
            f"{os.cpu_count()} cores): {fresh / seconds:.2f} chunks/s ({seconds:.0f} s)"
        )
        lines.append(f"peak RSS while indexing (octo index child): {peak_mb:.0f} MB")
    else:
        lines.append(f"index reused from --work-dir ({seconds:.1f} s, nothing to embed)")
    lines.append(f"query embedding: {per_query:.0f} ms per question (default model)")
    labels = {"keyword": "keyword-only (BM25)", "semantic": "vector-only", "hybrid": "hybrid (RRF)"}
    for mode, (recall, mrr) in result["scores"].items():
        lines.append(f"{labels[mode]:<20} recall@5 {recall:.3f}  MRR@10 {mrr:.3f}")
    for mode, missed in result["misses"].items():
        lines.append(f"  {mode} misses@5: " + "; ".join(missed))
    return lines


def large_tree(dest: Path) -> Path:
    """The first LARGE_FILES standard-library modules (tests included), copied."""
    names = sorted(
        str(path.relative_to(STDLIB))
        for path in STDLIB.rglob("*.py")
        if "site-packages" not in path.parts and "__pycache__" not in path.parts
    )[:LARGE_FILES]
    return copy_corpus(names, dest)


async def large_lines(tree: Path, index_dir: Path) -> list[str]:
    import numpy as np

    from octo.semantic.indexes import default_index_name
    from octo.semantic.store.sqlite import SqliteStore

    config = Config.from_env(env_for(index_dir))
    query = [{"path": str(tree)}]
    # A gateway that is not entered runs no background work: keyword side only.
    gateway = Gateway(config, roots=[tree])
    started = time.perf_counter()
    first = (await gateway.call("semanticIndexCodebase", query)).results[0]
    keyword_seconds = time.perf_counter() - started
    assert first.data is not None, first.error
    chunks = first.data.stats.chunks
    started = time.perf_counter()
    again = (await gateway.call("semanticIndexCodebase", query)).results[0]
    reindex = time.perf_counter() - started
    await gateway.aclose()
    assert again.data is not None and again.data.stats.filesUpdated == 0
    lines = []
    if first.data.stats.filesAdded:
        lines.append(
            f"keyword side of {LARGE_FILES} files: {chunks} chunks in {keyword_seconds:.1f} s"
            f" ({chunks / keyword_seconds:.0f} chunks/s)"
        )
    lines.append(f"re-index of the unchanged {LARGE_FILES} files: {reindex:.2f} s (target < 2 s)")

    # Latency needs every chunk embedded; the real model would take hours here, so the
    # vectors are seeded random unit vectors (the cost of a search does not depend on them).
    store = SqliteStore(index_dir)
    name = default_index_name(tree)
    generator = np.random.default_rng(7)
    while batch := store.pending(name, 5000):
        matrix = generator.standard_normal((len(batch), 384)).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        store.add_vectors(name, [(digest, matrix[i]) for i, (digest, _) in enumerate(batch)])
    _, questions = load_set()
    texts = [q.query for q in questions]
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
    lines.append(
        f"warm query latency on {chunks} chunks (hybrid, default model, limit 10):"
        f" p50 {statistics.median(timings):.0f} ms, p95 {p95:.0f} ms (target p50 < 150 ms)"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work-dir", type=Path, help="keep trees and indexes here between runs")
    parser.add_argument("--quick", action="store_true", help="skip the large tree")
    args = parser.parse_args()
    files, _ = load_set()
    problem = corpus_problem(files)
    if problem is not None:
        print(f"skipped: {problem}")
        return
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="octo-bench-semantic-"))
    index_dir = work / "indexes"
    try:
        tree = copy_corpus(files, work / "corpus").resolve()
        for line in anyio.run(quality_lines, tree, index_dir):
            print(line, flush=True)
        if not args.quick:
            big = large_tree(work / "large").resolve()
            for line in anyio.run(large_lines, big, index_dir):
                print(line, flush=True)
    finally:
        if args.work_dir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
