"""The legacy HTTP+SSE transport (``octo serve --http --sse``) for MCP clients that speak only
it: a ``GET /sse`` event stream and ``POST /messages/`` beside the streamable ``/mcp``.

Both endpoints are the mcp SDK's own :class:`~mcp.server.sse.SseServerTransport`, given the
same Host / Origin settings as ``/mcp``; the app's bearer-token middleware has checked the
token, and the SDK's ``RequireAuthMiddleware`` refuses a request without it. Every SSE
connection is served by the one gateway the streamable endpoint's lifespan opened.

Each stream is a session with its bounds (:mod:`octo.faces.session_flow`): while it holds its
requests in flight, or answers its client has not read, a new message is refused with 429
and Retry-After. Streams count against the caps: at most the session cap, and half the
connection cap (room is left for other requests); at the cap the stream idle the longest is
ended for a new one, and a stream whose client posted nothing for the session idle timeout
ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any
from urllib.parse import parse_qs
from uuid import UUID

import anyio
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
from octo.faces.http.limits import busy_response
from octo.faces.http.limits import drop_connection
from octo.faces.http.operations import Operations
from octo.faces.library import Gateway
from octo.faces.session_flow import CountedReadStream
from octo.faces.session_flow import CountedWriteStream
from octo.faces.session_flow import FlowLimits
from octo.faces.session_flow import SessionFlow
from octo.faces.session_flow import UnreadTotal

#: Where the event stream opens, and where the client posts its messages.
SSE_PATH = "/sse"
MESSAGE_PATH = "/messages/"


@dataclass
class _Stream:
    """One open event stream: its session's flow, and the scope its idle time ends."""

    flow: SessionFlow
    idle: anyio.CancelScope = field(default_factory=anyio.CancelScope)


class _Streams:
    """The open event streams by session id, within their cap and idle time."""

    def __init__(self, cap: int, idle_seconds: float) -> None:
        self.cap = cap
        self.idle_seconds = idle_seconds
        self.open: dict[UUID, _Stream] = {}

    def make_room(self) -> None:
        """Past the cap, end the stream idle the longest (never the newest: just touched)."""
        if len(self.open) > self.cap:
            longest = min(self.open.values(), key=lambda stream: stream.idle.deadline)
            longest.idle.cancel()

    def touched(self, stream: _Stream) -> None:
        """The client did something: its idle time starts again."""
        stream.idle.deadline = anyio.current_time() + self.idle_seconds


def sse_routes(
    server: Server[Gateway], operations: Operations, access: HttpAccess, flow: FlowLimits
) -> list[BaseRoute]:
    """The SSE transport's two routes, behind ``access``'s token and Host / Origin checks,
    each stream a session bounded by ``flow``."""
    transport = SseServerTransport(MESSAGE_PATH, security_settings=access.transport_security())
    limits = access.limits
    streams = _Streams(
        max(1, min(limits.max_sessions, limits.max_connections // 2)),
        limits.session_idle_timeout,
    )
    unread = UnreadTotal.of(flow)

    async def connect(scope: Scope, receive: Receive, send: Send) -> None:
        gateway = operations.gateway
        if gateway is None:  # the server is starting or stopping
            await PlainTextResponse("octo is not ready\n", status_code=503)(scope, receive, send)
            return
        stream = _Stream(SessionFlow(flow, unread))
        streams.touched(stream)
        with stream.idle:
            try:
                async with transport.connect_sse(scope, receive, send) as (read, write):
                    # The SDK has just registered this stream's session: the newest one.
                    session_id = next(reversed(transport._read_stream_writers))
                    streams.open[session_id] = stream
                    streams.make_room()
                    try:
                        await serve_dual_era_loop(
                            server,
                            CountedReadStream(read, stream.flow),
                            CountedWriteStream(write, stream.flow),
                            lifespan_state=gateway,
                            init_options=server.create_initialization_options(),
                        )
                    finally:
                        del streams.open[session_id]
            except ValueError:
                # The SDK has answered a refused Host or Origin itself; nothing more to send.
                return
        if stream.idle.cancelled_caught:
            # Ended by the limits: its client may not read the stream's end, so the
            # connection is dropped rather than held to send it.
            drop_connection(scope)

    async def stream(request: Request) -> Response:
        await connect(request.scope, request.receive, request._send)
        return _Sent()

    async def post_message(scope: Scope, receive: Receive, send: Send) -> None:
        found = _stream_of(scope, streams)
        if found is None:  # the SDK answers what is wrong with it
            await transport.handle_post_message(scope, receive, send)
            return
        streams.touched(found)
        if not found.flow.open:
            await busy_response(found.flow.limits.max_in_flight)(scope, receive, send)
            return
        async with found.flow.arrival():
            await transport.handle_post_message(scope, receive, send)

    endpoint: Any = stream
    messages: Any = post_message
    if access.token is not None:
        endpoint = RequireAuthMiddleware(connect, [], None)
        messages = RequireAuthMiddleware(messages, [], None)
    return [Route(SSE_PATH, endpoint, methods=["GET"]), Mount(MESSAGE_PATH, app=messages)]


def _stream_of(scope: Scope, streams: _Streams) -> _Stream | None:
    """The open stream a POST names in its ``session_id``, if any."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    try:
        return streams.open.get(UUID(hex=query.get("session_id", [""])[0]))
    except ValueError:
        return None


class _Sent(Response):
    """The response of a stream the transport has already answered: sends nothing more."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        return None
