"""Two local HTTP servers standing in for GitHub: the API (127.0.0.1) answers the archive
request with a redirect to the archive host (``localhost``, another origin) carrying a
short-lived token in its URL, as GitHub does. Each keeps the headers it received."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import Any

from tests.codehosts.clone.archives import SHA

#: The token GitHub puts in the archive host's URL (any value: the test checks it arrives).
URL_TOKEN = "short-lived-url-token"


@dataclass
class Host:
    """One local server: what it answers by path, and every request's path and headers."""

    host: str
    routes: dict[str, tuple[int, dict[str, str], bytes]] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    port: int = 0

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"


def _handler(host: Host) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            host.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            status, headers, body = host.routes.get(self.path.split("?")[0], (404, {}, b""))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read the recorded requests."""

    return Handler


@contextmanager
def serving(host: Host) -> Iterator[Host]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(host))
    host.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield host
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


@contextmanager
def github_with_archive(archive: bytes) -> Iterator[tuple[Host, Host]]:
    """The API and the archive host, wired: ``main`` is :data:`SHA`, whose tarball the API
    redirects to the archive host."""
    with serving(Host("127.0.0.1")) as api, serving(Host("localhost")) as files:
        api.routes["/api/v3/repos/o/r/commits/main"] = (
            200,
            {"content-type": "text/plain"},
            SHA.encode(),
        )
        location = f"{files.origin}/o/r/legacy.tar.gz/{SHA}?token={URL_TOKEN}"
        api.routes[f"/api/v3/repos/o/r/tarball/{SHA}"] = (302, {"location": location}, b"")
        files.routes[f"/o/r/legacy.tar.gz/{SHA}"] = (
            200,
            {"content-type": "application/x-gzip"},
            archive,
        )
        yield api, files
