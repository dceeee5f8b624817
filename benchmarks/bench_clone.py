"""githubCloneRepo: a fresh clone of a generated ~50 MB archive served by a local GitHub
stand-in (the archive behind GitHub's cross-host redirect), against the standard library's
own safe extraction of the same bytes (tarfile, filter "data") in the same process; then a
second clone of the same commit (reuse).

Run: ``.venv/bin/python benchmarks/bench_clone.py [--mb 50] [--runs 3]``. See
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from octo import Gateway  # noqa: E402
from octo.core.config import Config  # noqa: E402
from tests.codehosts.clone.archive_server import github_with_archive  # noqa: E402
from tests.codehosts.clone.archives import build  # noqa: E402
from tests.codehosts.clone.test_clone_repo import clone_env  # noqa: E402

WORDS = [f"word{i}" for i in range(5000)] + ["def", "return", "class", "import", "self"]
FILE_BYTES = 32 * 1024


def generated_files(megabytes: int) -> dict[str, str]:
    """Source-like text files, ``megabytes`` in all (fixed seed: the same archive each run)."""
    rng = random.Random(21)
    files = {}
    for i in range(megabytes * 1024 * 1024 // FILE_BYTES):
        lines, size = [], 0
        while size < FILE_BYTES:
            line = " ".join(rng.choices(WORDS, k=10)) + "\n"
            lines.append(line)
            size += len(line)
        files[f"src/pkg{i % 40}/mod{i}.py"] = "".join(lines)
    return files


def stdlib_extract(data: bytes, into: Path) -> float:
    """Seconds the standard library takes to extract ``data`` safely (filter "data")."""
    started = time.perf_counter()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
        tar.extractall(into, filter="data")
    return time.perf_counter() - started


async def measured(data: bytes, runs: int) -> tuple[list[float], list[float], list[float], int]:
    """Per run, interleaved (the machine's load drifts): the standard library's extraction,
    a fresh clone (a new gateway and an empty clone folder) and its reuse; and the unpacked
    size."""
    baseline, fresh, reused, size = [], [], [], 0
    with tempfile.TemporaryDirectory() as tmp, github_with_archive(data) as (api, _):
        work = Path(tmp) / "work"
        work.mkdir()
        query = {"owner": "o", "repo": "r", "ref": "main"}
        for run in range(runs):
            baseline.append(stdlib_extract(data, Path(tmp) / f"stdlib{run}"))
            env = clone_env(api, Path(tmp), OCTO_CLONE_DIR=str(Path(tmp) / f"clones{run}"))
            async with Gateway(Config.from_env(env), roots=[work]) as gw:
                started = time.perf_counter()
                result = (await gw.call("githubCloneRepo", [query])).to_wire()["results"][0]
                fresh.append(time.perf_counter() - started)
                assert result["status"] == "success", result
                size = result["data"]["sizeBytes"]
                started = time.perf_counter()
                again = (await gw.call("githubCloneRepo", [query])).to_wire()["results"][0]
                reused.append(time.perf_counter() - started)
                assert again["data"]["reused"] is True, again
    return baseline, fresh, reused, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=50, help="unpacked size of the archive")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    data = build(generated_files(args.mb))
    baseline, fresh, reused, size = anyio.run(measured, data, args.runs)
    base, clone, again = (statistics.median(v) for v in (baseline, fresh, reused))
    print(
        f"githubCloneRepo fresh clone: {clone * 1000:.0f} ms for {size / 1e6:.1f} MB unpacked "
        f"({len(data) / 1e6:.1f} MB archive); tarfile extractall(filter='data') "
        f"{base * 1000:.0f} ms; ratio {clone / base:.2f}x"
    )
    print(f"githubCloneRepo reuse of the same commit: {again * 1000:.1f} ms (target < 50 ms)")


if __name__ == "__main__":
    main()
