"""localDependencyGraph: the cold build of Python's standard library beside grimp building
the same graph in the same run, warm queries, the rebuild after one edited file, and the
peak RSS of a process that builds it.

With ``--npm-prefix DIR`` (a folder where ``npm install zod@3 madge`` ran), zod's TypeScript
sources are built too, beside madge building the same graph, and their file-to-file edges
compared.

Run: ``.venv/bin/python benchmarks/bench_graph.py [--runs N] [--npm-prefix DIR]``. See
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

import octo
from octo.core.config import Config

STDLIB = Path(os.__file__).parent
PACKAGE = "stdlib"
TOOL = "localDependencyGraph"
WARM_QUERIES: list[dict[str, Any]] = [
    {"operation": "dependencies", "file": "json/decoder.py", "depth": 3},
    {"operation": "dependents", "file": "json/decoder.py", "depth": 3},
    {"operation": "path", "file": "http/server.py", "target": "json/decoder.py"},
    {"operation": "cycles"},
    {"operation": "unreachable"},
    {"operation": "hotspots"},
]


def copy_of_stdlib(where: Path) -> Path:
    """The standard library as one package (``stdlib``), without the files grimp refuses
    (not UTF-8, not Python 3): both tools read the same files."""
    package = where / PACKAGE
    shutil.copytree(
        STDLIB,
        package,
        ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc", "lib-dynload"),
        symlinks=True,
    )
    (package / "__init__.py").write_text("")
    for _ in range(50):
        refused = _grimp_refuses(where)
        if refused is None:
            break
        refused.unlink()
    return package


def _grimp_refuses(where: Path) -> Path | None:
    """The file grimp fails on in the copy, if any."""
    done = subprocess.run(
        [sys.executable, __file__, "--grimp-once", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode == 0:
        return None
    found = re.search(rf"({re.escape(str(where))}/\S+\.py)", done.stderr)
    if found is None:
        raise RuntimeError(done.stderr[-2000:])
    refused = Path(found.group(1))
    assert refused.is_relative_to(where)
    return refused


def grimp_build(where: Path) -> tuple[float, int]:
    """Seconds grimp takes to build the copy's graph (no cache), and its modules."""
    import grimp

    sys.path.insert(0, str(where))
    started = time.perf_counter()
    graph = grimp.build_graph(PACKAGE, cache_dir=None)
    seconds = time.perf_counter() - started
    sys.path.remove(str(where))
    return seconds, len(graph.modules)


async def octo_query(
    gateway: octo.Gateway, package: Path, query: dict[str, Any]
) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    response = await gateway.call(TOOL, [{"path": str(package), **query}])
    seconds = time.perf_counter() - started
    envelope: dict[str, Any] = response.to_wire()["results"][0]
    return seconds, envelope


def config(cache: Path) -> Config:
    return Config(env={"XDG_CACHE_HOME": str(cache)}, query_timeout=120.0)


async def octo_cold(package: Path, cache: Path) -> tuple[float, dict[str, Any]]:
    """A new gateway with an empty cache directory: its first query builds the graph."""
    async with octo.Gateway(config(cache), roots=[package.parent]) as gateway:
        return await octo_query(gateway, package, WARM_QUERIES[1])


async def octo_warm_and_edit(package: Path, cache: Path, runs: int) -> float:
    """Prints the warm queries' times; returns the median rebuild after one edit."""
    async with octo.Gateway(config(cache), roots=[package.parent]) as gateway:
        seconds, _ = await octo_query(gateway, package, WARM_QUERIES[0])
        print(
            f"octo first query of a new gateway, graph from the disk cache: {seconds * 1000:.0f} ms"
        )
        for query in WARM_QUERIES:
            times = [(await octo_query(gateway, package, query))[0] for _ in range(runs)]
            median = statistics.median(times) * 1000
            print(f"warm {query['operation']:<13} median {median:6.1f} ms  (target < 50 ms)")
        edited = package / "json" / "decoder.py"
        edits = []
        for round_ in range(runs):
            edited.write_text(edited.read_text() + f"\nimport string  # edit {round_}\n")
            edits.append((await octo_query(gateway, package, WARM_QUERIES[1]))[0])
        return statistics.median(edits)


