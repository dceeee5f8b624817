"""A local HTTP server that answers like a broken or hostile host: bodies of a gigabyte,
bodies cut off, truncated JSON, endless redirects. It counts what it sent, so a test can
tell how much of an answer octo read before it closed the connection.

The word in the request's path picks the answer:

- ``huge``: 1 GiB of JSON-looking bytes, with its Content-Length;
- ``unsized``: the same without a length (chunked), so only reading tells its size;
- ``cut``: a Content-Length of 1000 and 100 bytes, then the connection closes;
- ``truncated``: a complete answer whose JSON stops half-way;
- ``loop``: a redirect to itself;
- ``hop``: a redirect with a 1 GiB body of its own, to the same path with ``huge`` for ``hop``;
- ``short``: a GitLab raw file whose X-Gitlab-Size says 1000 but whose body holds 10 bytes;
- anything else: 404.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import Any

GIB = 1024 * 1024 * 1024
_CHUNK = b"1," * 32 * 1024


class HostileServer(ThreadingHTTPServer):
    """Serves the answers above on 127.0.0.1; ``sent`` counts the body bytes of each path."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.sent: dict[str, int] = {}
        self.done = threading.Condition()
        self.url = f"http://127.0.0.1:{self.server_port}"

    def start(self) -> HostileServer:
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def sent_to(self, word: str, timeout: float = 30.0) -> int:
        """Bytes sent for the request whose path held ``word``, once its answer ended (the
        client closed the connection, or all of it was sent)."""
        with self.done:
            self.done.wait_for(lambda: any(word in path for path in self.sent), timeout)
            return sum(count for path, count in self.sent.items() if word in path)


class _Handler(BaseHTTPRequestHandler):
    server: HostileServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        path = self.path
        sent = 0
        try:
            if "loop" in path:
                self.send_response(302)
                self.send_header("location", path)
                self.send_header("content-length", "0")
                self.end_headers()
            elif "hop" in path:
                sent = self._huge(chunked=False, moved_to=path.replace("hop", "huge"))
            elif "unsized" in path or "huge" in path:
                sent = self._huge(chunked="unsized" in path)
            elif "cut" in path:
                self._head(200, 1000)
                self.wfile.write(b"[" + b"1," * 49 + b"2")
                sent = 100
                self.close_connection = True
            elif "truncated" in path:
                body = b'{"type": "file", "encoding": "base64", "size": 10, "sha": "ab'
                self._head(200, len(body))
                self.wfile.write(body)
                sent = len(body)
            elif "short" in path:
                self._head(200, 10, {"x-gitlab-size": "1000", "x-gitlab-blob-id": "b" * 40})
                self.wfile.write(b"0123456789")
                sent = 10
            else:
                body = b'{"message": "Not Found"}'
                self._head(404, len(body))
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            with self.server.done:
                self.server.sent[path] = self.server.sent.get(path, 0) + sent
                self.server.done.notify_all()

    def _head(self, status: int, length: int | None, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        if length is None:
            self.send_header("transfer-encoding", "chunked")
        else:
            self.send_header("content-length", str(length))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def _huge(self, *, chunked: bool, moved_to: str | None = None) -> int:
        """Send up to 1 GiB, counting; the client closing the connection ends it. With
        ``moved_to`` the body is a redirect's, there."""
        if moved_to is None:
            self._head(200, None if chunked else GIB)
        else:
            self._head(302, GIB, {"location": moved_to})
        sent = 0
        try:
            while sent < GIB:
                if chunked:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(_CHUNK), _CHUNK))
                else:
                    self.wfile.write(_CHUNK)
                sent += len(_CHUNK)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        return sent

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests look at what was sent instead."""
