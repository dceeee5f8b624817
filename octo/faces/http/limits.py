"""Limits that keep ``octo serve --http`` answering under a flood of connections.

A connection must send its first request's headers within ``header_timeout`` seconds, or it
is closed. At most ``max_connections`` are open at once: past the cap, the oldest connection
still waiting for its headers is closed to make room (a flood of half-sent requests then
churns through itself while clients that send a request at once are served); only when every
open connection is busy with a request is the new one refused. Closing is silent: one log
line at most every ten seconds counts what was closed, never a traceback per connection.

MCP sessions are capped too (``max_sessions``): at the cap a new client is not refused as the
SDK would do; the session idle the longest is ended to make room (:func:`bound_sessions`).
Only when every session has a request in flight is a new one refused. A session may have
``max_in_flight`` requests (POSTs) being answered at once: past it, a new one is refused with
429 and Retry-After (:func:`busy_response`) until an answer has gone.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter
from collections import OrderedDict
from dataclasses import dataclass
from dataclasses import replace
from typing import Any
from typing import cast

from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.responses import PlainTextResponse
from starlette.responses import Response
from starlette.types import Receive
from starlette.types import Scope
from starlette.types import Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from octo.faces.http.access import ConnectionLimits

_log = logging.getLogger("octo.http")
#: Seconds between two log lines about closed connections.
_LOG_EVERY = 10.0
#: asyncio's words for an accept that failed for want of descriptors or memory.
_ACCEPT_FAILED = "socket.accept() out of system resource"
#: The open-files limit octo asks for when the hard limit allows it.
OPEN_FILES_WANTED = 65536
#: Seconds a request refused at its session's bound is told to wait (Retry-After).
RETRY_AFTER_SECONDS = 1
_SESSION_HEADER = MCP_SESSION_ID_HEADER.encode("ascii")
#: The ASGI scope extension that drops the request's connection (set by the guarded protocol).
_DROP = "octo.drop_connection"


def drop_connection(scope: Scope) -> None:
    """Close the connection of the request ``scope`` belongs to at once, without finishing its
    response: a stream ended by the limits, whose client may not be reading its end."""
    drop = scope.get("extensions", {}).get(_DROP)
    if drop is not None:
        drop()


def busy_response(max_in_flight: int) -> Response:
    """429 with Retry-After: the session holds its bound of requests in flight (or of answers
    its client has not read)."""
    return PlainTextResponse(
        f"octo: this MCP session is at its bound ({max_in_flight} requests in flight, or "
        "answers its client has not read yet); retry once an answer has arrived\n",
        status_code=429,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


@dataclass
class _Counted:
    """Events of one kind since the last log line about them (one line every ten seconds)."""

    what: str
    count: int = 0
    logged_at: float = -_LOG_EVERY

    def note(self) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.logged_at >= _LOG_EVERY:
            _log.warning("octo: %d %s", self.count, self.what)
            self.count, self.logged_at = 0, now


def open_files_limit() -> int | None:
    """The soft limit of open files (``ulimit -n``) raised towards the hard one, at most to
    :data:`OPEN_FILES_WANTED`, and logged; the limit now in force (None: unknown here)."""
    try:
        import resource
    except ImportError:  # not POSIX
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    unlimited = resource.RLIM_INFINITY
    wanted = OPEN_FILES_WANTED if hard == unlimited else min(hard, OPEN_FILES_WANTED)
    if soft == unlimited or soft >= wanted:
        return OPEN_FILES_WANTED if soft == unlimited else soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ValueError, OSError) as exc:
        _log.warning("octo: the open-files limit stays at %d (raising it failed: %s)", soft, exc)
        return soft
    _log.info(
        "octo: open-files limit raised from %d to %d (the hard limit allows %s)", soft, wanted, hard
    )
    return wanted


def within_open_files(limits: ConnectionLimits, open_files: int | None) -> ConnectionLimits:
    """``limits`` with the connection cap the ``open_files`` limit can hold: a quarter of the
    descriptors (at least 64) stays for rg, language servers, files read, Redis and, half of
    it, for the connections accepted in one go before the cap closes any."""
    if open_files is None:
        return limits
    reserved = max(64, open_files // 4)
    room = max(16, open_files - reserved)
    limits = replace(limits, backlog=min(limits.backlog, reserved // 2))
    if limits.max_connections <= room:
        return limits
    _log.warning(
        "octo: %d open files allowed (ulimit -n): at most %d HTTP connections, not %d "
        "(OCTO_HTTP_MAX_CONNECTIONS); raise the limit for more",
        open_files,
        room,
        limits.max_connections,
    )
    return replace(limits, max_connections=room)


def quiet_accept_failures(loop: asyncio.AbstractEventLoop) -> None:
    """Make ``loop`` log a failed accept (out of descriptors or memory: asyncio retries a
    second later) as one counted line every ten seconds, not a traceback each."""
    failed = _Counted("HTTP connection(s) not accepted: out of open files or memory (ulimit -n)")
    previous = loop.get_exception_handler()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == _ACCEPT_FAILED:
            failed.note()
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handle)


def guarded_protocol(limits: ConnectionLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol under ``limits`` (one class per server: its own bookkeeping)."""
    # Connections that have not sent a request yet, oldest first.
    waiting: OrderedDict[H11Protocol, asyncio.TimerHandle] = OrderedDict()
    closed = _Counted("HTTP connection(s) closed at the connection cap or the header timeout")

    def close(protocol: H11Protocol) -> None:
        handle = waiting.pop(protocol, None)
        if handle is not None:
            handle.cancel()
        protocol.transport.abort()
        closed.note()

    class GuardedH11Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                oldest = next(iter(waiting), None)
                close(oldest if oldest is not None else self)
                if oldest is None:
                    return
            waiting[self] = self.loop.call_later(limits.header_timeout, self._headers_late)

        def _headers_late(self) -> None:
            if self in waiting:
                close(self)

        def handle_events(self) -> None:
            super().handle_events()
            if self.cycle is not None:
                if self in waiting:
                    waiting.pop(self).cancel()  # its first request's headers arrived
                # The request's task has not run yet: the scope it gets can still change.
                extensions = cast(
                    "dict[str, object]", self.cycle.scope.setdefault("extensions", {})
                )
                extensions[_DROP] = self._drop

        def _drop(self) -> None:
            if self.cycle is not None:
                self.cycle.disconnected = True  # uvicorn then logs no unfinished response
            self.transport.abort()

        def connection_lost(self, exc: Exception | None) -> None:
            handle = waiting.pop(self, None)
            if handle is not None:
                handle.cancel()
            super().connection_lost(exc)

    return GuardedH11Protocol


