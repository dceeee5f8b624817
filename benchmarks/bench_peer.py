"""octo next to its closest peer, octocode-mcp: answer sizes, wall times, tools/list, cold start.

Both servers run over stdio under real ``mcp.Client`` sessions and answer the same local
queries on the same tree (this Python's standard library). Run:

    .venv/bin/python benchmarks/bench_peer.py --peer-command "node /path/to/octocode-mcp/dist/index.js"

or set OCTO_PEER_COMMAND. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass

import anyio
import mcp_types as types
from mcp import Client
from mcp import StdioServerParameters
from peer_cases import STDLIB
from peer_cases import Args
from peer_cases import Case
from peer_cases import Json
from peer_cases import cases
from peer_cases import first_row

OCTO_COMMAND = [sys.executable, "-m", "octo", "serve"]
# Variables that would hand either server a GitHub token or octo settings from the shell.
DROPPED_ENV_PREFIXES = ("OCTO_", "OCTOCODE_", "GITHUB_", "GH_")


@dataclass
class Answer:
    """What a server said to one call, and how long it took."""

    text: str
    structured: Json | None
    is_error: bool
    milliseconds: float


@dataclass
class PairedRatio:
    """octo's time over the peer's, call by call (the two take turns), as a median and the
    distribution-free 95% interval of that median: a task whose interval holds 1.00 is at
    parity within this machine's noise."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, octo: list[float], peer: list[float]) -> PairedRatio:
        ratios = sorted(o / p for o, p in zip(octo, peer, strict=True) if p)
        n = len(ratios)
        # The order statistics around the median that hold it with 95% confidence
        # (binomial, normal approximation); with few calls, the whole range.
        k = max(0, math.floor((n - 1.96 * math.sqrt(n)) / 2))
        return cls(statistics.median(ratios), ratios[k], ratios[n - 1 - k])

    def __str__(self) -> str:
        return f"{self.median:.2f}x [{self.low:.2f}-{self.high:.2f}]"


def _env(home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROPPED_ENV_PREFIXES)}
    env.update(
        {
            "OCTO_ROOTS": str(STDLIB),
            # The peer: local tools on, the tree allowed, a throwaway home (no user config,
            # no stored credentials), nothing persisted, and the whole answer in content[0]
            # (older releases put only a one-line summary there otherwise).
            "ENABLE_LOCAL": "true",
            "WORKSPACE_ROOT": str(STDLIB),
            "ALLOWED_PATHS": str(STDLIB),
            "OCTOCODE_HOME": home,
            "OCTOCODE_STORAGE_MODE": "memory",
            "OCTOCODE_MCP_FULL_TEXT": "true",
        }
    )
    return env


def _params(command: list[str], env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=command[0], args=command[1:], env=env)


# --- talking to the servers ------------------------------------------------------------------


def _text(result: types.CallToolResult) -> str:
    first = result.content[0] if result.content else None
    return first.text if isinstance(first, types.TextContent) else ""


def _row_failed(structured: Json | None) -> bool:
    rows = (structured or {}).get("results") or []
    return bool(rows) and rows[0].get("status") == "error"


async def call(client: Client, tool: str, query: Args) -> Answer:
    started = time.perf_counter()
    result = await client.call_tool(tool, {"queries": [query]})
    milliseconds = (time.perf_counter() - started) * 1000
    structured = result.structured_content
    return Answer(
        _text(result), structured, result.is_error or _row_failed(structured), milliseconds
    )


async def timed_pair(
    octo: tuple[Client, str, Args], peer: tuple[Client, str, Args], runs: int
) -> tuple[Answer, Answer, PairedRatio]:
    """One warm-up call each, then ``runs`` timed calls each, octo's and the peer's taking
    turns so that both meet the same machine load; each side's last answer with its median
    time, and the call-by-call ratio."""
    await call(*octo)
    await call(*peer)
    sides: tuple[list[Answer], list[Answer]] = ([], [])
    for _ in range(runs):
        sides[0].append(await call(*octo))
        sides[1].append(await call(*peer))
    times = [[a.milliseconds for a in answers] for answers in sides]
    for answers, milliseconds in zip(sides, times, strict=True):
        answers[-1].milliseconds = statistics.median(milliseconds)
    return sides[0][-1], sides[1][-1], PairedRatio.of(*times)


async def cold_start(params: StdioServerParameters) -> tuple[float, types.ListToolsResult]:
    """Seconds from spawn to the tools/list answer (handshake included), and that answer."""
    started = time.perf_counter()
    async with Client(params, mode="legacy") as client:
        listed = await client.list_tools()
        return time.perf_counter() - started, listed


