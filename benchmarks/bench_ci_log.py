"""githubGetJobLog on a 2 GiB job log: the time it takes against the tool's deadline, and how
far octo's peak memory grows (issue 36: a 2 GB log answers within the deadline, peak RSS
under 256 MB).

A local host in a child process (tests/limits/ci_log_host.py) answers GitHub's job API and
redirects the log to its storage path (another origin, as GitHub does), which generates the
log as it is sent: millions of passing test lines, then a pytest failure. octo runs in this process, so its
peak RSS (VmHWM, reset before the call) is measured without the server's. Run:

    .venv/bin/python benchmarks/bench_ci_log.py [--gib 2]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio

import octo
from octo.core.config import Config
from octo.registry import get_tool

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.http_serving import REPO
from tests.http_serving import free_port
from tests.limits.conftest import own_memory_kib
from tests.limits.conftest import reset_own_peak


async def measure(api: str) -> tuple[float, float, dict[str, object]]:
    env = {"GITHUB_API_URL": api, "GITHUB_TOKEN": "bench-token-not-real"}
    async with octo.Gateway(config=Config.from_env(env)) as gateway:
        await gateway.call("getToolCategories", [{}])  # imports warm before measuring
        before = own_memory_kib("VmRSS")
        reset_own_peak()
        started = time.perf_counter()
        response = await gateway.call(
            "githubGetJobLog",
            [{"owner": "o", "repo": "r", "jobId": 7, "researchGoal": "why is CI red"}],
        )
        seconds = time.perf_counter() - started
        grown = (own_memory_kib("VmHWM") - before) / 1024
    [row] = response.to_wire()["results"]
    return seconds, grown, row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=2.0, help="the log's size in GiB")
    args = parser.parse_args()
    size = int(args.gib * 1024**3)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.limits.ci_log_host", str(port), str(size)], cwd=REPO
    )
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        seconds, grown, row = anyio.run(measure, f"http://127.0.0.1:{port}/api/v3")
    finally:
        server.kill()
        server.wait()
    deadline = get_tool("githubGetJobLog").timeout
    assert deadline is not None, "githubGetJobLog declares its own deadline"
    found = "FAILED tests/test_cart.py::test_discount_rounding" in str(row)
    print(
        f"githubGetJobLog on a {args.gib:g} GiB log: {row['status']}, failure found: {found}; "
        f"{seconds:.1f} s of a {deadline:g} s deadline ({seconds / deadline:.2f}x); "
        f"peak RSS grew {grown:.1f} MiB (target < 256 MB)"
    )


if __name__ == "__main__":
    main()