def peak_rss(package: Path, cache: Path) -> float:
    """MB: the peak RSS of a fresh process building the graph cold."""
    subprocess.run([sys.executable, __file__, "--build-once", str(package), str(cache)], check=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


async def octo_edges(project: Path, cache: Path) -> tuple[float, set[tuple[str, str]], int]:
    """Seconds of the cold build, the file-to-file edges, and the cycles octo finds."""
    async with octo.Gateway(config(cache), roots=[project]) as gateway:
        seconds, envelope = await octo_query(gateway, project, {"operation": "cycles"})
        edges = set()
        names = await anyio.to_thread.run_sync(lambda: sorted(project.rglob("*.ts")))
        for path in names:
            rel = path.relative_to(project).as_posix()
            _, answer = await octo_query(
                gateway, project, {"operation": "dependencies", "file": rel}
            )
            for item in answer["data"]["items"]:
                if not item.get("package") and "unresolved" not in (item.get("kinds") or []):
                    edges.add((rel, item["file"]))
        return seconds, edges, envelope["data"]["totalItems"]


def typescript_beside_madge(prefix: Path, where: Path) -> None:
    project = where / "zod"
    shutil.copytree(prefix / "node_modules" / "zod" / "src", project)
    files = sum(1 for _ in project.rglob("*.ts"))
    madge = prefix / "node_modules" / ".bin" / "madge"
    started = time.perf_counter()
    done = subprocess.run(
        [str(madge), "--extensions", "ts", "--json", "."],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    madge_seconds = time.perf_counter() - started
    madge_edges = {(f, t) for f, targets in json.loads(done.stdout).items() for t in targets}
    seconds, edges, cycles = anyio.run(octo_edges, project, where / "cache-ts")
    print(f"tree: zod's TypeScript sources, {files} .ts files")
    print(f"madge build: {madge_seconds * 1000:.0f} ms ({len(madge_edges)} file-to-file edges)")
    print(
        f"octo cold build + first query: {seconds * 1000:.0f} ms ({len(edges)} file-to-file "
        f"edges, {cycles} cycles); octo / madge: {seconds / madge_seconds:.2f}x"
    )
    print(
        f"edges madge has and octo not: {len(madge_edges - edges)}; "
        f"octo has and madge not: {len(edges - madge_edges)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--grimp-once")
    parser.add_argument("--build-once", nargs=2)
    parser.add_argument("--npm-prefix", type=Path)
    args = parser.parse_args()
    if args.grimp_once:
        grimp_build(Path(args.grimp_once))
        return
    if args.build_once:
        package, cache = map(Path, args.build_once)
        anyio.run(octo_cold, package, cache)
        return
    with tempfile.TemporaryDirectory() as temporary:
        where = Path(temporary)
        package = copy_of_stdlib(where / "tree")
        files = sum(1 for _ in package.rglob("*.py"))
        print(f"tree: the standard library as one package, {files} .py files")
        grimp_times, octo_times = [], []
        for run in range(3):
            seconds, modules = grimp_build(where / "tree")
            grimp_times.append(seconds)
            seconds, envelope = anyio.run(octo_cold, package, where / f"cache{run}")
            octo_times.append(seconds)
        data = envelope["data"]
        grimp_cold, octo_cold_ = statistics.median(grimp_times), statistics.median(octo_times)
        print(f"grimp cold build: median {grimp_cold * 1000:.0f} ms ({modules} modules)")
        print(
            f"octo cold build + first query: median {octo_cold_ * 1000:.0f} ms "
            f"({data['files']} files, {data['edges']} edges, partial: {bool(data.get('partial'))})"
        )
        print(f"octo cold / grimp cold: {octo_cold_ / grimp_cold:.2f}x  (target <= 3x)")
        incremental = anyio.run(octo_warm_and_edit, package, where / "cache0", args.runs)
        print(
            f"incremental rebuild after one edited file: median {incremental * 1000:.0f} ms, "
            f"{incremental / octo_cold_:.1%} of the cold build  (target < 10%)"
        )
        rss = peak_rss(package, where / "cache-rss")
        print(f"peak RSS of a process building the graph cold: {rss:.0f} MB  (target < 300 MB)")
        if args.npm_prefix is None:
            print("TypeScript beside madge: not run (give --npm-prefix, see the docstring)")
        else:
            typescript_beside_madge(args.npm_prefix, where)


if __name__ == "__main__":
    main()
