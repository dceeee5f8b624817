"""A host answering GitHub's job API for job 7 of o/r on 127.0.0.1 and redirecting its log to
localhost (another origin, as GitHub does), which generates the log as it is sent: passing
test lines, then a pytest failure. The test of a huge log runs it in a thread (``log_host``);
its benchmark in a child process, so that its memory is not counted as octo's:

    python -m tests.limits.ci_log_host PORT BYTES
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import Any

from tests.recording_server import send

LINE = b"2026-11-20T10:15:01.1234567Z ok   tests/test_prices.py::test_price_%08d PASSED\n"
FAILURE = (
    b"FAILED tests/test_cart.py::test_discount_rounding - AssertionError\n"
    b"##[error]Process completed with exit code 1.\n"
)


def log_handler(log_bytes: int, seen: list[dict[str, str]]) -> type[BaseHTTPRequestHandler]:
    """The host's handler for a log of about ``log_bytes``; ``seen`` gets the headers of
    each request for the log."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            port = self.headers.get("host", "").rsplit(":", 1)[-1]
            if self.path == "/api/v3/repos/o/r/actions/jobs/7":
                body = json.dumps({"id": 7, "name": "tests", "conclusion": "failure"}).encode()
                send(self, (200, {"content-type": "application/json"}, body))
            elif self.path == "/api/v3/repos/o/r/actions/jobs/7/logs":
                send(self, (302, {"location": f"http://localhost:{port}/blob/7?sig=x"}, b""))
            elif self.path.startswith("/blob/7"):
                seen.append({k.lower(): v for k, v in self.headers.items()})
                self._stream_log()
            else:
                send(self, (404, {}, b"{}"))

        def _stream_log(self) -> None:
            lines = log_bytes // len(LINE % 0)
            self.send_response(200)
            self.send_header("content-length", str(lines * len(LINE % 0) + len(FAILURE)))
            self.end_headers()
            batch = 2000
            try:
                for start in range(0, lines, batch):
                    count = min(batch, lines - start)
                    self.wfile.write(b"".join(LINE % n for n in range(start, start + count)))
                self.wfile.write(FAILURE)
            except (BrokenPipeError, ConnectionResetError):
                return

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    return Handler


@contextmanager
def log_host(log_bytes: int) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """The host on a free port, in a thread, until the block ends; yields its API URL and the
    headers the log requests had."""
    seen: list[dict[str, str]] = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), log_handler(log_bytes, seen))
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/api/v3", seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


if __name__ == "__main__":
    port, log_bytes = int(sys.argv[1]), int(sys.argv[2])
    ThreadingHTTPServer(("127.0.0.1", port), log_handler(log_bytes, [])).serve_forever()
