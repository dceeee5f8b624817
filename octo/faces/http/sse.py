"""The legacy HTTP+SSE transport (``octo serve --http --sse``) for MCP clients that speak only
it: a ``GET /sse`` event stream and ``POST /messages/`` beside the streamable ``/mcp``.

Both endpoints are the mcp SDK's own :class:`~mcp.server.sse.SseServerTransport`, given the
same Host / Origin settings as ``/mcp``; the app's bearer-token middleware has checked the
token, and the SDK's ``RequireAuthMiddleware`` refuses a request without it. Every SSE
connection is served by the one gateway the streamable endpoint's lifespan opened.
"""

from __future__ import annotations

from typing import Any

from mcp.server import Server
from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware
from mcp.server.runner import serve_dual_era_loop
from mcp.server.sse import SseServerTransport
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.routing import Mount
from starlette.routing import Route
from starlette.types import Receive
from starlette.types import Scope
from starlette.types import Send

from octo.faces.http.access import HttpAccess
from octo.faces.http.operations import Operations
from octo.faces.library import Gateway

#: Where the event stream opens, and where the client posts its messages.
SSE_PATH = "/sse"
MESSAGE_PATH = "/messages/"


def sse_routes(
    server: Server[Gateway], operations: Operations, access: HttpAccess
) -> list[BaseRoute]:
    """The SSE transport's two routes, behind ``access``'s token and Host / Origin checks."""
    transport = SseServerTransport(MESSAGE_PATH, security_settings=access.transport_security())

    async def connect(scope: Scope, receive: Receive, send: Send) -> None:
        gateway = operations.gateway
        if gateway is None:  # the server is starting or stopping
            await PlainTextResponse("octo is not ready\n", status_code=503)(scope, receive, send)
            return
        try:
            async with transport.connect_sse(scope, receive, send) as (read, write):
                await serve_dual_era_loop(
                    server,
                    read,
                    write,
                    lifespan_state=gateway,
                    init_options=server.create_initialization_options(),
                )
        except ValueError:
            # The SDK has answered a refused Host or Origin itself; nothing more to send.
            return

    async def stream(request: Request) -> Response:
        await connect(request.scope, request.receive, request._send)
        return _Sent()

    endpoint: Any = stream
    messages: Any = transport.handle_post_message
    if access.token is not None:
        endpoint = RequireAuthMiddleware(connect, [], None)
        messages = RequireAuthMiddleware(messages, [], None)
    return [Route(SSE_PATH, endpoint, methods=["GET"]), Mount(MESSAGE_PATH, app=messages)]


class _Sent(Response):
    """The response of a stream the transport has already answered: sends nothing more."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        return None
