"""Foundation figures in one run: search overhead over raw rg, server start-up, import, memory.

Run: ``.venv/bin/python benchmarks/bench_foundation.py [--runs N]``. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import anyio

import octo

# The Python standard library: a large tree every machine running octo has.
STDLIB = Path(sysconfig.get_paths()["stdlib"])
# A rare pattern: few matches, so the cost is walking and reading the tree.
RARE_PATTERN = "class ThreadPoolExecutor"
# A common one: thousands of matches, of which octo returns one page with exact totals.
COMMON_PATTERN = "def __init__"
HANDSHAKE_VERSION = "2025-11-25"
# The baseline for start-up: the bare mcp SDK low-level server with one trivial tool, no octo.
BARE_SDK_SERVER = """
import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="ping", input_schema={"type": "object"})])

async def main():
    server = Server("bare", on_list_tools=list_tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""
OCTO_SERVE = [sys.executable, "-m", "octo", "serve"]
BARE_SERVE = [sys.executable, "-c", BARE_SDK_SERVER]


def rg_binary() -> str:
    beside_python = Path(sys.executable).parent / "rg"
    found = str(beside_python) if beside_python.exists() else shutil.which("rg")
    if found is None:
        sys.exit("rg not found")
    return found


def time_raw_rg(pattern: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [rg_binary(), "--json", pattern, str(STDLIB)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - started


async def time_octo(gateway: octo.Gateway, pattern: str) -> float:
    started = time.perf_counter()
    response = await gateway.call("localSearchCode", [{"pattern": pattern, "path": str(STDLIB)}])
    elapsed = time.perf_counter() - started
    [result] = response.results
    if result.status == "error":
        sys.exit(f"octo search failed: {result.error}")
    return elapsed


async def search_lines(runs: int) -> list[str]:
    lines = []
    async with octo.Gateway(roots=[STDLIB]) as gateway:
        for pattern, label in ((RARE_PATTERN, "rare pattern"), (COMMON_PATTERN, "common pattern")):
            time_raw_rg(pattern)  # warm the page cache for both sides
            await time_octo(gateway, pattern)
            octo_times, rg_times = [], []
            for _ in range(runs):  # interleaved so drift hits both sides alike
                octo_times.append(await time_octo(gateway, pattern))
                rg_times.append(time_raw_rg(pattern))
            octo_ms = statistics.median(octo_times) * 1000
            rg_ms = statistics.median(rg_times) * 1000
            lines.append(
                f"localSearchCode / raw rg --json: {octo_ms / rg_ms:.2f}x "
                f"(octo {octo_ms:.1f} ms, rg {rg_ms:.1f} ms, median of {runs}; {label} "
                f"{pattern!r} over {STDLIB})"
            )
    return lines


def _send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def _receive(process: subprocess.Popen[bytes], request_id: int) -> dict[str, Any]:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        if not line:
            sys.exit("octo serve closed stdout")
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == request_id:
            return message


def serve_until_tools_list(command: list[str]) -> tuple[subprocess.Popen[bytes], float, int]:
    """Spawn a stdio MCP server, handshake, list tools; the seconds it took and the tool count."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    _send(
        process,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": HANDSHAKE_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        },
    )
    _receive(process, 1)
    _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = _receive(process, 2)["result"]["tools"]
    return process, time.perf_counter() - started, len(tools)


def stop(process: subprocess.Popen[bytes]) -> None:
    assert process.stdin is not None
    process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def server_lines(runs: int) -> list[str]:
    starts, bare_starts, memory, tool_count = [], [], [], 0
    for _ in range(runs):
        # Interleaved with the baseline so both see the same machine load.
        process, seconds, _count = serve_until_tools_list(BARE_SERVE)
        bare_starts.append(seconds)
        stop(process)
        process, seconds, tool_count = serve_until_tools_list(OCTO_SERVE)
        starts.append(seconds)
        time.sleep(0.2)  # idle: let start-up garbage settle before reading RSS
        memory.append(rss_mb(process.pid))
        stop(process)
    octo_start, bare_start = statistics.median(starts), statistics.median(bare_starts)
    return [
        f"octo serve cold start to tools/list: {octo_start:.2f} s "
        f"(median of {runs}, {tool_count} tools, stdio)",
        f"  baseline, bare mcp SDK server (1 tool) to tools/list: {bare_start:.2f} s; "
        f"octo / bare SDK: {octo_start / bare_start:.2f}x",
        f"octo serve idle RSS: {statistics.median(memory):.0f} MB (after tools/list)",
    ]


def import_lines(runs: int) -> list[str]:
    lines = []
    for label, statement in (
        ("import octo", "import octo"),
        ("import octo + Gateway + registry", "import octo; octo.Gateway; octo.all_tools()"),
    ):
        timings = []
        for _ in range(runs):
            code = (
                f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
            )
            done = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            )
            timings.append(float(done.stdout))
        lines.append(f"{label}: {statistics.median(timings) * 1000:.0f} ms (median of {runs})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15, help="repetitions of the search timing")
    args = parser.parse_args()
    os.environ.pop("OCTO_ROOTS", None)
    for line in anyio.run(search_lines, args.runs):
        print(line, flush=True)
    for line in server_lines(max(3, args.runs // 3)):
        print(line, flush=True)
    for line in import_lines(max(5, args.runs // 3)):
        print(line, flush=True)


if __name__ == "__main__":
    main()