def _wire_size(tools: list[types.Tool]) -> int:
    payload = {
        "tools": [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
    }
    return len(json.dumps(payload, separators=(",", ":")).encode())


# --- printing --------------------------------------------------------------------------------


def _size(answer: Answer) -> str:
    tokens = len(answer.text) // 4
    structured = (
        "-"
        if answer.structured is None
        else str(len(json.dumps(answer.structured, separators=(",", ":"))))
    )
    return f"{len(answer.text):>6} ch / {tokens:>5} tok / {answer.milliseconds:>6.0f} ms (sc {structured:>5})"


def _ratio(octo: float, peer: float) -> str:
    return f"{octo / peer:.2f}x" if peer else "n/a"


def case_lines(case: Case, octo: Answer, peer: Answer, paired: PairedRatio) -> Iterator[str]:
    yield (
        f"{case.octo_tool:<20} {case.label:<48} octo {_size(octo)} | peer {_size(peer)} | "
        f"octo/peer tokens {_ratio(len(octo.text), len(peer.text))}, "
        f"ms {_ratio(octo.milliseconds, peer.milliseconds)} (paired {paired})"
    )
    for side, answer in (("octo", octo), ("peer", peer)):
        if answer.is_error:
            yield f"  ! {side} failed: {' '.join(answer.text.split())[:200]}"
    if case.check is not None and not (octo.is_error or peer.is_error):
        for problem in case.check(octo.structured or {}, peer.structured or {}):
            yield f"  ! disagreement: {problem}"
    listed = len(first_row(octo.structured).get("files") or [])
    if case.lists_files and listed and not peer.is_error:
        yield (
            f"  tokens per listed file ({listed} files): octo {len(octo.text) / 4 / listed:.1f}"
            f" | peer {len(peer.text) / 4 / listed:.1f} (target about 20)"
        )


async def run(peer_command: list[str], runs: int, starts: int, only: str | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-peer-home-") as home:
        env = _env(home)
        octo_params, peer_params = _params(OCTO_COMMAND, env), _params(peer_command, env)
        octo_starts, peer_starts = [], []
        for _ in range(starts):  # interleaved, so both see the same machine load
            seconds, octo_listed = await cold_start(octo_params)
            octo_starts.append(seconds)
            seconds, peer_listed = await cold_start(peer_params)
            peer_starts.append(seconds)
        octo_tools, peer_tools = octo_listed.tools, peer_listed.tools
        peer_names = {tool.name for tool in peer_tools}
        split = "localSearchCode" in peer_names
        print(f"corpus: {STDLIB}; peer: {shlex.join(peer_command)}")
        print(
            f"peer local tools: {'split (localSearchCode, ...)' if split else 'unified (localSearch)'}"
            f"; times: median of {runs} calls after one warm-up, octo and peer taking turns; "
            "tokens = chars/4; "
            "sc = structuredContent chars"
        )
        octo_local = [t for t in octo_tools if t.name.startswith("local")]
        peer_local = [t for t in peer_tools if t.name.startswith("local")]
        print(
            f"tools/list: octo {_wire_size(octo_tools)} B ({len(octo_tools)} tools) | "
            f"peer {_wire_size(peer_tools)} B ({len(peer_tools)} tools) | octo/peer "
            f"{_ratio(_wire_size(octo_tools), _wire_size(peer_tools))}; local tools only: "
            f"octo {_wire_size(octo_local)} B ({len(octo_local)}) | "
            f"peer {_wire_size(peer_local)} B ({len(peer_local)})"
        )
        octo_start, peer_start = statistics.median(octo_starts), statistics.median(peer_starts)
        print(
            f"cold start to tools/list (stdio, median of {starts}): octo {octo_start:.2f} s | "
            f"peer {peer_start:.2f} s | octo/peer {_ratio(octo_start, peer_start)}"
        )
        async with AsyncExitStack() as stack:
            octo_client = await stack.enter_async_context(Client(octo_params))
            peer_client = await stack.enter_async_context(Client(peer_params))
            totals, answered, asked = [0, 0], 0, 0
            slower: list[str] = []
            beyond_noise: list[str] = []
            for case in cases():
                if only is not None and only not in case.label:
                    continue
                peer_tool, peer_query = case.peer_split if split else case.peer_unified
                if peer_tool not in peer_names:
                    print(f"{case.octo_tool:<20} {case.label:<48} peer has no {peer_tool}")
                    continue
                octo, peer, paired = await timed_pair(
                    (octo_client, case.octo_tool, case.octo_query),
                    (peer_client, peer_tool, peer_query),
                    runs,
                )
                asked += 1
                if not (octo.is_error or peer.is_error):
                    answered += 1
                    totals[0] += len(octo.text)
                    totals[1] += len(peer.text)
                    if octo.milliseconds > peer.milliseconds:
                        slower.append(
                            f"{case.label} {_ratio(octo.milliseconds, peer.milliseconds)}"
                        )
                    if paired.low > 1:
                        beyond_noise.append(f"{case.label} {paired}")
                for line in case_lines(case, octo, peer, paired):
                    print(line, flush=True)
            print(
                f"all {answered} queries both answered (of {asked}): "
                f"octo {totals[0]} ch / {totals[0] // 4} tok | "
                f"peer {totals[1]} ch / {totals[1] // 4} tok | "
                f"octo/peer text tokens {_ratio(totals[0] // 4, totals[1] // 4)} (target <= 0.50x)"
            )
            print(
                f"tasks where octo is slower than the peer: {len(slower)} of {answered}"
                + (f" ({'; '.join(slower)})" if slower else "")
            )
            print(
                "tasks where octo is slower beyond the noise (the paired ratio's 95% interval "
                f"above 1.00): {len(beyond_noise)} of {answered}"
                + (f" ({'; '.join(beyond_noise)})" if beyond_noise else "")
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--peer-command",
        default=os.environ.get("OCTO_PEER_COMMAND"),
        help="command that starts the peer over stdio (default: $OCTO_PEER_COMMAND)",
    )
    parser.add_argument("--runs", type=int, default=3, help="timed calls per query and server")
    parser.add_argument("--starts", type=int, default=3, help="cold starts per server (>= 1)")
    parser.add_argument("--only", help="run only the tasks whose label holds this text")
    options = parser.parse_args()
    if not options.peer_command:
        print("bench_peer: no peer given (--peer-command or OCTO_PEER_COMMAND); nothing to compare")
        return
    anyio.run(
        run,
        shlex.split(options.peer_command),
        max(1, options.runs),
        max(1, options.starts),
        options.only,
    )


if __name__ == "__main__":
    main()
