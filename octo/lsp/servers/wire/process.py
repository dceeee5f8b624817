"""A language server's process: spawned so it dies with octo, its stderr drained into a
tail kept for crash reports, and stopped by process group.

The server runs in its own session (its pid is its process group id) on Linux under
``setpriv --pdeathsig`` and a shell that kills the whole group when octo dies, even by
SIGKILL (see octo.transports.processes). Its children (tsserver under
typescript-language-server) share its group, so stopping kills the whole group.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
from collections.abc import Mapping
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import anyio
from pygls.lsp.client import LanguageClient

from octo.transports.processes import child_command
from octo.transports.processes import child_environment
from octo.transports.processes import track

#: When PATH is unset, servers still find the interpreters their launch scripts name.
_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
_STDERR_LINES = 50
_LONGEST_LINE = 4096


#: What a server on an untrusted workspace (a clone) runs with: gopls's go command uses the
#: installed toolchain only (no toolchain a go.mod names is fetched and run), downloads
#: nothing, and runs no C compiler or pkg-config for cgo files.
UNTRUSTED_ENVIRONMENT = {"GOTOOLCHAIN": "local", "GOPROXY": "off", "CGO_ENABLED": "0"}


def server_environment(env: Mapping[str, str], *, untrusted: bool = False) -> dict[str, str]:
    """What a server sees of octo's environment: no credentials, and a PATH; on an
    ``untrusted`` workspace also :data:`UNTRUSTED_ENVIRONMENT`."""
    clean = child_environment(env)
    clean.setdefault("PATH", _DEFAULT_PATH)
    if untrusted:
        clean.update(UNTRUSTED_ENVIRONMENT)
    return clean


async def spawn(
    client: LanguageClient, argv: Sequence[str], root: Path, env: Mapping[str, str]
) -> asyncio.subprocess.Process:
    """Start ``argv`` in ``root`` as ``client``'s server (stdin, stdout and stderr piped)."""
    # child_command looks for setpriv on PATH (once): off the event loop.
    command = await anyio.to_thread.run_sync(partial(child_command, argv, with_children=True))
    await client.start_io(*command, cwd=str(root), env=dict(env), start_new_session=True)
    process = client._server
    assert process is not None  # start_io sets it or raises
    track("lsp", process)
    return process


class StderrTail:
    """The last lines a server wrote to stderr.

    A server whose stderr pipe is never read blocks once the pipe is full, so
    :meth:`drain` reads it from start to end of file, in the runtime's task group.
    """

    def __init__(self) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._ended = anyio.Event()

    async def drain(self, stream: asyncio.StreamReader) -> None:
        """Read ``stream`` until it ends, keeping its last lines."""
        pending = b""
        try:
            while chunk := await stream.read(65536):
                *complete, pending = (pending + chunk).split(b"\n")
                self.lines.extend(line.decode("utf-8", "replace").rstrip() for line in complete)
                pending = pending[-_LONGEST_LINE:]
        except (OSError, ValueError):
            pass  # the pipe broke: whatever was read stays
        finally:
            if pending:
                self.lines.append(pending.decode("utf-8", "replace").rstrip())
            self._ended.set()

    async def last_words(self, count: int, grace: float = 0.2) -> list[str]:
        """The last ``count`` non-blank lines, once the pipe ended or ``grace`` s passed.

        A dying server's last words may still be in the pipe; its end comes at once
        unless a child of the server holds it open, so the wait is short either way.
        """
        with anyio.move_on_after(grace):
            await self._ended.wait()
        return [line for line in self.lines if line.strip()][-count:]


def _kill_group(pgid: int, sig: int) -> None:
    """Send ``sig`` to process group ``pgid``; a group that is gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _exited(process: asyncio.subprocess.Process, seconds: float) -> bool:
    """Whether ``process`` exits within ``seconds``.

    Polls the return code rather than ``process.wait()``, which also waits for the pipes
    to close: a child of the server holding them would make an exited server look hung.
    """
    for _ in range(max(1, round(seconds / 0.02))):
        if process.returncode is not None:
            return True
        await anyio.sleep(0.02)
    return process.returncode is not None


async def end_group(process: asyncio.subprocess.Process, *, polite: bool) -> None:
    """Make sure ``process`` and its process group are gone.

    After a polite exit request the server gets 1 s to leave, then SIGTERM and 1 s more;
    otherwise (and in the end, for its children) the group is killed.
    """
    steps: tuple[tuple[int | None, float], ...] = (
        ((None, 1.0), (signal.SIGTERM, 1.0), (signal.SIGKILL, 5.0))
        if polite
        else ((signal.SIGKILL, 5.0),)
    )
    for sig, grace in steps:
        if sig is not None:
            _kill_group(process.pid, sig)
        if await _exited(process, grace):
            break
    _kill_group(process.pid, signal.SIGKILL)
