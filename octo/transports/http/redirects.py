"""Redirects, followed by octo rather than httpx, so credentials never leave their origin.

httpx strips only ``Authorization`` when a redirect crosses origins; GitLab's
``PRIVATE-TOKEN`` and every other header went along. Here each hop gets the headers its own
origin may see: the host policy's (credentials included) on the configured origin, none of
them anywhere else. A request re-sent to another origin says so in a note the answer shows.

Every hop is streamed: a redirect's body is never read, and the last answer's body is read
within the caller's byte limit (:func:`~octo.transports.http.body.read_capped`).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

import httpx

from octo.core.errors import InvalidResponseError
from octo.transports.http.body import BodySink
from octo.transports.http.body import read_capped

#: Redirects followed for one request before giving up (httpx's default is 20).
MAX_REDIRECTS = 5
_NOTES = "octo.redirect_notes"


def origin(url: httpx.URL) -> tuple[str, str, int | None]:
    """The origin of ``url``: scheme, host and port (the scheme's default when unsaid)."""
    default = {"http": 80, "https": 443}.get(url.scheme)
    return (url.scheme, url.host, url.port or default)


def redirect_notes(response: httpx.Response) -> tuple[str, ...]:
    """What :func:`send_following` noted about the redirects behind ``response``."""
    notes: tuple[str, ...] = response.extensions.get(_NOTES, ())
    return notes


async def send_following(
    http: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    params: Mapping[str, Any] | None,
    headers: Mapping[str, str],
    credentials: Mapping[str, str],
    is_own: Callable[[httpx.URL], bool],
    name: str,
    max_bytes: int | None,
    sink: BodySink | None = None,
    content: bytes | None = None,
) -> httpx.Response:
    """Send ``method url`` with ``headers`` (and the body ``content``: the first request
    only) and follow up to :data:`MAX_REDIRECTS` redirects; the answer's body is read, at
    most ``max_bytes`` of it (a success's into ``sink`` as it streams, when given; None:
    what the sink takes, see :func:`~octo.transports.http.body.read_capped`).

    ``credentials`` (the host policy's headers) go only to URLs ``is_own`` accepts, on the
    first request and on every hop; a hop elsewhere is re-issued without them and leaves a
    note (:func:`redirect_notes`). Raises InvalidResponseError after too many redirects or
    for a body over ``max_bytes`` or cut off.
    """

    def hop(
        method: str, target: httpx.URL, params: Mapping[str, Any] | None, body: bytes | None
    ) -> httpx.Request:
        sent = {**credentials, **headers} if is_own(target) else dict(headers)
        return http.build_request(method, target, params=params, headers=sent, content=body)

    request = hop(method, httpx.URL(url), params, content)
    notes: list[str] = []
    for _ in range(MAX_REDIRECTS + 1):
        response = await http.send(request, follow_redirects=False, stream=True)
        following = response.next_request
        if following is None:
            if notes:
                response.extensions = {**response.extensions, _NOTES: tuple(notes)}
            return await read_capped(response, limit=max_bytes, name=name, sink=sink)
        await response.aclose()
        if credentials and not is_own(following.url) and not notes:
            notes.append(
                f"{name} redirected the request to {following.url.scheme}://"
                f"{following.url.netloc.decode('ascii')}; it was re-sent there without "
                f"{name}'s credentials."
            )
        request = hop(following.method, following.url, None, None)
    raise InvalidResponseError(
        f"{name} redirected the request more than {MAX_REDIRECTS} times",
        hints=["Check the configured URL of the host: it should not redirect."],
    )