class _BoundedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager, ending the longest idle session at the session cap and
    refusing a session's request past its bound of requests in flight."""

    max_in_flight: int
    in_flight: Counter[str]

    async def _handle_stateful_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        session = next(
            (v.decode("latin-1") for k, v in scope["headers"] if k == _SESSION_HEADER), None
        )
        if session is None or scope["method"] != "POST":
            await super()._handle_stateful_request(scope, receive, send)
            return
        if self.in_flight[session] >= self.max_in_flight:
            await busy_response(self.max_in_flight)(scope, receive, send)
            return
        self.in_flight[session] += 1
        try:
            await super()._handle_stateful_request(scope, receive, send)
        finally:
            self.in_flight[session] -= 1
            if not self.in_flight[session]:
                del self.in_flight[session]

    def _admit_session(
        self, requestor: AuthorizationContext | None
    ) -> StreamableHTTPServerTransport | None:
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            self._evict_longest_idle()
        return super()._admit_session(requestor)

    def _evict_longest_idle(self) -> None:
        # A transport's idle deadline is infinite while a request (an open GET stream too)
        # is in flight, else the end of its idle time: the smallest one has idled longest.
        idle = [
            (transport.idle_scope.deadline, session_id)
            for session_id, transport in self._server_instances.items()
            if transport.idle_scope is not None and math.isfinite(transport.idle_scope.deadline)
        ]
        if not idle:
            return
        _, session_id = min(idle)
        transport = self._server_instances.pop(session_id)
        self._session_owners.pop(session_id, None)
        # Its server task ends at once and terminates the transport (the SDK's own path).
        assert transport.idle_scope is not None
        transport.idle_scope.cancel()
        _log.info("octo: MCP session cap reached; the session idle the longest was ended")


def bound_sessions(manager: StreamableHTTPSessionManager, max_in_flight: int) -> None:
    """Make ``manager`` (built by the SDK's ``streamable_http_app``) end the session idle the
    longest when a new client comes at its session cap, instead of refusing the client, and
    refuse a session's request past ``max_in_flight`` being answered (429)."""
    manager.__class__ = _BoundedSessionManager
    assert isinstance(manager, _BoundedSessionManager)
    manager.max_in_flight = max_in_flight
    manager.in_flight = Counter()
