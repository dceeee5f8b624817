"""The Python language servers side by side: first answer and warm answers of goto, references
and call hierarchy, on the held-in fixture project and on a large root (this Python's
standard library with its site-packages), through octo.

Run: .venv/bin/python benchmarks/bench_lsp_servers.py [--servers ty,basedpyright] [--rounds 10]

Per server, root and tool it prints the first answer of a fresh server (its start, indexing
and the request), the first answer once the server was warmed for the root (as an MCP
client's roots warm it), and the median warm answer; then each server's times as a ratio of
the first server's. Each server is asked alone (OCTO_LSP_PYTHON_SERVERS), so no fallback
hides a slow answer. Targets: first answer under 3 s on the standard library, warm under 50 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from octo import Gateway
from octo.contract import QueryContext
from octo.core.config import Config
from octo.core.files.paths import PathPolicy
from octo.lsp.servers.running.warm import warm_roots

HELD_IN = Path(__file__).resolve().parent.parent / "tests" / "lsp" / "fixtures" / "py_project"
STDLIB = Path(json.__file__).resolve().parent.parent
#: A warm measurement stops repeating after this many seconds (a server that times out
#: would otherwise take minutes).
WARM_BUDGET = 30.0


def _line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _queries(root: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    if root == HELD_IN:
        area = {"uri": "shapes.py", "symbolName": "area", "lineHint": 9}
        return {
            "goto": (
                "lspGotoDefinition",
                {"uri": "main.py", "symbolName": "total_area", "lineHint": 7},
            ),
            "references": ("lspFindReferences", area),
            "calls": ("lspCallHierarchy", {**area, "direction": "incoming", "depth": 1}),
        }
    decoder = root / "json" / "decoder.py"
    raw_decode = {
        "uri": "json/decoder.py",
        "symbolName": "JSONDecoder.raw_decode",
        "lineHint": _line_of(decoder, "def raw_decode("),
    }
    return {
        "goto": (
            "lspGotoDefinition",
            {
                "uri": "json/__init__.py",
                "symbolName": "JSONDecoder",
                "lineHint": _line_of(root / "json" / "__init__.py", "= JSONDecoder("),
            },
        ),
        "references": ("lspFindReferences", {**raw_decode, "symbolName": "raw_decode"}),
        "calls": ("lspCallHierarchy", {**raw_decode, "direction": "incoming", "depth": 1}),
    }


def _outcome(response: Any) -> str:
    result: Mapping[str, Any] = response.to_wire()["results"][0]
    if result["status"] == "error":
        return f"error {result['error']['code']}"
    data = result["data"]
    found = data.get("totalReferences", data.get("totalCalls", len(data.get("definitions", []))))
    return f"{result['status']}{' partial' if result.get('partial') else ''}, {found} found"


async def _first(server: str, root: Path, tool: str, query: dict[str, Any], warm: bool) -> str:
    env = dict(os.environ, OCTO_LSP_PYTHON_SERVERS=server)
    async with Gateway(Config.from_env(env), roots=[root]) as gw:
        if warm:
            await warm_roots(QueryContext(gw.runtime, PathPolicy([root])))
        start = time.perf_counter()
        response = await gw.call(tool, [query])
        seconds = time.perf_counter() - start
    return f"{seconds:.2f} s ({_outcome(response)})"


async def _warm(server: str, root: Path, tool: str, query: dict[str, Any], rounds: int) -> float:
    env = dict(os.environ, OCTO_LSP_PYTHON_SERVERS=server)
    async with Gateway(Config.from_env(env), roots=[root]) as gw:
        await gw.call(tool, [query])
        samples: list[float] = []
        began = time.perf_counter()
        while len(samples) < rounds and time.perf_counter() - began < WARM_BUDGET:
            start = time.perf_counter()
            await gw.call(tool, [query])
            samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


async def main(servers: list[str], rounds: int) -> None:
    warm_ms: dict[tuple[str, str, str], float] = {}
    for root, label in ((HELD_IN, "held-in"), (STDLIB, "stdlib")):
        for server in servers:
            for name, (tool, query) in _queries(root).items():
                cold = await _first(server, root, tool, query, warm=False)
                warmed = await _first(server, root, tool, query, warm=True)
                median = warm_ms[(label, server, name)] = await _warm(
                    server, root, tool, query, rounds
                )
                print(
                    f"lsp[{server}] {label} {name}: first {cold}; first after warm-up "
                    f"{warmed}; warm {median:.1f} ms (median of <= {rounds})",
                    flush=True,
                )
        base = servers[0]
        for server in servers[1:]:
            ratios = ", ".join(
                f"{name} {warm_ms[(label, server, name)] / warm_ms[(label, base, name)]:.1f}x"
                for name in _queries(root)
            )
            print(f"lsp {label} warm {server}/{base}: {ratios}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", default="ty,basedpyright")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    anyio.run(main, args.servers.split(","), args.rounds)
