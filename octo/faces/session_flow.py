"""How much one MCP session may hold: its requests in flight and the bytes of its answers the
client has not taken yet.

A client that sends requests and never reads the answers made the server hold every answer,
and the task that made it, without end (1.8 GB in a minute over stdio). Each session now has
a :class:`SessionFlow`: while it holds ``max_in_flight`` requests, or ``max_unread_bytes`` of
answers wait for the client, the session is closed to new requests (the stdio wire stops
reading; over HTTP a new request is refused with 429 and Retry-After) until an answer leaves.

A session whose requests wait for the client's own answer (roots/list) is let past the bound,
to twice it, so that answer can still come in: otherwise both ends would wait for each other.
The sessions of one HTTP server also share a bound on their unread bytes together
(:class:`UnreadTotal`), so many sessions that do not read cannot add up past it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from collections.abc import Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Self

import anyio
from anyio.abc import AsyncResource
from mcp.shared._stream_protocols import ReadStream
from mcp.shared._stream_protocols import WriteStream
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError
from mcp_types import JSONRPCMessage
from mcp_types import JSONRPCNotification
from mcp_types import JSONRPCRequest
from mcp_types import JSONRPCResponse
from mcp_types import RequestId

from octo.core.config import env_bytes
from octo.core.config import env_int

_CANCELLED = "notifications/cancelled"


@dataclass(frozen=True)
class FlowLimits:
    """The bounds of one session (``OCTO_SESSION_MAX_IN_FLIGHT``,
    ``OCTO_SESSION_MAX_UNREAD_BYTES``)."""

    #: Requests of one session being answered at once.
    max_in_flight: int = 16
    #: Bytes of answers waiting for a client that does not read them.
    max_unread_bytes: int = 8 * 1024 * 1024

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> FlowLimits:
        """The limits the environment sets, else the defaults."""
        return cls(
            max_in_flight=env_int(env, "OCTO_SESSION_MAX_IN_FLIGHT", cls.max_in_flight, 1, 10_000),
            max_unread_bytes=env_bytes(env, "OCTO_SESSION_MAX_UNREAD_BYTES", cls.max_unread_bytes),
        )


@dataclass
class UnreadTotal:
    """The unread bytes of every session of a server together, and their bound."""

    cap: int
    bytes: int = 0

    @classmethod
    def of(cls, limits: FlowLimits) -> UnreadTotal:
        """The bound of a server's sessions: sixteen sessions' worth."""
        return cls(cap=16 * limits.max_unread_bytes)


class SessionFlow:
    """One session's requests in flight, the server's requests waiting for the client's
    answer, and the bytes of messages sent but not yet taken by the client (counted into
    ``total`` too, when the session shares one)."""

    def __init__(self, limits: FlowLimits, total: UnreadTotal | None = None) -> None:
        self.limits = limits
        self._total = total
        #: By id: a client may reuse one (each request is still answered).
        self._in_flight: Counter[RequestId] = Counter()
        self._asked: set[RequestId] = set()
        #: Requests on their way in (an HTTP POST not yet handed to the server).
        self.arriving = 0
        self.unread_bytes = 0
        self._changed = anyio.Event()

    @property
    def in_flight(self) -> int:
        """Requests taken and not yet answered (or cancelled by the client)."""
        return self._in_flight.total() + self.arriving

    @property
    def open(self) -> bool:
        """Whether the session may take another request now."""
        bound = self.limits.max_in_flight * (2 if self._asked else 1)
        if self._total is not None and self._total.bytes >= self._total.cap:
            return False
        return self.unread_bytes < self.limits.max_unread_bytes and self.in_flight < bound

    async def until_open(self) -> None:
        """Wait until the session may take another request."""
        while not self.open:
            await self._changed.wait()

    def came_in(self, message: JSONRPCMessage) -> None:
        """Count a message of the client: a request is in flight, a cancellation ends one,
        an answer ends the server's own request."""
        if isinstance(message, JSONRPCRequest):
            self._in_flight[coerce_request_id(message.id)] += 1
        elif isinstance(message, JSONRPCNotification):
            if message.method == _CANCELLED:
                self._answered(cancelled_request_id_from_params(message.params))
        elif message.id is not None:
            self._asked.discard(coerce_request_id(message.id))
            self._note()

    def went_out(self, message: JSONRPCMessage) -> None:
        """Count a message of the server: an answer ends a request in flight, a request of
        its own waits for the client's answer."""
        if isinstance(message, JSONRPCResponse | JSONRPCError):
            self._answered(message.id)
        elif isinstance(message, JSONRPCRequest):
            self._asked.add(coerce_request_id(message.id))
        elif message.method == _CANCELLED:
            asked = cancelled_request_id_from_params(message.params)
            if asked is not None:
                self._asked.discard(coerce_request_id(asked))

    @asynccontextmanager
    async def unread(self, size: int) -> AsyncIterator[None]:
        """``size`` bytes count as unread for the block (while they are being written)."""
        self._add_unread(size)
        try:
            yield
        finally:
            self._add_unread(-size)

    def _add_unread(self, size: int) -> None:
        self.unread_bytes += size
        if self._total is not None:
            self._total.bytes += size
        self._note()

    @asynccontextmanager
    async def arrival(self) -> AsyncIterator[None]:
        """A request on its way in counts as in flight for the block."""
        self.arriving += 1
        try:
            yield
        finally:
            self.arriving -= 1
            self._note()

    def _answered(self, request_id: RequestId | None) -> None:
        """One request of ``request_id`` is no longer in flight (answered or cancelled)."""
        key = coerce_request_id(request_id) if request_id is not None else None
        if key is not None and self._in_flight[key] > 0:
            self._in_flight[key] -= 1
            if not self._in_flight[key]:
                del self._in_flight[key]
            self._note()

    def _note(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()


class CountedReadStream(AsyncResource):
    """A session's read stream that counts each message of the client into its flow (the
    sender's context, which the SDK reads as ``last_context``, passes through)."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], flow: SessionFlow) -> None:
        self._inner = inner
        self._flow = flow
        self.last_context = getattr(inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        item = await self._inner.receive()
        self.last_context = getattr(self._inner, "last_context", None)
        if isinstance(item, SessionMessage):
            self._flow.came_in(item.message)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class CountedWriteStream(AsyncResource):
    """A session's write stream that counts each message of the server into its flow; the
    bytes of a message are unread until the client's stream has taken it."""

    def __init__(self, inner: WriteStream[SessionMessage], flow: SessionFlow) -> None:
        self._inner = inner
        self._flow = flow

    async def send(self, item: SessionMessage, /) -> None:
        self._flow.went_out(item.message)
        size = len(item.message.model_dump_json(by_alias=True, exclude_unset=True))
        async with self._flow.unread(size):
            await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()
