"""Load: K concurrent MCP clients over streamable HTTP against one `octo serve --http`, each
sending 5-query localSearchCode calls over a large tree, next to the same calls sent one at
a time by one client to the same server (the baseline). Each concurrent client opens its
session (initialize, tools/list) before the clock starts, as the baseline's client did; then
all send their calls at once, so the run measures calls, not sessions being set up (its CPU
is printed for each part).

Prints calls, queries, transport errors, TIMEOUTs (with no partial answer), partial answers,
p50/p99 call latency, the calls admitted and those refused at once as BUSY (OCTO_MAX_CALLS,
OCTO_ADMISSION_WAIT) with the latency of each, the server's peak RSS and the peak RSS of its
whole process tree (octo, rg, language servers), the most rg processes seen at once, and the
throughput of the concurrent run against the baseline's. Targets at 200 concurrent calls:
0 transport errors, 0 TIMEOUT, no empty partial page, admitted calls' median under 10 s,
process tree under 512 MB, throughput at least 0.8x.

Run: ``.venv/bin/python benchmarks/bench_load.py`` (Linux: RSS and processes are read from
/proc). The tree is this Python's standard library without site-packages, hard-linked into
a temporary directory (``--tree DIR`` searches another one).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.http_serving import peak_rss_mb  # noqa: E402
from tests.http_serving import serving_http  # noqa: E402
from tests.limits.conftest import tree_rss_mb  # noqa: E402
from tests.lsp.conftest import command_line  # noqa: E402
from tests.lsp.conftest import descendants_of  # noqa: E402

#: One call: five searches as an agent batches them: four over the whole tree (common and
#: rare words, a regex, one listing files only) and one in a sub-directory.
QUERIES = [
    {"pattern": "def __init__", "path": ".", "type": "py"},
    {"pattern": "import asyncio", "path": ".", "type": "py"},
    {"pattern": r"class \w+Error\(", "path": ".", "type": "py"},
    {"pattern": "deprecated", "path": ".", "filesOnly": True},
    {"pattern": "socket", "path": "asyncio"},
]


@dataclass
class Tally:
    """What the calls of one run met."""

    latencies: list[float] = field(default_factory=list)
    #: Calls refused at once (every query BUSY) and the latency of each.
    refused: list[float] = field(default_factory=list)
    transport_errors: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    partial: int = 0
    queries: int = 0

    def take(self, started: float, rows: list[dict[str, Any]]) -> None:
        if all(row.get("error", {}).get("code") == "BUSY" for row in rows):
            self.refused.append(time.perf_counter() - started)
            return
        self.latencies.append(time.perf_counter() - started)
        for row in rows:
            self.queries += 1
            self.partial += bool(row.get("partial"))
            if row.get("status") == "error":
                self.codes[row["error"]["code"]] += 1


def standard_library_tree(work: Path) -> Path:
    """This Python's standard library without site-packages, hard-linked under ``work``."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    tree = work / "stdlib"
    shutil.copytree(
        stdlib,
        tree,
        symlinks=True,
        ignore=shutil.ignore_patterns("site-packages"),
        copy_function=os.link,
    )
    return tree


def tree_size(tree: Path) -> tuple[int, int]:
    files = [p for p in tree.rglob("*") if p.is_file() and not p.is_symlink()]
    return len(files), sum(p.stat().st_size for p in files)


