"""The stdio wire: an MCP client's pipes, read and written on the event loop.

The SDK's stdio transport reads and writes through worker threads: one hop for every
message in and two for every message out (write, then flush), about half a millisecond a
call on two cores. An MCP client starts octo with pipes (or a socket pair) for stdin and
stdout; those octo reads and writes on the event loop instead, without a thread.

It claims the standard descriptors as the SDK does: while serving, fd 0 reads the null
device and fd 1 writes to stderr, so a stray print or a child's output never reaches the
wire; the wire lives on private descriptors that children do not inherit. On a terminal or
a file (octo started by hand), and on Windows, the SDK's transport serves as before.

A client that does not read its answers is not read either: while the session holds its
bound of requests in flight or of unread answer bytes (:mod:`octo.faces.session_flow`), the
next message waits on the pipe, so the server's memory stays bounded whatever the client does.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import AsyncIterator
from collections.abc import Iterator
from contextlib import asynccontextmanager
from contextlib import contextmanager

import anyio
import mcp_types as types
from anyio.abc import AsyncResource
from anyio.streams.memory import MemoryObjectReceiveStream
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.streamable_http_manager import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from octo.faces.session_flow import FlowLimits
from octo.faces.session_flow import SessionFlow

#: The longest message octo reads from the wire: the same cap as an HTTP request's body.
MAX_MESSAGE_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE

_READ_CHUNK = 1 << 16

Wire = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], "WireWriter"]


class MessageTooLarge(ValueError):
    """A line on the wire longer than :data:`MAX_MESSAGE_BYTES` (skipped, not read)."""


def stdio_is_piped() -> bool:
    """Whether stdin and stdout are pipes or sockets, which :func:`stdio_wire` serves."""
    return sys.platform != "win32" and _is_pipe(0) and _is_pipe(1)


@asynccontextmanager
async def stdio_wire(limits: FlowLimits | None = None) -> AsyncIterator[Wire]:
    """The server's read and write streams over this process's piped stdin and stdout, the
    session bounded by ``limits`` (by default :class:`FlowLimits`'s)."""
    flow = SessionFlow(limits or FlowLimits())
    with (
        _claimed(0, divert_to=os.open(os.devnull, os.O_RDONLY)) as wire_in,
        _claimed(1, divert_to=_stderr_or_null()) as wire_out,
    ):
        to_server, from_wire = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        async with anyio.create_task_group() as tg:
            tg.start_soon(_read_messages, wire_in, to_server, flow)
            yield from_wire, WireWriter(wire_out, flow)


def _stderr_or_null() -> int:
    try:
        return os.dup(2)
    except OSError:  # no stderr: stray output goes nowhere
        return os.open(os.devnull, os.O_WRONLY)


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@contextmanager
def _claimed(fd: int, divert_to: int) -> Iterator[int]:
    """``fd``'s wire on a private non-blocking descriptor; meanwhile ``fd`` itself is a copy
    of ``divert_to`` (closed here), and it is pointed back at the wire afterwards."""
    import fcntl  # POSIX only: stdio_is_piped() keeps Windows away

    try:
        wire = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        os.dup2(divert_to, fd)
    finally:
        os.close(divert_to)
    try:
        os.set_blocking(wire, False)
        try:
            yield wire
        finally:
            os.set_blocking(wire, True)
            os.dup2(wire, fd)
    finally:
        os.close(wire)


async def _read_messages(
    wire: int, to_server: MemoryObjectSendStream[SessionMessage | Exception], flow: SessionFlow
) -> None:
    """Parse each line of the wire into a message for the server, until end of file; each
    waits until the session is open to it (the lines after it wait on the pipe).

    A line that is not a JSON-RPC message, or is longer than :data:`MAX_MESSAGE_BYTES`,
    reaches the server as an exception, as on the SDK's transport, and reading goes on.
    """
    async with to_server:
        async for line in _lines(wire):
            item: SessionMessage | Exception
            if isinstance(line, MessageTooLarge):
                item = line
            else:
                try:
                    item = SessionMessage(
                        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    )
                except ValidationError as exc:
                    item = exc
            await flow.until_open()
            if isinstance(item, SessionMessage):
                flow.came_in(item.message)
            await to_server.send(item)


async def _lines(wire: int) -> AsyncIterator[bytes | MessageTooLarge]:
    """The lines of ``wire`` as they arrive; an over-long line once as MessageTooLarge."""
    line = _Line()
    while True:
        await anyio.wait_readable(wire)
        try:
            chunk = os.read(wire, _READ_CHUNK)
        except BlockingIOError:
            continue
        if not chunk:
            if line.pending:
                yield bytes(line.pending)
            return
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if (too_large := line.add(chunk[start:end])) is not None:
                yield too_large
            elif not line.skipping:
                yield bytes(line.pending)
            line = _Line()
            start = end + 1
        if (too_large := line.add(chunk[start:])) is not None:
            yield too_large


class _Line:
    """The line being read: its bytes so far, until it proves too long to keep."""

    def __init__(self) -> None:
        self.pending = bytearray()
        self.skipping = False

    def add(self, piece: bytes) -> MessageTooLarge | None:
        """Add ``piece``; the error once, when the line grows past the cap."""
        if self.skipping:
            return None
        if len(self.pending) + len(piece) <= MAX_MESSAGE_BYTES:
            self.pending += piece
            return None
        self.pending.clear()
        self.skipping = True
        return MessageTooLarge(f"a message on stdin is over {MAX_MESSAGE_BYTES} bytes")


class WireWriter(AsyncResource):
    """The server's write stream: each message written to the wire as one line, waiting
    while the pipe is full; its bytes count as unread in the session's flow until written."""

    def __init__(self, wire: int, flow: SessionFlow) -> None:
        self._wire = wire
        self._flow = flow
        self._turn = anyio.Lock()
        self._closed = False

    async def send(self, item: SessionMessage, /) -> None:
        """Write ``item``; BrokenResourceError once the client closed its end."""
        if self._closed:
            raise anyio.ClosedResourceError
        self._flow.went_out(item.message)
        data = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
        async with self._flow.unread(len(data)), self._turn:
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(self._wire, view) :]
                except BlockingIOError:
                    await anyio.wait_writable(self._wire)
                except OSError as exc:  # the client closed its end of the pipe
                    raise anyio.BrokenResourceError from exc

    async def aclose(self) -> None:
        self._closed = True
