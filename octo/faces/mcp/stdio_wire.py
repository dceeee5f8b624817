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

import json
import os
import stat
import sys
from collections import Counter
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import asynccontextmanager
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any
from typing import TypeAlias

import anyio
from anyio.abc import AsyncResource
from anyio.streams.memory import MemoryObjectReceiveStream
from anyio.streams.memory import MemoryObjectSendStream

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

    from octo.faces.mcp.tools_snapshot import Handshake
    from octo.faces.session_flow import FlowLimits
    from octo.faces.session_flow import SessionFlow

#: The longest message octo reads from the wire: the same cap as an HTTP request's body
#: (the SDK's DEFAULT_MAX_REQUEST_BODY_SIZE; a test holds them equal).
MAX_MESSAGE_BYTES = 4 * 1024 * 1024

#: Messages the wire holds for the server while the SDK is imported; past them it waits.
MAX_EARLY_MESSAGES = 16

_READ_CHUNK = 1 << 16

Wire: TypeAlias = "tuple[MemoryObjectReceiveStream[SessionMessage | Exception], WireWriter]"
RequestId: TypeAlias = int | str
Line: TypeAlias = "bytes | MessageTooLarge"


class MessageTooLarge(ValueError):
    """A line on the wire longer than :data:`MAX_MESSAGE_BYTES` (skipped, not read)."""


def stdio_is_piped() -> bool:
    """Whether stdin and stdout are pipes or sockets, which :func:`stdio_wire` serves."""
    return sys.platform != "win32" and _is_pipe(0) and _is_pipe(1)


@dataclass(frozen=True)
class Opening:
    """What the wire answers by itself while the SDK is imported: ``initialize`` and then
    ``tools/list``, from the snapshot, until ``ready`` is set. The SDK's server then takes
    every message in order, those already answered included (so its session is the same),
    and its own answers to those are not written again."""

    handshake: Handshake
    ready: anyio.Event


@asynccontextmanager
async def stdio_wire(
    limits: FlowLimits | Callable[[], FlowLimits] | None = None, *, opening: Opening | None = None
) -> AsyncIterator[Wire]:
    """The server's read and write streams over this process's piped stdin and stdout, the
    session bounded by ``limits`` (by default :class:`FlowLimits`'s; a function is called
    once the SDK is imported). With ``opening``, the wire first answers the handshake itself
    and the streams open once ``opening.ready`` is set."""
    with (
        _claimed(0, divert_to=os.open(os.devnull, os.O_RDONLY)) as wire_in,
        _claimed(1, divert_to=_stderr_or_null()) as wire_out,
    ):
        lines_in, lines = anyio.create_memory_object_stream[Line](0)
        async with anyio.create_task_group() as tg:
            tg.start_soon(_read_lines, wire_in, lines_in)
            held: list[Line] = []
            answered: Counter[RequestId] = Counter()
            if opening is not None:
                await _answer_early(opening, lines, wire_out, held, answered)
            from mcp.shared.message import SessionMessage

            from octo.faces.session_flow import FlowLimits
            from octo.faces.session_flow import SessionFlow

            flow = SessionFlow((limits() if callable(limits) else limits) or FlowLimits())
            to_server, from_wire = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            tg.start_soon(_read_messages, held, lines, to_server, flow)
            yield from_wire, WireWriter(wire_out, flow, answered)


async def _answer_early(
    opening: Opening,
    lines: MemoryObjectReceiveStream[Line],
    wire_out: int,
    held: list[Line],
    answered: Counter[RequestId],
) -> None:
    """Answer what :class:`_EarlyAnswers` can, holding every line read in ``held`` and
    counting each answered request in ``answered``, until ``opening.ready``."""
    early = _EarlyAnswers(opening.handshake)
    async with anyio.create_task_group() as tg:

        async def stop_when_ready() -> None:
            await opening.ready.wait()
            tg.cancel_scope.cancel()

        tg.start_soon(stop_when_ready)
        while not early.done and len(held) < MAX_EARLY_MESSAGES:
            try:
                line = await lines.receive()
            except anyio.EndOfStream:
                break
            held.append(line)
            if (reply := early.answer(line)) is not None:
                request_id, data = reply
                answered[request_id] += 1
                try:
                    with anyio.CancelScope(shield=True):  # a line is written whole
                        await _write_all(wire_out, data)
                except anyio.BrokenResourceError:  # the client left: the SDK meets its end
                    break
        await opening.ready.wait()


class _EarlyAnswers:
    """The answers the wire gives before the SDK's server runs: the SDK's own results for an
    ``initialize`` opening a session and for ``tools/list`` requests after it (with only
    ``notifications/initialized`` between them), from the snapshot. The first message of
    any other kind, or of a form the SDK might read otherwise, ends them: it and everything
    after it wait for the SDK."""

    def __init__(self, handshake: Handshake) -> None:
        self._handshake = handshake
        self._initialized = False
        self.done = False

    def answer(self, line: Line) -> tuple[RequestId, bytes] | None:
        """The id and answer line for ``line``, or None when the SDK's server answers it."""
        message = _json_object(line)
        if message is not None:
            if not self._initialized:
                if _is_request(message, "initialize") and _is_initialize(message.get("params")):
                    self._initialized = True
                    version = message["params"]["protocolVersion"]
                    return _reply(message["id"], self._handshake.initialize_result(version))
            elif _is_notification(message, "notifications/initialized"):
                return None
            elif _is_request(message, "tools/list") and message.get("params", {}) == {}:
                return _reply(message["id"], self._handshake.tools_result())
        self.done = True
        return None