def cpu_seconds(pid: int) -> tuple[float, float, float]:
    """CPU seconds of ``pid`` itself, of its reaped children (rg), and of this process (the
    clients)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    mine = resource.getrusage(resource.RUSAGE_SELF)
    return (
        (int(fields[11]) + int(fields[12])) / tick,
        (int(fields[13]) + int(fields[14])) / tick,
        mine.ru_utime + mine.ru_stime,
    )


def rg_running(octo: int) -> int:
    """rg processes below ``octo`` now."""
    return sum(Path((command_line(pid) or [""])[0]).name == "rg" for pid in descendants_of(octo))


async def one_call(url: str, tally: Tally, client: Client | None = None) -> None:
    started = time.perf_counter()
    try:
        if client is None:
            async with Client(url) as fresh:
                result = await fresh.call_tool("localSearchCode", {"queries": QUERIES})
        else:
            result = await client.call_tool("localSearchCode", {"queries": QUERIES})
    except Exception as exc:  # noqa: BLE001 - every transport failure is counted
        tally.transport_errors[type(exc).__name__] += 1
        return
    assert result.structured_content is not None, result
    tally.take(started, result.structured_content["results"])


async def sequential(url: str, calls: int) -> tuple[Tally, float]:
    tally = Tally()
    async with Client(url) as client:
        await one_call(url, Tally(), client)  # warm-up: page cache, imports
        started = time.perf_counter()
        for _ in range(calls):
            await one_call(url, tally, client)
    return tally, time.perf_counter() - started


async def concurrent(
    url: str, clients: int, calls: int, octo: int, pause: float
) -> tuple[Tally, float, int, tuple[float, float, float], float]:
    """The run's tally, its seconds, the most rg processes seen at once, the CPU seconds
    (cpu_seconds) when its clock started, and the peak RSS of octo's process tree (MB)."""
    tally = Tally()
    most_rg = 0
    peak_tree = 0.0
    per_client = [calls // clients + (i < calls % clients) for i in range(clients)]

    ready = 0
    go = anyio.Event()

    async def client_run(count: int) -> None:
        nonlocal ready
        async with Client(url) as client:
            # A session starts as an agent's does (initialize, tools/list) before the clock,
            # as the baseline's did: the run measures calls, not session set-up.
            await client.list_tools()
            ready += 1
            if ready == clients:
                go.set()
            await go.wait()
            for index in range(count):
                if index:
                    await anyio.sleep(pause)  # an agent reading the last answer
                await one_call(url, tally, client)

    async def watch() -> None:
        nonlocal most_rg, peak_tree
        while True:
            most_rg = max(most_rg, rg_running(octo))
            peak_tree = max(peak_tree, tree_rss_mb(octo))
            await anyio.sleep(0.1)

    started = 0.0
    cpu_at_start = (0.0, 0.0, 0.0)

    async def start_clock() -> None:
        nonlocal started, cpu_at_start
        await go.wait()
        started = time.perf_counter()
        cpu_at_start = cpu_seconds(octo)

    async with anyio.create_task_group() as outer:
        outer.start_soon(watch)
        async with anyio.create_task_group() as tg:
            tg.start_soon(start_clock)
            for count in per_client:
                tg.start_soon(client_run, count)
        outer.cancel_scope.cancel()
    return tally, time.perf_counter() - started, most_rg, cpu_at_start, peak_tree


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def report(name: str, tally: Tally, seconds: float) -> None:
    timeouts = tally.codes.get("TIMEOUT", 0)
    errors = sum(tally.transport_errors.values())
    calls = len(tally.latencies) + len(tally.refused) + errors
    print(f"{name}: calls {calls}, queries {tally.queries}")
    print(
        f"{name}: admitted {len(tally.latencies)}, refused at once (BUSY) {len(tally.refused)}"
        + (
            f", refused after p50 {statistics.median(tally.refused):.2f} s, "
            f"max {max(tally.refused):.2f} s"
            if tally.refused
            else ""
        )
    )
    print(
        f"{name}: transport errors {errors} {dict(tally.transport_errors) or ''}, "
        f"TIMEOUT without a partial answer {timeouts}, partial answers {tally.partial}, "
        f"other errors {dict(c for c in tally.codes.items() if c[0] != 'TIMEOUT') or 0}"
    )
    if tally.latencies:
        print(
            f"{name}: admitted latency deciles",
            [round(percentile(tally.latencies, q / 10), 1) for q in range(11)],
        )
        print(
            f"{name}: admitted call latency p50 {statistics.median(tally.latencies):.2f} s, "
            f"p99 {percentile(tally.latencies, 0.99):.2f} s; "
            f"throughput {len(tally.latencies) / seconds:.2f} calls/s over {seconds:.1f} s"
        )


def cpu_report(
    name: str, before: tuple[float, float, float], after: tuple[float, float, float], calls: int
) -> None:
    own, children, client = ((a - b) / calls * 1000 for a, b in zip(after, before, strict=True))
    print(f"{name}: CPU per call: octo {own:.0f} ms, rg {children:.0f} ms, clients {client:.0f} ms")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200, help="concurrent clients (K)")
    parser.add_argument("--calls", type=int, default=200, help="calls of the concurrent run")
    parser.add_argument("--baseline-calls", type=int, default=40, help="calls one at a time")
    parser.add_argument("--tree", type=Path, help="tree to search (default: the stdlib)")
    parser.add_argument(
        "--pause", type=float, default=0.0, help="seconds a client waits between its calls"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as work:
        tree = args.tree or standard_library_tree(Path(work))
        files, size = tree_size(tree)
        print(f"tree: {tree} ({files} files, {size / 2**20:.0f} MB), {os.cpu_count()} CPUs")
        env = {**os.environ, "OCTO_ROOTS": str(tree)}  # OCTO_RG_CONCURRENCY etc. pass
        async with serving_http(env) as (url, server):
            before = cpu_seconds(server.pid)
            base, base_seconds = await sequential(url, args.baseline_calls)
            report("sequential", base, base_seconds)
            middle = cpu_seconds(server.pid)
            cpu_report("sequential", before, middle, args.baseline_calls + 1)
            load, load_seconds, most_rg, clock, peak_tree = await concurrent(
                url, args.clients, args.calls, server.pid, args.pause
            )
            report(f"{args.clients} concurrent", load, load_seconds)
            end = cpu_seconds(server.pid)
            cpu_report(f"{args.clients} concurrent, sessions set up", middle, clock, args.calls)
            cpu_report(f"{args.clients} concurrent, calls", clock, end, args.calls)
            print(f"peak RSS of octo serve: {peak_rss_mb(server.pid):.0f} MB")
            print(f"peak RSS of octo's process tree: {peak_tree:.0f} MB (target < 512 MB)")
            print(f"most rg processes at once: {most_rg}")
            # The baseline again, after: on a shared machine the speed drifts between runs.
            again, again_seconds = await sequential(url, args.baseline_calls)
            report("sequential again", again, again_seconds)
            last = cpu_seconds(server.pid)
            base_rate = (len(base.latencies) + len(again.latencies)) / (
                base_seconds + again_seconds
            )
            ratio = (len(load.latencies) / load_seconds) / base_rate
            print(
                f"throughput concurrent / sequential (both sequential runs): {ratio:.2f}x "
                "(target >= 0.8x)"
            )
            server_cpu = [sum(part[:2]) for part in (before, middle, clock, end, end, last)]
            # Each sequential run makes one warm-up call besides its calls.
            alone = (server_cpu[1] - server_cpu[0] + server_cpu[5] - server_cpu[4]) / (
                2 * (args.baseline_calls + 1)
            )
            loaded = (server_cpu[3] - server_cpu[2]) / args.calls
            print(
                f"server CPU (octo + rg) per call concurrent / sequential: {loaded / alone:.2f}x "
                "(queueing, not thrashing: about 1)"
            )


if __name__ == "__main__":
    anyio.run(main)
