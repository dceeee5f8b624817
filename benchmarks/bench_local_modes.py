"""Local search output modes and find-then-search, on a large tree: totalOnly's wall time over
raw ``rg --count``, one question's answer size asked four ways, localFindAndSearchCode over
the two calls it replaces, tokens per listed file of a file list (localFindFiles, filesOnly),
and the rg processes a 5-query localSearchCode call over its token
budget starts (each query's share is fixed before it runs: no query runs twice).

Run: ``.venv/bin/python benchmarks/bench_local_modes.py [--runs N]``. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import weakref
from collections import Counter
from collections.abc import Awaitable
from collections.abc import Callable
from typing import Any

import anyio
from bench_foundation import STDLIB
from bench_foundation import rg_binary
from bench_tools_list import token_counter

import octo
from octo.transports import processes

# A common pattern: thousands of matching lines in thousands of files.
PATTERN = "def __init__"
# The files localFindAndSearchCode finds first: the standard library's tests.
TEST_FILES = "test_*.py"
# What localSearchCode gives rg besides the pattern, so raw rg answers the same question.
SAME_QUERY_FLAGS = ["--smart-case", "--no-require-git", "--max-filesize=10485760"]


def raw_rg_count() -> tuple[float, int]:
    """Seconds of ``rg --count`` over the tree, and the matching lines it counted."""
    started = time.perf_counter()
    done = subprocess.run(
        [rg_binary(), "--count", *SAME_QUERY_FLAGS, "--", PATTERN, "."],
        cwd=STDLIB,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    elapsed = time.perf_counter() - started
    counts = re.findall(rb":(\d+)$", done.stdout, re.MULTILINE)
    return elapsed, sum(int(count) for count in counts)


async def timed(gateway: octo.Gateway, tool: str, query: dict[str, Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    response = await gateway.call(tool, [query])
    elapsed = time.perf_counter() - started
    [result] = response.results
    if result.status == "error":
        sys.exit(f"{tool} failed: {result.error}")
    return elapsed, response


async def medians(
    runs: int, first: Callable[[], Awaitable[float]], second: Callable[[], Awaitable[float]]
) -> tuple[float, float]:
    """Median seconds of two timed actions, interleaved so drift hits both alike."""
    await first()
    await second()
    a, b = [], []
    for _ in range(runs):
        a.append(await first())
        b.append(await second())
    return statistics.median(a), statistics.median(b)


async def total_only_line(gateway: octo.Gateway, runs: int) -> str:
    query = {"pattern": PATTERN, "path": str(STDLIB), "outputMode": "totalOnly"}
    totals: list[int] = []

    async def octo_side() -> float:
        elapsed, response = await timed(gateway, "localSearchCode", query)
        totals.append(response.results[0].data.stats.totalMatches)
        return elapsed

    async def rg_side() -> float:
        elapsed, total = await anyio.to_thread.run_sync(raw_rg_count)
        totals.append(total)
        return elapsed

    octo_s, rg_s = await medians(runs, octo_side, rg_side)
    same = "same totals" if len(set(totals)) == 1 else f"TOTALS DIFFER {sorted(set(totals))}"
    return (
        f"localSearchCode totalOnly / raw rg --count: {octo_s / rg_s:.2f}x "
        f"(octo {octo_s * 1000:.1f} ms, rg {rg_s * 1000:.1f} ms, median of {runs}; "
        f"{PATTERN!r} over {STDLIB}, {totals[0]} matching lines, {same})"
    )


async def answer_size_line(gateway: octo.Gateway) -> str:
    sizes = []
    for mode in ("totalOnly", "countOnly", "summary", "groupByFile"):
        query = {"pattern": PATTERN, "path": str(STDLIB), "outputMode": mode}
        _elapsed, response = await timed(gateway, "localSearchCode", query)
        sizes.append(f"{mode} {len(response.to_compact_json())} B")
    return f"answer bytes, one question four ways ({PATTERN!r} over {STDLIB}): " + ", ".join(sizes)


async def find_and_search_line(gateway: octo.Gateway, runs: int) -> str:
    # Deep and wide enough that both ways search the same files: every test file of the tree.
    where = {"path": str(STDLIB), "names": [TEST_FILES], "maxDepth": 10}
    find = {**where, "type": "f", "limit": 10000}
    search = {"path": str(STDLIB), "pattern": PATTERN, "include": [TEST_FILES]}
    joined = {**where, "pattern": PATTERN, "fileLimit": 10000}
    counts: dict[str, int] = {}

    async def one_call() -> float:
        elapsed, response = await timed(gateway, "localFindAndSearchCode", joined)
        counts["joined"] = response.results[0].data.find.searchedFileCount
        return elapsed

    async def two_calls() -> float:
        found_s, found = await timed(gateway, "localFindFiles", find)
        searched_s, searched = await timed(gateway, "localSearchCode", search)
        counts["found"] = found.results[0].data.totalCount
        counts["searched"] = searched.results[0].data.stats.filesSearched
        return found_s + searched_s

    joined_s, two_s = await medians(runs, one_call, two_calls)
    return (
        f"localFindAndSearchCode / localFindFiles then localSearchCode: {joined_s / two_s:.2f}x "
        f"(one call {joined_s * 1000:.1f} ms, two calls {two_s * 1000:.1f} ms, median of "
        f"{runs}; {TEST_FILES} then {PATTERN!r} over {STDLIB}; files searched: one call "
        f"{counts['joined']}, two calls found {counts['found']} and searched {counts['searched']})"
    )


#: What each rg run of a search is, told by its flags.
_PASSES = (
    ("--files-with-matches", "secret checks"),
    ("--json", "page passes"),
    ("--stats", "count passes"),
    ("--count", "recounts over redacted text"),
)


def _pass_of(process: Any) -> str:
    try:
        args = process._process._transport.get_extra_info("subprocess").args
    except AttributeError:
        return "other"
    return next((name for flag, name in _PASSES if flag in args), "other")


async def tokens_per_file_line(gateway: octo.Gateway) -> str:
    """Tokens of a whole answer (its compact JSON, as MCP clients hand it to the model) over
    the files it lists, for a page of 20 files: localFindFiles (and with details: true, every
    field as before issue 24) and a localSearchCode filesOnly page."""
    counter, count = token_counter()
    asked = {
        "localFindFiles": {"path": str(STDLIB), "name": "*.py", "filesPerPage": 20},
        "localFindFiles details": {
            "path": str(STDLIB), "name": "*.py", "filesPerPage": 20, "details": True,
        },
        "localSearchCode filesOnly": {
            "path": str(STDLIB), "pattern": PATTERN, "filesOnly": True, "filesPerPage": 20,
        },
    }  # fmt: skip
    parts = []
    for label, query in asked.items():
        _elapsed, response = await timed(gateway, label.split()[0], query)
        listed = len(response.results[0].data.files)
        tokens = count(response.to_compact_json())
        parts.append(f"{label} {tokens / listed:.1f} ({tokens} for {listed} files)")
    return f"tokens per listed file ({counter}, whole answer; target about 20): " + ", ".join(parts)


class _CountingSet(weakref.WeakSet[Any]):
    """The running rg processes, counting every one ever added (each rg octo starts), by
    what it is."""

    started = 0
    kinds: Counter[str] = Counter()

    def add(self, item: Any) -> None:
        type(self).started += 1
        type(self).kinds[_pass_of(item)] += 1
        super().add(item)


async def over_budget_line() -> str:
    """rg processes started by one 5-query localSearchCode call whose answers together are
    over OCTO_MAX_CALL_TOKENS (each query's page is large)."""
    queries = [
        {"pattern": pattern, "path": str(STDLIB), "matchesPerPage": 50, "filesPerPage": 20}
        for pattern in ("def __init__", "import os", "return None", "self.assert", "raise ")
    ]
    config = octo.Config(roots=(STDLIB,), max_call_tokens=4000)
    processes._children["rg"] = counting = _CountingSet()
    async with octo.Gateway(config=config) as gateway:
        response = await gateway.call("localSearchCode", queries)
    statuses = {result.status.value for result in response.results}
    kinds = ", ".join(f"{name} {n}" for name, n in sorted(counting.kinds.items()))
    return (
        f"rg processes per 5-query over-budget localSearchCode call: {counting.started} "
        f"({counting.started / len(queries):.1f} per query: {kinds}; statuses {sorted(statuses)})"
    )


async def bench(runs: int) -> list[str]:
    async with octo.Gateway(roots=[STDLIB]) as gateway:
        lines = [
            await total_only_line(gateway, runs),
            await answer_size_line(gateway),
            await find_and_search_line(gateway, runs),
            await tokens_per_file_line(gateway),
        ]
    return [*lines, await over_budget_line()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21, help="repetitions of each timing")
    runs = parser.parse_args().runs
    os.environ.pop("OCTO_ROOTS", None)
    print("\n".join(anyio.run(bench, runs)), flush=True)


if __name__ == "__main__":
    main()
