"""Fixtures of the security suite: real local HTTP servers that record what reaches them."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """What a recording server answers: a status, headers and a JSON body."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None


@dataclass
class RecordingServer:
    """An HTTP server on 127.0.0.1 (its own origin) that keeps every request's path and
    headers and answers with ``answer(path)``."""

    answer: Callable[[str], Reply]
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    port: int = 0

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def headers_seen(self) -> list[dict[str, str]]:
        return [headers for _, headers in self.requests]


def _handler(server: RecordingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            reply = server.answer(self.path)
            body = b"" if reply.body is None else json.dumps(reply.body).encode()
            self.send_response(reply.status)
            for name, value in {"content-type": "application/json", **reply.headers}.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads the recorded requests instead."""

    return Handler


def serve_recording(answer: Callable[[str], Reply]) -> Iterator[RecordingServer]:
    """Run a :class:`RecordingServer` in a thread until the generator is closed."""
    recording = RecordingServer(answer)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(recording))
    recording.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield recording
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


# The shared-state cases run on the real Redis of the team suite's fixtures.
from tests.core.shared.conftest import prefix  # noqa: E402, F401
from tests.core.shared.conftest import redis_url  # noqa: E402, F401
