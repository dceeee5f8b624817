"""Limits that keep ``octo serve --http`` answering under a flood of connections.

A connection must send its first request's headers within ``header_timeout`` seconds, or it
is closed. At most ``max_connections`` are open at once: past the cap, the oldest connection
still waiting for its headers is closed to make room (a flood of half-sent requests then
churns through itself while clients that send a request at once are served); only when every
open connection is busy with a request is the new one refused. Closing is silent: one log
line at most every ten seconds counts what was closed, never a traceback per connection.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass

from uvicorn.protocols.http.h11_impl import H11Protocol

from octo.faces.http.access import ConnectionLimits

_log = logging.getLogger("octo.http")
#: Seconds between two log lines about closed connections.
_LOG_EVERY = 10.0


@dataclass
class _Closed:
    """Connections closed by the limits since the last log line."""

    count: int = 0
    logged_at: float = 0.0

    def note(self) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.logged_at >= _LOG_EVERY:
            _log.warning(
                "octo: %d HTTP connection(s) closed at the connection cap or the header timeout",
                self.count,
            )
            self.count, self.logged_at = 0, now


def guarded_protocol(limits: ConnectionLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol under ``limits`` (one class per server: its own bookkeeping)."""
    # Connections that have not sent a request yet, oldest first.
    waiting: OrderedDict[H11Protocol, asyncio.TimerHandle] = OrderedDict()
    closed = _Closed()

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
            if self.cycle is not None and self in waiting:
                waiting.pop(self).cancel()  # its first request's headers arrived

        def connection_lost(self, exc: Exception | None) -> None:
            handle = waiting.pop(self, None)
            if handle is not None:
                handle.cancel()
            super().connection_lost(exc)

    return GuardedH11Protocol
