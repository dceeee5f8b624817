"""Two real ``octo serve --http`` replicas on one Redis, in front of a fake GitHub that
counts requests, driven by a real MCP client per replica: they behave as one octo."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from tests.core.shared.conftest import unavailable
from tests.core.shared.replicas import HTTP_TOKEN
from tests.core.shared.replicas import TOKEN
from tests.core.shared.replicas import FakeGitHub
from tests.core.shared.replicas import RedisProcess
from tests.core.shared.replicas import Replica
from tests.core.shared.replicas import replica_env

pytestmark = pytest.mark.slow


def file_query(path: str) -> dict[str, Any]:
    return {"owner": "octo", "repo": "team", "path": path}


def contents(path: str) -> str:
    return f"/repos/octo/team/contents/{path}"


async def ask(client: Client, tool: str, query: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, {"queries": [query]})
    assert result.structured_content is not None
    row: dict[str, Any] = result.structured_content["results"][0]
    return row


def metric(text: str, name: str, **labels: str) -> float:
    """The sum of the samples of ``name`` whose labels include ``labels``."""
    total = 0.0
    for line in text.splitlines():
        match = re.match(rf"^{name}(?:\{{(.*)\}})? (\S+)$", line)
        if match and all(f'{k}="{v}"' in (match.group(1) or "") for k, v in labels.items()):
            total += float(match.group(2))
    return total


def untokened(replica: Replica) -> tuple[int, ...]:
    """The statuses of /healthz, /readyz, /metrics and /mcp asked without the token."""
    with httpx.Client(base_url=replica.base, timeout=10) as http:
        probes = [http.get(path).status_code for path in ("/healthz", "/readyz", "/metrics")]
        return (*probes, http.post("/mcp", json={}).status_code)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(delay=0.3) as fake:
        yield fake


@pytest.fixture
def team(tmp_path: Path, github: FakeGitHub) -> Iterator[tuple[RedisProcess, Replica, Replica]]:
    try:
        store = RedisProcess(tmp_path).start()
    except RuntimeError as exc:
        unavailable(str(exc))
    env = replica_env(
        github.api_url,
        tmp_path,
        OCTO_REDIS_URL=store.url,
        OCTO_REDIS_COOLDOWN="1",
        OCTO_LOG_LEVEL="INFO",
    )
    replicas = [Replica(env, tmp_path / f"replica-{n}.log") for n in "ab"]
    try:
        for replica in replicas:
            replica.start()
        yield store, replicas[0], replicas[1]
    finally:
        for replica in replicas:
            replica.stop()
        store.stop()


async def test_two_replicas_share_requests_cache_and_rate_limits(
    team: tuple[RedisProcess, Replica, Replica], github: FakeGitHub
) -> None:
    _store, a, b = team
    rows: list[dict[str, Any]] = []
    with anyio.fail_after(90):
        async with a.client() as on_a, b.client() as on_b:
            # Ten identical queries at once, spread over both replicas: one request.
            async def one(client: Client) -> None:
                rows.append(await ask(client, "githubGetFileContent", file_query("README.md")))

            async with anyio.create_task_group() as tg:
                for n in range(10):
                    tg.start_soon(one, (on_a, on_b)[n % 2])
            assert github.count(contents("README.md")) == 1
            assert [row["status"] for row in rows] == ["success"] * 10
            assert len({row["data"]["content"] for row in rows}) == 1

            # What A fetched, B answers from the cache without a request.
            await ask(on_a, "githubGetFileContent", file_query("docs/guide.md"))
            before = github.total
            again = await ask(on_b, "githubGetFileContent", file_query("docs/guide.md"))
            assert again["cached"] is True and github.total == before

            # GitHub tells A the search quota is used up: B sends nothing to search.
            github.exhausted.add("search")
            refused = await ask(on_a, "githubSearchRepositories", {"keywordsToSearch": ["x"]})
            assert refused["error"]["code"] == "RATE_LIMIT_EXCEEDED"
            assert github.count("/search/repositories") == 1
            held = await ask(on_b, "githubSearchRepositories", {"keywordsToSearch": ["y"]})
            assert held["error"]["code"] == "RATE_LIMIT_EXCEEDED"
            assert github.count("/search/repositories") == 1
    # Three requests in all: the README, the guide, one search.
    assert github.total == 3
    on_a_metrics, on_b_metrics = a.metrics(), b.metrics()
    assert metric(on_a_metrics, "octo_upstream_requests_total", status="403") == 1
    assert metric(on_a_metrics, "octo_rate_limit_remaining", resource="search") == 0
    assert metric(on_b_metrics, "octo_upstream_requests_total", status="403") == 0
    assert metric(on_b_metrics, "octo_cache_lookups_total", result="hit", store="shared") >= 1
    assert metric(on_b_metrics, "octo_queries_total", tool="githubGetFileContent") >= 6
    assert metric(on_b_metrics, "octo_redis_up") == 1

    # The load balancer's probes need no token; /metrics needs the one /mcp needs.
    assert [untokened(replica) for replica in (a, b)] == [(200, 200, 401, 401)] * 2
    # One line per call, never a token nor a file's content.
    logged = a.log.read_text() + b.log.read_text()
    lines = [line.split(" octo.calls: ", 1) for line in logged.splitlines()]
    calls = [json.loads(line[1]) for line in lines if len(line) == 2]
    assert len(calls) == 14 and {call["tool"] for call in calls} == {
        "githubGetFileContent",
        "githubSearchRepositories",
    }
    assert TOKEN not in logged and HTTP_TOKEN not in logged
    assert "Served by the fake GitHub" not in logged and "README.md" not in logged

    # A restarted replica keeps the cache (it is in Redis).
    a.stop()
    a.start()
    with anyio.fail_after(60):
        async with a.client() as on_a:
            before = github.total
            kept = await ask(on_a, "githubGetFileContent", file_query("docs/guide.md"))
    assert kept["cached"] is True and github.total == before


async def test_killing_redis_mid_run_loses_no_query(
    team: tuple[RedisProcess, Replica, Replica], github: FakeGitHub
) -> None:
    store, a, b = team
    rows: list[dict[str, Any]] = []
    with anyio.fail_after(90):
        async with a.client() as on_a, b.client() as on_b:

            async def one(client: Client, path: str) -> None:
                rows.append(await ask(client, "githubGetFileContent", file_query(path)))

            async with anyio.create_task_group() as tg:
                for n in range(20):
                    tg.start_soon(one, (on_a, on_b)[n % 2], f"src/file{n % 10}.py")
                    if n == 9:
                        await anyio.sleep(0.1)
                        store.kill()
            # And after: every query is answered, from upstream.
            for n in range(4):
                rows.append(
                    await ask((on_a, on_b)[n % 2], "githubGetFileContent", file_query(f"new{n}.md"))
                )
    assert [row["status"] for row in rows] == ["success"] * 24
    scraped = a.metrics() + b.metrics()
    assert metric(scraped, "octo_redis_errors_total") >= 1
    assert metric(scraped, "octo_redis_up") == 0
