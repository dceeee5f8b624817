"""History tools against the git CLI, side by side in the same run.

Builds a repository (2,000 commits touching a 3,000-line file, by ``git fast-import``), then
times octo's localGitBlame (whole file, 20 lines) and localGitHistory (log of a path, log -L
of a function, the pickaxe over the whole history) through the library face, each beside the
bare git command that answers the same question, and prints the ratio (targets: blame of 20
lines and log of a path <= 1.5x, whole-file blame <= 2x, nothing over 5 s). With pygit2
importable (not a dependency) its blame is timed too: the measurement that chose the git
binary over libgit2.

Run: .venv/bin/python benchmarks/bench_history.py [a real checkout and a file in it]
"""

from __future__ import annotations

import asyncio
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any

import octo
from octo.core.config import Config

ROUNDS = 5
COMMITS = 2000
LINES = 3000
FUNCTION = 1500


def build(path: Path) -> None:
    """The benchmark's repository: each commit changes 5 lines; a function whose body
    changes every 100 commits; a marker added at commit 1000 and removed at 1500."""
    rnd = random.Random(7)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    text = [f"line {i} of the file" for i in range(LINES)]
    text[FUNCTION] = "def target_function(x):"
    stream: list[bytes] = []
    for number in range(COMMITS):
        for _ in range(5):
            i = rnd.randrange(LINES)
            if not FUNCTION <= i < FUNCTION + 10 and i != 2000:
                text[i] = f"line {i} changed in {number}"
        if number % 100 == 50:
            text[FUNCTION + 1] = f"    return x + {number}"
        if number in (1000, 1500):
            text[2000] = "MARKER_VALUE = 1" if number == 1000 else "gone"
        body = ("\n".join(text) + "\n").encode()
        message = f"commit {number}\n".encode()
        who = f"Dev{number % 7} <dev{number % 7}@example.test> {1_600_000_000 + number * 60} +0000"
        stream += [
            f"commit refs/heads/main\nauthor {who}\ncommitter {who}\n".encode(),
            b"data %d\n%s" % (len(message), message),
            b"M 100644 inline big.py\ndata %d\n%s\n" % (len(body), body),
        ]
    subprocess.run(
        ["git", "-C", str(path), "fast-import", "--quiet"], input=b"".join(stream), check=True
    )
    subprocess.run(["git", "-C", str(path), "reset", "-q", "--hard", "main"], check=True)


async def _timed(run: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await run()
    return time.perf_counter() - started


async def _side_by_side(
    mine: Callable[[], Awaitable[Any]], theirs: Callable[[], Awaitable[Any]], rounds: int
) -> tuple[float, float, float]:
    """Median times of both and the median of the per-round ratios, the two run in turn
    each round so a busy machine slows both alike."""
    pairs = [(await _timed(mine), await _timed(theirs)) for _ in range(rounds)]
    return (
        statistics.median(p[0] for p in pairs),
        statistics.median(p[1] for p in pairs),
        statistics.median(p[0] / p[1] for p in pairs),
    )


async def _median(run: Callable[[], Awaitable[Any]]) -> float:
    return statistics.median([await _timed(run) for _ in range(ROUNDS)])


async def _git(repo: Path, *args: str) -> None:
    process = await asyncio.create_subprocess_exec(
        "git", "-C", str(repo), *args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    await process.communicate()


async def compare(repo: Path, file: str, function_line: int, marker: str) -> None:
    cases: list[tuple[str, float, str, dict[str, Any], list[str]]] = [
        ("blame whole file", 2.0, "localGitBlame", {"path": file}, ["blame", "--porcelain", "HEAD", "--", file]),
        ("blame 20 lines", 1.5, "localGitBlame", {"path": file, "startLine": 1000, "endLine": 1019},
         ["blame", "--porcelain", "-L1000,1019", "HEAD", "--", file]),
        ("log of a path, 20", 1.5, "localGitHistory", {"path": file},
         ["log", "--name-status", "--follow", "-n21", "HEAD", "--", file]),
        ("log of a path, 100", 1.5, "localGitHistory", {"path": file, "limit": 100},
         ["log", "--name-status", "--follow", "-n101", "HEAD", "--", file]),
        ("log -L of a function", 1.5, "localGitHistory",
         {"path": file, "startLine": function_line, "endLine": function_line + 1},
         ["log", f"-L{function_line},{function_line + 1}:{file}", "-n21", "HEAD"]),
        ("pickaxe, whole history", 1.5, "localGitHistory", {"path": ".", "removed": marker},
         ["log", f"-S{marker}", "-p", "--unified=0", "-n500", "HEAD"]),
    ]  # fmt: skip
    config = Config(env={"PATH": "/usr/bin:/bin:/usr/local/bin"}, max_tokens=50_000)
    async with octo.Gateway(config, roots=[repo]) as gateway:
        print(f"{'case':<24} {'octo s':>8} {'git s':>8} {'ratio':>6}  target")
        for name, target, tool, query, git_args in cases:
            query = {**query, "path": str(repo / query["path"])}
            answer = (await gateway.call(tool, [query])).to_wire()["results"][0]
            assert answer["status"] in ("success", "empty"), answer
            rounds = ROUNDS if "blame" in name or "-L" in name or "pickaxe" in name else 40
            mine, theirs, ratio = await _side_by_side(
                lambda t=tool, q=query: gateway.call(t, [q]),
                lambda a=git_args: _git(repo, *a),
                rounds,
            )
            verdict = "ok" if ratio <= target and mine <= 5 else "MISSED"
            if answer.get("partial"):
                verdict += " (partial: stopped at the time limit)"
            print(f"{name:<24} {mine:8.3f} {theirs:8.3f} {ratio:6.2f}  <= {target} {verdict}")
    try:
        import pygit2  # type: ignore[import-not-found]
    except ImportError:
        print("pygit2 not installed: libgit2's blame not timed")
        return
    library = pygit2.Repository(str(repo))
    whole = await _median(lambda: asyncio.to_thread(library.blame, file))
    lines = await _median(
        lambda: asyncio.to_thread(library.blame, file, min_line=1000, max_line=1019)
    )
    print(f"pygit2 blame whole file {whole:.3f} s, 20 lines {lines:.3f} s")


def main() -> None:
    if len(sys.argv) == 3:
        asyncio.run(compare(Path(sys.argv[1]).resolve(), sys.argv[2], 10, "def "))
        return
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder) / "repo"
        started = time.perf_counter()
        build(repo)
        print(
            f"built {COMMITS} commits of a {LINES}-line file in {time.perf_counter() - started:.1f} s"
        )
        asyncio.run(compare(repo, "big.py", FUNCTION + 1, "MARKER_VALUE"))


if __name__ == "__main__":
    main()
