"""A JSON server on 127.0.0.1 that answers every GET late: the upstream of the bulk benchmarks."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import Any

Answer = Callable[[str], Any]


class SlowJsonServer(ThreadingHTTPServer):
    """Serves ``answer(path)`` as JSON after ``delay`` seconds and counts the requests."""

    daemon_threads = True

    def __init__(self, answer: Answer, delay: float) -> None:
        super().__init__(("127.0.0.1", 0), _SlowHandler)
        self.answer = answer
        self.delay = delay
        self.requests = 0
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> SlowJsonServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self


class _SlowHandler(BaseHTTPRequestHandler):
    server: SlowJsonServer

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.requests += 1
        time.sleep(self.server.delay)
        body = json.dumps(self.server.answer(self.path)).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""
