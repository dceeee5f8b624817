"""The real bundled default model (wordllama's static embeddings): offline, on both stores, and
on the pinned corpus.

The first test is small enough for the fast lane (a handful of chunks, about a second); the
others are marked slow.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from octo import Config
from octo import Gateway
from octo.semantic.indexing.embedder import DEFAULT_MODEL
from tests.semantic.conftest import APP_PY
from tests.semantic.conftest import one

pytest.importorskip("wordllama", reason="the bundled model needs the semantic extra")

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
#: Small files of the pinned corpus, for a retrieval check that fits the slow lane.
SMALL_SLICE = (
    "secrets.py",
    "bisect.py",
    "html/__init__.py",
    "colorsys.py",
    "sched.py",
    "fnmatch.py",
    "netrc.py",
    "getopt.py",
    "hmac.py",
    "graphlib.py",
)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every attempt to open an internet connection (or resolve a name) fails and is recorded."""
    attempts: list[Any] = []
    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(address)
            raise OSError("network access during a semantic test")
        real_connect(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        attempts.append(host)
        raise OSError("name resolution during a semantic test")

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: getaddrinfo(a[0]))
    yield attempts


def model_env(tmp_path: Path, store_env: dict[str, str]) -> dict[str, str]:
    """The default model: no OCTO_EMBED_URL."""
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path / "home"), **store_env}


async def index_and_search(env: dict[str, str], root: Path) -> dict[str, Any]:
    async with Gateway(Config.from_env(env), roots=[root]) as gw:
        indexed = await one(gw, "semanticIndexCodebase", {"path": ".", "waitForEmbeddings": True})
        assert indexed["data"]["embedding"]["status"] == "complete", indexed
        assert indexed["data"]["embedding"]["model"] == DEFAULT_MODEL
        found = await one(gw, "semanticSearchCode", {"query": "deliver an e-mail", "limit": 3})
    assert found["data"]["searchContext"]["mode"] == "hybrid"
    data: dict[str, Any] = found["data"]
    return data


@pytest.mark.slow
async def test_default_model_indexes_and_searches_without_network(
    tmp_path: Path, no_network: list[Any]
) -> None:
    root = tmp_path / "small"
    root.mkdir()
    (root / "app.py").write_text(APP_PY)
    env = model_env(tmp_path, {"OCTO_INDEX_DIR": str(tmp_path / "indexes")})
    data = await index_and_search(env, root)
    assert data["results"][0]["hierarchy"].startswith("Mailer")
    assert data["results"][0]["matchType"] in ("semantic", "both")
    assert no_network == []


@pytest.mark.slow
async def test_default_model_on_postgres(tmp_path: Path, postgres_url: str) -> None:
    root = tmp_path / "small"
    root.mkdir()
    (root / "app.py").write_text(APP_PY)
    env = model_env(tmp_path, {"OCTO_INDEX_URL": postgres_url})
    data = await index_and_search(env, root)
    assert data["results"][0]["hierarchy"].startswith("Mailer")


def load_retrieval() -> Any:
    spec = importlib.util.spec_from_file_location(
        "bench_semantic_retrieval", BENCHMARKS / "bench_semantic_retrieval.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
async def test_hybrid_retrieval_on_a_slice_of_the_pinned_corpus(tmp_path: Path) -> None:
    retrieval = load_retrieval()
    files, questions = retrieval.load_set()
    if (problem := retrieval.corpus_problem(files)) is not None:
        pytest.skip(problem)
    tree = retrieval.copy_corpus(SMALL_SLICE, tmp_path / "corpus")
    env = model_env(tmp_path, {"OCTO_INDEX_DIR": str(tmp_path / "indexes")})
    async with Gateway(Config.from_env(env), roots=[tree]) as gw:
        indexed = await one(
            gw,
            "semanticIndexCodebase",
            {"path": ".", "indexName": "slice", "waitForEmbeddings": True},
        )
        assert indexed["data"]["embedding"]["status"] == "complete"
        asked = [q for q in questions if q.file in SMALL_SLICE]
        ranks = []
        for question in asked:
            found = await one(gw, "semanticSearchCode", {"query": question.query, "limit": 10})
            hits = [
                (h["path"], h.get("symbolName"), h["hierarchy"]) for h in found["data"]["results"]
            ]
            ranks.append(retrieval.rank_of_answer(question, hits))
    recall, mrr = retrieval.scores(ranks)
    assert len(asked) >= 10
    assert recall >= 0.8 and mrr >= 0.6, (recall, mrr, ranks)
