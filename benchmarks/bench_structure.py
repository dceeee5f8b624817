"""Structural search: octo's localSearchStructure against the ast-grep CLI on ~5 MB of Python.

Copies this Python's standard library (its top-level modules, about 4.7 MB) into a temporary
folder, then times, per pattern, octo's answer through the library face (the CLI as a child,
the secret check, octo's confined read of each match) and the bare ``ast-grep run --json``
on the same folder (the baseline), median of a few warm runs each, in the same process; it
checks that both found the same matches (file and line) and prints octo / CLI.

Target (issue 38): at most 1.5x. Run: .venv/bin/python benchmarks/bench_structure.py
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import time
from pathlib import Path

import octo
from octo.core.config import Config
from octo.local.structure.sg_child import sg_binary

ROUNDS = 5
#: Patterns with fewer matches than octo keeps (2000), so both sides list all of them.
PATTERNS = ("isinstance($A, $B)", "raise $E from None", "with open($$$A) as $F: $$$B")


def _corpus(into: Path) -> tuple[int, int]:
    """Bytes and files copied."""
    sources = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    for source in sources:
        shutil.copyfile(source, into / source.name)
    return sum(source.stat().st_size for source in sources), len(sources)


def _cli(folder: Path, pattern: str) -> set[tuple[str, int]]:
    binary = sg_binary()
    assert binary is not None, "the ast-grep CLI (ast-grep-cli) is not installed"
    done = subprocess.run(
        [binary, "run", "-p", pattern, "-l", "python", "--json=stream", "."],
        cwd=folder,
        capture_output=True,
        check=True,
    )
    found = set()
    for line in done.stdout.splitlines():
        event = json.loads(line)
        found.add((event["file"], event["range"]["start"]["line"] + 1))
    return found


async def _octo(gateway: octo.Gateway, folder: Path, pattern: str) -> set[tuple[str, int]]:
    query = {"pattern": pattern, "language": "python", "path": str(folder), "matchesPerPage": 25}
    found: set[tuple[str, int]] = set()
    page = 1
    while True:
        response = await gateway.call("localSearchStructure", [{**query, "page": page}])
        data = response.to_wire()["results"][0]["data"]
        found |= {(m["path"], m["startLine"]) for m in data["matches"]}
        if not data["pagination"]["hasMore"]:
            return found
        page += 1


async def _octo_once(gateway: octo.Gateway, folder: Path, pattern: str) -> None:
    query = {"pattern": pattern, "language": "python", "path": str(folder)}
    await gateway.call("localSearchStructure", [query])


def _median(times: list[float]) -> float:
    return statistics.median(times) * 1000


async def main() -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        size, files = _corpus(folder)
        print(f"corpus: {size / 1e6:.1f} MB of Python, {files} files")
        async with octo.Gateway(Config(), roots=[folder]) as gateway:
            for pattern in PATTERNS:
                ours = await _octo(gateway, folder, pattern)
                theirs = _cli(folder, pattern)
                same = "same matches" if ours == theirs else f"DIFFERENT ({len(ours ^ theirs)})"
                octo_times, cli_times = [], []
                for _ in range(ROUNDS):
                    start = time.perf_counter()
                    await _octo_once(gateway, folder, pattern)
                    octo_times.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    _cli(folder, pattern)
                    cli_times.append(time.perf_counter() - start)
                octo_ms, cli_ms = _median(octo_times), _median(cli_times)
                print(
                    f"{pattern:32} {len(theirs):>5} matches, {same}: octo {octo_ms:6.0f} ms,"
                    f" ast-grep CLI {cli_ms:6.0f} ms, ratio {octo_ms / cli_ms:.2f}x"
                )


if __name__ == "__main__":
    asyncio.run(main())
