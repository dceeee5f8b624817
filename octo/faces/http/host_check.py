"""The HTTP server's answer to a request for a host name it does not serve: 421 with a body,
and a log line, that name the ``--allow-host`` option which allows it.

The SDK's transport security refuses such a request too, with a bare "Invalid Host header";
this check runs first, against the same names (:class:`~octo.faces.http.access.HttpAccess`),
so a client reaching the server by the machine's address learns what to change.
"""

from __future__ import annotations

import logging

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp
from starlette.types import Receive
from starlette.types import Scope
from starlette.types import Send

logger = logging.getLogger("octo.server")

#: Paths the SDK's Host check guards; the probes (/healthz, /readyz) answer any name.
MCP_PATHS = ("/mcp", "/sse", "/messages")


def host_name(header: str) -> str:
    """The name part of a Host header (``[::1]:8000`` -> ``[::1]``, ``a:80`` -> ``a``)."""
    name, colon, port = header.rpartition(":")
    if colon and port.isdigit() and (not name.startswith("[") or name.endswith("]")):
        return name
    return header


def refusal(header: str | None, allowed: tuple[str, ...]) -> str | None:
    """Why a request with Host ``header`` is refused, or None when it is allowed."""
    if header and host_name(header) in allowed:
        return None
    shown = host_name(header) if header else "(none)"
    return (
        f"octo serve does not answer to the host name {shown!r} (it allows "
        f"{', '.join(allowed)}): start it with --allow-host {shown} to let clients reach it "
        "by that name"
    )


class HostCheck:
    """ASGI middleware: requests to the MCP paths for a host not in ``allowed`` get 421."""

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...]) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and str(scope["path"]).startswith(MCP_PATHS):
            why = refusal(Headers(scope=scope).get("host"), self.allowed)
            if why is not None:
                logger.warning("421 for %s: %s", scope["path"], why)
                await PlainTextResponse(why + "\n", status_code=421)(scope, receive, send)
                return
        await self.app(scope, receive, send)
