"""Two `octo serve --http` replicas on one Redis against one process, under the same load.

A local fake GitHub answers file contents 50 ms late and counts requests. The load: 40
distinct githubGetFileContent queries, each asked 5 times, in one shuffled order, 10 calls
at a time over real MCP clients (the two replicas' clients taking turns). Prints for both
set-ups: the upstream requests, the cache hit ratio and the p50/p99 latency of a call;
then the overhead of the Redis round trip: the p50 of a cached answer from Redis (asked on
the replica that did not fetch it) over one from the local cache (1 process), 200 of each,
one at a time, interleaved.

Targets: 2 replicas send as many upstream requests as 1 process (one per distinct query);
the Redis round trip adds under 2 ms at p50 on loopback.

Run: .venv/bin/python benchmarks/bench_replicas.py   (needs redis-server and the team extra)
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.core.shared.replicas import FakeGitHub
from tests.core.shared.replicas import RedisProcess
from tests.core.shared.replicas import Replica
from tests.core.shared.replicas import replica_env

DISTINCT = 40
REPEATS = 5
CONCURRENCY = 10
DELAY = 0.05
HIT_SAMPLES = 200


def query(name: str) -> dict[str, Any]:
    return {"queries": [{"owner": "bench", "repo": "load", "path": f"{name}.md"}]}


async def timed_call(client: Client, name: str) -> tuple[float, bool]:
    started = time.perf_counter()
    result = await client.call_tool("githubGetFileContent", query(name))
    seconds = time.perf_counter() - started
    assert result.structured_content is not None
    [row] = result.structured_content["results"]
    assert row["status"] == "success", row
    return seconds, bool(row.get("cached"))


async def run_load(clients: list[Client], names: list[str]) -> list[tuple[float, bool]]:
    """Every name in ``names`` asked once, CONCURRENCY at a time, clients taking turns."""
    results: list[tuple[float, bool]] = []
    limiter = anyio.CapacityLimiter(CONCURRENCY)

    async def one(index: int, name: str) -> None:
        async with limiter:
            results.append(await timed_call(clients[index % len(clients)], name))

    async with anyio.create_task_group() as tg:
        for index, name in enumerate(names):
            tg.start_soon(one, index, name)
    return results


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def report(label: str, results: list[tuple[float, bool]], requests: int) -> None:
    latencies = [seconds * 1000 for seconds, _cached in results]
    hits = sum(1 for _seconds, cached in results if cached)
    print(
        f"{label:<12} upstream requests {requests:>3}   cache hit ratio {hits / len(results):.2f}"
        f"   p50 {percentile(latencies, 0.5):6.1f} ms   p99 {percentile(latencies, 0.99):6.1f} ms"
    )


async def one_at_a_time(client: Client, names: list[str]) -> list[float]:
    return [(await timed_call(client, name))[0] * 1000 for name in names]


async def main() -> None:
    names = [f"file{n}" for n in range(DISTINCT) for _ in range(REPEATS)]
    random.Random(15).shuffle(names)
    hit_names = [f"hit{n}" for n in range(HIT_SAMPLES)]
    with tempfile.TemporaryDirectory() as scratch, FakeGitHub(delay=DELAY) as github:
        root = Path(scratch)
        store = RedisProcess(root).start()
        alone = Replica(replica_env(github.api_url, root), root / "alone.log")
        shared_env = replica_env(github.api_url, root, OCTO_REDIS_URL=store.url)
        pair = [Replica(shared_env, root / f"replica-{n}.log") for n in "ab"]
        try:
            for replica in (alone, *pair):
                replica.start()
            async with (
                alone.client() as on_alone,
                pair[0].client() as on_a,
                pair[1].client() as on_b,
            ):
                # Warm each server's first call (imports, HTTP client) outside the figures.
                for client in (on_alone, on_a, on_b):
                    await timed_call(client, "warm-up")
                before = github.total
                single = await run_load([on_alone], names)
                single_requests = github.total - before
                before = github.total
                replicated = await run_load([on_a, on_b], names)
                replicated_requests = github.total - before
                print(
                    f"load: {DISTINCT} distinct queries x {REPEATS}, {CONCURRENCY} at a time, "
                    f"fake GitHub answering {DELAY * 1000:.0f} ms late"
                )
                report("1 process", single, single_requests)
                report("2 replicas", replicated, replicated_requests)
                print(
                    f"upstream requests, 2 replicas / 1 process: "
                    f"{replicated_requests}/{single_requests} (target: equal)"
                )

                # Cached answers: fetched once by one side, then asked one at a time.
                for name in hit_names:
                    await timed_call(on_alone, name)
                    await timed_call(on_a, name)
                local, from_redis = [], []
                for name in hit_names:
                    local += await one_at_a_time(on_alone, [name])
                    from_redis += await one_at_a_time(on_b, [name])
                p50_local, p50_redis = statistics.median(local), statistics.median(from_redis)
                print(
                    f"cached answer p50: local cache {p50_local:.2f} ms, from Redis on the "
                    f"other replica {p50_redis:.2f} ms: Redis round trip adds "
                    f"{p50_redis - p50_local:.2f} ms (target < 2 ms)"
                )
        finally:
            for replica in (alone, *pair):
                replica.stop()
            store.stop()


if __name__ == "__main__":
    anyio.run(main)
