"""Reading a language server's messages within a size limit.

pygls reads a message's ``Content-Length`` header and then that many bytes, whatever the
number: a server announcing 4 GB would have them buffered. Here the reader pygls is given
refuses a message over :data:`MAX_MESSAGE_BYTES` (or a header line over the stream's line
limit) before reading it: the server is killed (its process group), so the requests
waiting on it fail at once as LSP_NOT_AVAILABLE saying why, and the pool starts it again
on the next query.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Callable
from typing import Any

import anyio
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient

logger = logging.getLogger("octo.lsp")

#: The largest message octo reads from a language server (a reply with ~100,000 locations).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
#: asyncio's buffer limit for a subprocess's streams (its default).
_STREAM_LIMIT = 2**16


class CappedReader:
    """The server's stdout as pygls reads it, refusing what is over the limits."""

    def __init__(
        self, stream: asyncio.StreamReader, limit: int, refuse: Callable[[str], None]
    ) -> None:
        self._stream = stream
        self._limit = limit
        self._refuse = refuse

    async def readline(self) -> bytes:
        try:
            return await self._stream.readline()
        except ValueError:  # a header line over the stream's limit (64 KiB)
            return await self._refused("a header line of more than 64 KiB")

    async def readexactly(self, count: int) -> bytes:
        if count > self._limit:
            return await self._refused(
                f"a message of {count} bytes (octo reads at most {self._limit})"
            )
        return await self._stream.readexactly(count)

    async def _refused(self, what: str) -> bytes:
        """Stop the server, then read its stdout to the end (what the dead server left in the
        pipe): the pipe must close for its exit to be seen. An empty read ends pygls' loop."""
        self._refuse(what)
        while await self._stream.read(1 << 16):
            pass
        return b""


class CappedLanguageClient(LanguageClient):
    """pygls' client, whose server's messages are read through a :class:`CappedReader`.

    ``refused`` says what the server sent that octo would not read, once it did.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refused: str | None = None
        self._transport: asyncio.SubprocessTransport | None = None

    async def start_io(self, cmd: str, *args: str, **kwargs: Any) -> None:
        """pygls' start_io, reading the server's stdout through a CappedReader."""
        # asyncio.create_subprocess_exec, keeping the transport: close_pipes needs it.
        # Shielded: cancelled while it connects a child's pipes, asyncio (3.11) goes on to
        # connect the rest, which nobody closes. A cancellation now comes at the caller's
        # next await, and the caller stops the server it started.
        loop = asyncio.get_running_loop()
        with anyio.CancelScope(shield=True):
            transport, streams = await loop.subprocess_exec(
                lambda: asyncio.subprocess.SubprocessStreamProtocol(limit=_STREAM_LIMIT, loop=loop),
                cmd,
                *args,
                stdout=asyncio.subprocess.PIPE,
                stdin=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                **kwargs,
            )
        self._transport = transport
        server = asyncio.subprocess.Process(transport, streams, loop)
        assert server.stdout is not None and server.stdin is not None
        self.protocol.set_writer(server.stdin)
        reader = CappedReader(server.stdout, MAX_MESSAGE_BYTES, self._refuse)
        connection = asyncio.create_task(
            run_async(
                stop_event=self._stop_event,
                reader=reader,
                protocol=self.protocol,
                logger=logger,
                error_handler=self.report_server_error,
            )
        )
        self._server = server
        exited = asyncio.create_task(self._server_exit())  # type: ignore[no-untyped-call]
        self._async_tasks.extend([connection, exited])

    def close_pipes(self) -> None:
        """Close the server's three pipes (once it is gone).

        pygls stops reading stdout at its stop event, and the stderr reader may end with the
        runtime: a pipe whose reading paused on a full buffer would never see its end of
        file, and stay open until the garbage collector finds it.
        """
        if self._transport is not None:
            self._transport.close()

    def _refuse(self, what: str) -> None:
        self.refused = self.refused or what
        if self._server is not None:
            # Its own session: the pid is the group, children (tsserver) included.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._server.pid, signal.SIGKILL)
