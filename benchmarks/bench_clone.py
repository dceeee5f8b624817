"""githubCloneRepo: a fresh clone of a generated ~50 MB archive served by a local GitHub
stand-in (the archive behind GitHub's cross-host redirect), against the standard library's
own safe extraction of the same bytes (tarfile, filter "data") in the same process; then a
second clone of the same commit (reuse); then the peak memory of a clone of an archive of
``--peak-mb`` MB of incompressible files (the server's and the extracting child's), against
the same archive held in memory and extracted there, as octo did before.

Run: ``.venv/bin/python benchmarks/bench_clone.py [--mb 50] [--runs 3] [--peak-mb 200]``.
See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import tarfile
import tempfile
import threading
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


def random_files(megabytes: int) -> dict[str, bytes]:
    """Files of random bytes, ``megabytes`` in all: the archive is as large as what it holds."""
    size = 1024 * 1024
    return {f"blob/{i}.bin": os.urandom(size) for i in range(megabytes)}


def _status(field: str) -> int:
    """A field of /proc/self/status, in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise LookupError(field)


def _reset_peak() -> int:
    """Start the peak resident size afresh (Linux: clear_refs 5); the resident size now."""
    Path("/proc/self/clear_refs").write_text("5")
    return _status("VmRSS")


def held_in_memory(data: bytes, into: Path) -> int:
    """Peak memory, in bytes over the start, of what octo did before: the body read in
    chunks, joined, and extracted from memory."""
    start = _reset_peak()
    chunks = [data[i : i + 65536] for i in range(0, len(data), 65536)]
    body = b"".join(chunks)
    with tarfile.open(fileobj=io.BytesIO(body), mode="r:*") as tar:
        tar.extractall(into, filter="data")
    del chunks, body
    return _status("VmHWM") - start


class ChildPeak:
    """The largest peak resident size (VmHWM) seen of an extracting child, read from /proc
    while it runs (a forked child's rusage would count its parent's pages until exec)."""

    def __init__(self) -> None:
        self.peak = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> ChildPeak:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._done.wait(0.005):
            for proc in Path("/proc").iterdir():
                try:
                    if proc.name.isdigit() and b"extract.py" in (proc / "cmdline").read_bytes():
                        status = (proc / "status").read_text()
                        hwm = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
                        self.peak = max(self.peak, int(hwm.split()[1]) * 1024)
                except (OSError, StopIteration):
                    continue


async def clone_peak(data: bytes) -> tuple[int, int]:
    """Peak memory of one clone, in bytes: the server's over its start, and the extracting
    child's whole resident size."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        github_with_archive(data) as (api, _),
        ChildPeak() as child,
    ):
        work = Path(tmp) / "work"
        work.mkdir()
        query = {"owner": "o", "repo": "r", "ref": "main"}
        async with Gateway(Config.from_env(clone_env(api, Path(tmp))), roots=[work]) as gw:
            start = _reset_peak()
            result = (await gw.call("githubCloneRepo", [query])).to_wire()["results"][0]
            assert result["status"] == "success", result
            server = _status("VmHWM") - start
    return server, child.peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=50, help="unpacked size of the archive")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--peak-mb", type=int, default=200, help="archive size for peak memory")
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
    data = build(random_files(args.peak_mb))
    server, child = anyio.run(clone_peak, data)
    with tempfile.TemporaryDirectory() as tmp:
        before = held_in_memory(data, Path(tmp))
    mib = 1024 * 1024
    print(
        f"githubCloneRepo peak memory for a {len(data) / 1e6:.0f} MB archive: server "
        f"+{server / mib:.1f} MiB, extracting child {child / mib:.1f} MiB, together "
        f"{(server + child) / mib:.1f} MiB (target < 128 MB); held in memory as before "
        f"+{before / mib:.1f} MiB; ratio {(server + child) / before:.2f}x"
    )


if __name__ == "__main__":
    main()
