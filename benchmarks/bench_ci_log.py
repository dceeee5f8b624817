"""githubGetJobLog on a 2 GiB job log: the time it takes against the tool's deadline, and how
far octo's peak memory grows (issue 36: a 2 GB log answers within the deadline, peak RSS
under 256 MB).

A local host in a child process answers GitHub's job API and redirects the log to its
storage path (another origin, as GitHub does), which generates the log as it is sent:
millions of passing test lines, then a pytest failure. octo runs in this process, so its
peak RSS (VmHWM, reset before the call) is measured without the server's. Run:

    .venv/bin/python benchmarks/bench_ci_log.py [--gib 2]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio

import octo
from octo.core.config import Config
from octo.registry import get_tool

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.http_serving import free_port
from tests.limits.conftest import own_memory_kib
from tests.limits.conftest import reset_own_peak

_SERVER = textwrap.dedent(
    """
    import json, sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    LINE = b"2026-11-20T10:15:01.1234567Z ok   tests/test_prices.py::test_price_%08d PASSED\\n"
    FAILURE = (
        b"FAILED tests/test_cart.py::test_discount_rounding - AssertionError\\n"
        b"##[error]Process completed with exit code 1.\\n"
    )
    SIZE = int(sys.argv[2])

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            port = self.server.server_address[1]
            if self.path == "/api/v3/repos/o/r/actions/jobs/7":
                body = json.dumps({"id": 7, "name": "tests", "conclusion": "failure"}).encode()
                self.reply(200, body, {"content-type": "application/json"})
            elif self.path == "/api/v3/repos/o/r/actions/jobs/7/logs":
                self.reply(302, b"", {"location": f"http://localhost:{port}/blob/7?sig=x"})
            elif self.path.startswith("/blob/7"):
                lines = SIZE // len(LINE % 0)
                self.send_response(200)
                self.send_header("content-length", str(lines * len(LINE % 0) + len(FAILURE)))
                self.end_headers()
                try:
                    for start in range(0, lines, 4000):
                        stop = min(lines, start + 4000)
                        self.wfile.write(b"".join(LINE % n for n in range(start, stop)))
                    self.wfile.write(FAILURE)
                except (BrokenPipeError, ConnectionResetError):
                    pass
            else:
                self.reply(404, b"{}", {})

        def reply(self, status, body, headers):
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
    """
)


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
    server = subprocess.Popen([sys.executable, "-c", _SERVER, str(port), str(size)])
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
    found = "FAILED tests/test_cart.py::test_discount_rounding" in str(row)
    print(
        f"githubGetJobLog on a {args.gib:g} GiB log: {row['status']}, failure found: {found}; "
        f"{seconds:.1f} s of a {deadline:g} s deadline ({seconds / deadline:.2f}x); "
        f"peak RSS grew {grown:.1f} MiB (target < 256 MB)"
    )


if __name__ == "__main__":
    main()
