"""GitHub tools against a local API server that adds 200 ms to every response.

Prints: a 3-query bulk's wall time over one query's (target <= 1.15x), a cached
repeat in-process (target <= 2 ms), and the upstream requests that 10 identical
concurrent queries cause (target 1).

Run: .venv/bin/python benchmarks/bench_github.py
"""

from __future__ import annotations

import statistics
import time
from itertools import count
from typing import Any

import anyio
from slow_json_server import SlowJsonServer

import octo
from octo.core.config import Config

DELAY = 0.2
ROUNDS = 5
CACHED_REPEATS = 200
_ANSWER = {
    "total_count": 1,
    "incomplete_results": False,
    "items": [
        {
            "path": "src/app.py",
            "html_url": "http://127.0.0.1/o/r/blob/main/src/app.py",
            "repository": {"full_name": "o/r"},
            "text_matches": [
                {
                    "property": "content",
                    "fragment": "def needle():\n    return 1",
                    "matches": [{"text": "needle", "indices": [4, 10]}],
                }
            ],
        }
    ],
}


_fresh = count()


def query() -> dict[str, Any]:
    """A code-search query no earlier call has cached."""
    return {"keywordsToSearch": [f"needle{next(_fresh)}"], "owner": "o", "repo": "r"}


async def timed(gateway: octo.Gateway, queries: list[dict[str, Any]]) -> float:
    start = time.perf_counter()
    response = await gateway.github_search_code(queries)
    elapsed = time.perf_counter() - start
    assert all(row.status == "success" for row in response.results), response.to_compact_json()
    return elapsed


async def main() -> None:
    server = SlowJsonServer(lambda _path: _ANSWER, DELAY).start()
    config = Config.from_env(
        {"GITHUB_API_URL": server.base_url, "GITHUB_TOKEN": "bench-token-not-real"}
    )
    async with octo.Gateway(config=config) as gateway:
        await timed(gateway, [query()])  # connection set-up, imports
        single = statistics.median([await timed(gateway, [query()]) for _ in range(ROUNDS)])
        bulk = statistics.median(
            [await timed(gateway, [query(), query(), query()]) for _ in range(ROUNDS)]
        )
        print(
            f"3-query bulk vs single query (200 ms server): {bulk * 1000:.0f} ms / "
            f"{single * 1000:.0f} ms = {bulk / single:.2f}x (target <= 1.15x)"
        )

        repeat = query()
        await timed(gateway, [repeat])
        per_call = statistics.median(
            [await timed(gateway, [repeat]) for _ in range(CACHED_REPEATS)]
        )
        print(f"cached repeat in-process: {per_call * 1000:.3f} ms per call (target <= 2 ms)")

        same = query()
        before = server.requests
        async with anyio.create_task_group() as tg:
            for _ in range(10):
                tg.start_soon(timed, gateway, [same])
        print(
            "upstream requests for 10 identical concurrent queries: "
            f"{server.requests - before} (target 1)"
        )
    server.shutdown()


if __name__ == "__main__":
    anyio.run(main)