def _json_object(line: Line) -> dict[str, Any] | None:
    if isinstance(line, MessageTooLarge):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _is_request(message: dict[str, Any], method: str) -> bool:
    request_id = message.get("id")
    return (
        message.keys() <= {"jsonrpc", "id", "method", "params"}
        and message.get("jsonrpc") == "2.0"
        and message.get("method") == method
        and (type(request_id) is int or type(request_id) is str)
    )


def _is_notification(message: dict[str, Any], method: str) -> bool:
    return (
        message.keys() <= {"jsonrpc", "method", "params"}
        and message.get("jsonrpc") == "2.0"
        and message.get("method") == method
        and message.get("params", {}) == {}
    )


def _is_initialize(params: object) -> bool:
    """Whether ``params`` are initialize parameters of the plain form SDK clients send,
    which the SDK surely accepts as they are (anything else is left to its validation)."""
    if not isinstance(params, dict) or params.keys() != {
        "protocolVersion",
        "capabilities",
        "clientInfo",
    }:
        return False
    capabilities = params["capabilities"]
    info = params["clientInfo"]
    return (
        isinstance(params["protocolVersion"], str)
        and isinstance(capabilities, dict)
        and capabilities.keys() <= {"roots", "sampling", "elicitation", "experimental"}
        and all(isinstance(value, dict) for value in capabilities.values())
        and all(_is_flag_object(value) for value in capabilities.values())
        and isinstance(info, dict)
        and {"name", "version"} <= info.keys() <= {"name", "version", "title", "description"}
        and all(isinstance(value, str) for value in info.values())
    )


def _is_flag_object(value: dict[str, Any]) -> bool:
    """A capability of boolean flags and empty objects only (``{"listChanged": true}``,
    ``{"form": {}}``)."""
    return all(isinstance(flag, bool) or flag == {} for flag in value.values())


def _reply(request_id: RequestId, result: dict[str, Any]) -> tuple[RequestId, bytes]:
    # The SDK's wire form: the response's fields in its order, compact, UTF-8 unescaped.
    line = {"jsonrpc": "2.0", "id": request_id, "result": result}
    data = json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    return request_id, data


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


async def _read_lines(wire: int, lines: MemoryObjectSendStream[Line]) -> None:
    """Hand each line of the wire on as it is taken, until end of file."""
    async with lines:
        async for line in _lines(wire):
            await lines.send(line)


async def _read_messages(
    held: list[Line],
    lines: MemoryObjectReceiveStream[Line],
    to_server: MemoryObjectSendStream[SessionMessage | Exception],
    flow: SessionFlow,
) -> None:
    """Parse each line (``held`` first, then the wire's) into a message for the server,
    until end of file; each waits until the session is open to it (the lines after it wait
    on the pipe).

    A line that is not a JSON-RPC message, or is longer than :data:`MAX_MESSAGE_BYTES`,
    reaches the server as an exception, as on the SDK's transport, and reading goes on.
    """
    import mcp_types as types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    async def forward(line: Line) -> None:
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

    async with to_server, lines:
        for line in held:
            await forward(line)
        held.clear()
        async for line in lines:
            await forward(line)


async def _lines(wire: int) -> AsyncIterator[Line]:
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


async def _write_all(wire: int, data: bytes) -> None:
    """Write ``data`` whole, waiting while the pipe is full; BrokenResourceError once the
    client closed its end."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(wire, view) :]
        except BlockingIOError:
            await anyio.wait_writable(wire)
        except OSError as exc:  # the client closed its end of the pipe
            raise anyio.BrokenResourceError from exc


class WireWriter(AsyncResource):
    """The server's write stream: each message written to the wire as one line, waiting
    while the pipe is full; its bytes count as unread in the session's flow until written."""

    def __init__(
        self, wire: int, flow: SessionFlow, answered: Counter[RequestId] | None = None
    ) -> None:
        self._wire = wire
        self._flow = flow
        self._answered = answered if answered is not None else Counter()
        self._turn = anyio.Lock()
        self._closed = False

    async def send(self, item: SessionMessage, /) -> None:
        """Write ``item``; BrokenResourceError once the client closed its end."""
        if self._closed:
            raise anyio.ClosedResourceError
        self._flow.went_out(item.message)
        if self._answered and self._already_answered(item):
            return
        data = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
        async with self._flow.unread(len(data)), self._turn:
            await _write_all(self._wire, data)

    def _already_answered(self, item: SessionMessage) -> bool:
        """Whether ``item`` answers a request the wire answered early (once for each)."""
        from mcp_types import JSONRPCError
        from mcp_types import JSONRPCResponse

        message = item.message
        if not isinstance(message, JSONRPCResponse | JSONRPCError):
            return False
        if message.id is None or self._answered[message.id] == 0:
            return False
        self._answered[message.id] -= 1
        if not self._answered[message.id]:
            del self._answered[message.id]
        return True

    async def aclose(self) -> None:
        self._closed = True
