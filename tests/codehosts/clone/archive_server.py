"""Two local HTTP servers standing in for GitHub: the API (127.0.0.1) answers the archive
request with a redirect to the archive host (``localhost``, another origin) carrying a
short-lived token in its URL, as GitHub does. Each keeps the headers it received."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from tests.codehosts.clone.archives import SHA
from tests.recording_server import Answer
from tests.recording_server import RecordingServer
from tests.recording_server import recording

#: The token GitHub puts in the archive host's URL (any value: the test checks it arrives).
URL_TOKEN = "short-lived-url-token"


class Host(RecordingServer):
    """One local server answering from ``routes``: a path (its query left aside) -> status,
    headers and body; any other path is not found."""

    def __init__(self, host: str) -> None:
        self.routes: dict[str, Answer] = {}
        super().__init__(lambda path: self.routes.get(path.split("?")[0], (404, {}, b"")), host)


@contextmanager
def github_with_archive(archive: bytes) -> Iterator[tuple[Host, Host]]:
    """The API and the archive host, wired: ``main`` is :data:`SHA`, whose tarball the API
    redirects to the archive host."""
    with recording(Host("127.0.0.1")) as api, recording(Host("localhost")) as files:
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
