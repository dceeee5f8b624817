"""A CI log of hundreds of megabytes, served by a local host through GitHub's redirect to
its log storage, answers with its failure while octo's memory stays flat: the log streams
through the reducer, never held (issue 36)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

import octo
from octo.core.config import Config
from tests.limits.conftest import own_memory_kib
from tests.limits.conftest import reset_own_peak

#: The log's size: far above any cap on a body octo holds.
LOG_BYTES = 220 * 1024 * 1024
_LINE = b"2026-11-20T10:15:01.1234567Z ok   tests/test_prices.py::test_price_%08d PASSED\n"
_FAILURE = (
    b"FAILED tests/test_cart.py::test_discount_rounding - AssertionError\n"
    b"##[error]Process completed with exit code 1.\n"
)
TOKEN = "test-token-not-real-bigl"


@contextmanager
def log_host() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """A host answering the job's API on 127.0.0.1 and its log, generated as it is sent,
    on localhost (another origin); yields its API URL and the headers the log request had."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            port = self.headers.get("host", "").rsplit(":", 1)[-1]
            if self.path == "/api/v3/repos/o/r/actions/jobs/7":
                body = json.dumps({"id": 7, "name": "tests", "conclusion": "failure"}).encode()
                self._send(200, {"content-type": "application/json"}, body)
            elif self.path == "/api/v3/repos/o/r/actions/jobs/7/logs":
                self._send(302, {"location": f"http://localhost:{port}/blob/7?sig=x"}, b"")
            elif self.path.startswith("/blob/7"):
                seen.append({k.lower(): v for k, v in self.headers.items()})
                self._stream_log()
            else:
                self._send(404, {}, b"{}")

        def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _stream_log(self) -> None:
            lines = LOG_BYTES // len(_LINE % 0)
            self.send_response(200)
            self.send_header("content-length", str(lines * len(_LINE % 0) + len(_FAILURE)))
            self.end_headers()
            batch = 2000
            try:
                for start in range(0, lines, batch):
                    count = min(batch, lines - start)
                    self.wfile.write(b"".join(_LINE % n for n in range(start, start + count)))
                self.wfile.write(_FAILURE)
            except (BrokenPipeError, ConnectionResetError):
                return

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/api/v3", seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


@pytest.mark.slow
async def test_a_huge_log_streams_through_in_bounded_memory() -> None:
    with log_host() as (api, seen):
        env = {"GITHUB_API_URL": api, "GITHUB_TOKEN": TOKEN}
        async with octo.Gateway(config=Config.from_env(env)) as gateway:
            await gateway.call("getToolCategories", [{}])  # warm imports before measuring
            before = own_memory_kib("VmRSS")
            reset_own_peak()
            response = await gateway.call(
                "githubGetJobLog",
                [
                    {
                        "owner": "o",
                        "repo": "r",
                        "jobId": 7,
                        "mainResearchGoal": "m",
                        "researchGoal": "r",
                        "reasoning": "why",
                    }
                ],
            )
            grown_mib = (own_memory_kib("VmHWM") - before) / 1024
    [row] = response.to_wire()["results"]
    assert row["status"] == "success", row
    [step] = row["data"]["jobs"][0]["steps"]
    assert "FAILED tests/test_cart.py::test_discount_rounding" in step["text"]
    assert step["lines"] > 2_000_000
    # Loose: the log is 220 MiB; holding it (or a tenth of it) would show.
    assert grown_mib < 64, f"peak RSS grew {grown_mib:.0f} MiB"
    assert seen and "authorization" not in seen[0]
