"""A local HTTP server standing in for a remote host: it answers each GET with what a
function of the path gives, keeps every request's path and headers for the test to read, and
runs in a thread of its own until the block ends."""

from __future__ import annotations

import threading
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import Any
from typing import TypeVar

#: What the server answers a request: status, headers, body.
Answer = tuple[int, dict[str, str], bytes]


@dataclass
class RecordingServer:
    """A server on 127.0.0.1 answering ``answer(path)``; ``host`` names it in its origin
    (``localhost``: another origin on the same address)."""

    answer: Callable[[str], Answer]
    host: str = "127.0.0.1"
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    port: int = 0

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def headers_seen(self) -> list[dict[str, str]]:
        """The headers of every request, in order (names in lower case)."""
        return [headers for _, headers in self.requests]


def send(handler: BaseHTTPRequestHandler, answer: Answer) -> None:
    """Send ``answer`` whole: its status, its headers with the body's length, its body."""
    status, headers, body = answer
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.send_header("content-length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _handler(server: RecordingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            send(self, server.answer(self.path))

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads the recorded requests instead."""

    return Handler


S = TypeVar("S", bound=RecordingServer)


@contextmanager
def recording(server: S) -> Iterator[S]:
    """``server`` listening on a free port of 127.0.0.1 until the block ends."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
    server.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
