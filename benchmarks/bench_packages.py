"""packageSearch against a local registry that adds 200 ms to every response.

Prints, for npm and for a Python index: a 3-query bulk's wall time over one query's
(target <= 1.15x); then a cached repeat in-process and the upstream requests that 10
identical concurrent queries cause (target 1).

Run: .venv/bin/python benchmarks/bench_packages.py
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


def registry_answer(path: str) -> dict[str, Any]:
    """npm ``/{name}/latest`` and Python ``/pypi/{name}/json`` documents."""
    parts = path.strip("/").split("/")
    if parts[0] == "pypi":
        body: dict[str, Any] = {
            "info": {
                "name": parts[1],
                "version": "1.0.0",
                "summary": "bench",
                "project_urls": {"Source": f"https://github.com/o/{parts[1]}"},
            },
            "releases": {"1.0.0": [{"upload_time_iso_8601": "2024-01-01T00:00:00Z"}]},
        }
    else:
        body = {"name": parts[0], "version": "1.0.0", "repository": f"github:o/{parts[0]}"}
    return body


_fresh = count()


def query(ecosystem: str) -> dict[str, Any]:
    """A query no earlier call has cached."""
    return {"name": f"pkg{next(_fresh)}", "ecosystem": ecosystem}


async def timed(gateway: octo.Gateway, queries: list[dict[str, Any]]) -> float:
    start = time.perf_counter()
    response = await gateway.package_search(queries)
    elapsed = time.perf_counter() - start
    assert all(row.status == "success" for row in response.results), response.to_compact_json()
    return elapsed


async def main() -> None:
    server = SlowJsonServer(registry_answer, DELAY).start()
    base = server.base_url
    config = Config.from_env(
        {"OCTO_NPM_REGISTRY": f"{base}/", "OCTO_PYPI_INDEX": f"{base}/simple/", "PATH": ""}
    )
    async with octo.Gateway(config=config) as gateway:
        for ecosystem in ("npm", "python"):
            await timed(gateway, [query(ecosystem)])  # connection set-up, imports
            single = statistics.median(
                [await timed(gateway, [query(ecosystem)]) for _ in range(ROUNDS)]
            )
            bulk = statistics.median(
                [
                    await timed(gateway, [query(ecosystem), query(ecosystem), query(ecosystem)])
                    for _ in range(ROUNDS)
                ]
            )
            print(
                f"packageSearch {ecosystem}: 3-query bulk vs single query (200 ms server): "
                f"{bulk * 1000:.0f} ms / {single * 1000:.0f} ms = {bulk / single:.2f}x "
                "(target <= 1.15x)"
            )

        repeat = [query("npm"), query("python"), query("npm")]
        first = await timed(gateway, repeat)
        per_call = statistics.median([await timed(gateway, repeat) for _ in range(CACHED_REPEATS)])
        print(
            f"packageSearch cached repeat of the 3-query bulk: {per_call * 1000:.3f} ms per call "
            f"(first {first * 1000:.0f} ms)"
        )

        same = query("npm")
        before = server.requests
        async with anyio.create_task_group() as tg:
            for _ in range(10):
                tg.start_soon(timed, gateway, [same])
        print(
            "packageSearch upstream requests for 10 identical concurrent queries: "
            f"{server.requests - before} (target 1)"
        )
    server.shutdown()


if __name__ == "__main__":
    anyio.run(main)
