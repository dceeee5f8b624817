"""Running rg: locating the binary, and running it under a deadline, streamed or to the end.

Every rg process runs in its own process group, so stopping it early (a page is
full, the deadline passed) kills rg and anything it spawned, then reaps it. At most
``OCTO_RG_CONCURRENCY`` rg processes of a runtime run at once (:class:`RgQueue`, a backend
of the runtime; each call's place in it, :class:`RgPlace`, is handed to whatever runs rg);
the others wait their turn, earlier calls first, within their query's deadline.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from contextlib import AsyncExitStack
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO
from typing import Protocol
from typing import Required
from typing import TypedDict
from typing import TypeVar
from typing import Unpack

import anyio
from anyio.abc import Process

from octo.core.concurrency import RankedLimiter
from octo.core.config import Config
from octo.core.errors import InvalidQueryError
from octo.core.errors import NotFoundError
from octo.core.errors import QueryTimeoutError
from octo.core.errors import ToolNotAvailableError
from octo.core.formats import parse_size
from octo.transports.capped_lines import LongLine
from octo.transports.capped_lines import capped_lines
from octo.transports.processes import child_command
from octo.transports.processes import child_environment
from octo.transports.processes import track

#: Spec 003: rg's --max-filesize is configurable but never above this.
MAX_FILESIZE_CAP = 200 * 1024 * 1024

_STDERR_KEEP = 16 * 1024

T = TypeVar("T")

#: Seconds of a query's time kept for answering once rg is done (its second pass, the page).
_ANSWER_MARGIN = 1.0
_SHORTEST_LIMIT = 0.05

#: The longest single argument Linux passes to a program (MAX_ARG_STRLEN, its NUL included).
_MAX_ARG_BYTES = 128 * 1024 - 1
#: Bytes of file names one rg run is given: a quarter of Linux's 2 MiB for a whole command
#: line with its environment.
ARG_BYTES_PER_RUN = 512 * 1024


@cache
def rg_binary() -> str:
    """Absolute path of rg; raises ToolNotAvailableError when there is none."""
    beside = Path(sys.executable).with_name("rg")
    if beside.is_file():
        return str(beside)
    found = shutil.which("rg")
    if found:
        return found
    raise ToolNotAvailableError(
        "ripgrep (rg) is not installed",
        hints=["pip install ripgrep==14.1.0 (a dependency of octo-gateway), or put rg on PATH."],
    )


class _Configured(Protocol):
    config: Config


class RgQueue:
    """A runtime's queue of rg processes, one of its backends (``ctx.backend(RgQueue)``): at
    most ``OCTO_RG_CONCURRENCY`` run at once; the others wait, the rg of earlier calls first."""

    def __init__(self, runtime: _Configured) -> None:
        self._limiter = RankedLimiter(runtime.config.rg_concurrency)

    def place(self, arrived: float | None) -> RgPlace:
        """The place in this queue of a call that ``arrived`` then (the event loop's clock;
        None: outside a call, each rg ranked by the moment it asks)."""
        return RgPlace(self._limiter, arrived)


@dataclass(frozen=True)
class RgPlace:
    """One call's place in an rg queue, handed to whatever runs rg for it."""

    limiter: RankedLimiter
    arrived: float | None

    def slot(self) -> AbstractAsyncContextManager[None]:
        """A turn to run one rg: earlier calls first, then in order of asking."""
        return self.limiter.hold(anyio.current_time() if self.arrived is None else self.arrived)


@asynccontextmanager
async def _turn(place: RgPlace) -> AsyncIterator[None]:
    """A turn in the queue, waited for until a moment before the query's deadline: a query
    whose turn never came answers (an empty, partial page) instead of being cancelled."""
    async with AsyncExitStack() as stack:
        left = anyio.current_effective_deadline() - anyio.current_time() - _ANSWER_MARGIN
        try:
            with anyio.fail_after(max(_SHORTEST_LIMIT, left)):
                await stack.enter_async_context(place.slot())
        except TimeoutError:
            raise QueryTimeoutError(
                "ripgrep's queue was full until the query's deadline: other searches ran first",
                hints=["Retry in a moment, or narrow the search so that it takes less time."],
            ) from None
        yield


def argument_runs(targets: Sequence[str]) -> list[Sequence[str]]:
    """``targets`` cut into runs of at most :data:`ARG_BYTES_PER_RUN` bytes of names, one rg
    run each (none when there is no target: rg given no path would search its working
    directory)."""
    runs: list[Sequence[str]] = []
    start = used = 0
    for index, target in enumerate(targets):
        size = len(os.fsencode(target)) + 1
        if used + size > ARG_BYTES_PER_RUN and index > start:
            runs.append(targets[start:index])
            start, used = index, 0
        used += size
    if start < len(targets):
        runs.append(targets[start:])
    return runs


def max_filesize_arg(size: str) -> str:
    """rg's ``--max-filesize`` for a configured size ("10M"), capped at 200 MiB (spec 003)."""
    return f"--max-filesize={max_filesize_bytes(size)}"


def max_filesize_bytes(size: str) -> int:
    """The bytes of a configured size ("10M") that rg may read of a file, capped at 200 MiB
    (spec 003)."""
    return min(parse_size(size), MAX_FILESIZE_CAP)


#: Characters that mean something in an rg glob, written with a backslash to mean themselves.
_GLOB_SYNTAX = frozenset("\\*?[]{}!,")


def fence_args(fenced: Iterable[str]) -> list[str]:
    """rg flags that keep a walk of its working directory out of each of ``fenced`` (paths
    below it, :meth:`~octo.core.files.paths.PathPolicy.fenced_below`): anchored exclusion
    globs, given after every other glob (of several matching a path, rg obeys the last)."""
    return [
        "--glob=!/" + "".join(f"\\{c}" if c in _GLOB_SYNTAX else c for c in rel) for rel in fenced
    ]


def rg_error_message(stderr: str) -> str:
    """rg's complaint without its ``rg: `` prefix and with collapsed indentation."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    return " ".join(line.removeprefix("rg: ") for line in lines) or "rg failed"


class RgProcess:
    """A running rg: stdout is read as lines; stderr goes to a temporary file."""

    def __init__(self, process: Process, stderr: IO[bytes]) -> None:
        self._process = process
        self._stderr = stderr

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def stderr(self) -> str:
        """The start of what rg wrote to stderr: complete once :meth:`wait` returned, readable
        until the ``open_rg`` block ends."""
        self._stderr.seek(0)
        return self._stderr.read(_STDERR_KEEP).decode("utf-8", errors="replace")

    async def record_batches(self, separator: bytes) -> AsyncIterator[list[bytes]]:
        """stdout as the ``separator``-ended records each read completes (without their
        separator), a list a read: a listing of 50,000 names is split in a few dozen calls,
        not a step each."""
        assert self._process.stdout is not None
        partial = b""
        async for chunk in self._process.stdout:
            records = (partial + chunk).split(separator)
            partial = records.pop()
            if records:
                yield records
        if partial:
            yield [partial]

    def capped_lines(self, longest: int, keep: int = 64 * 1024) -> AsyncIterator[bytes | LongLine]:
        """stdout one line at a time, as :meth:`lines`; a line over ``longest`` bytes comes as
        a :class:`LongLine` (see :func:`~octo.transports.capped_lines.capped_lines`)."""
        assert self._process.stdout is not None
        return capped_lines(self._process.stdout, longest, keep)

    async def wait(self) -> int:
        """Wait for rg to exit and return its exit code (0 found, 1 nothing found, 2 error)."""
        return await self._process.wait()

    def kill(self) -> None:
        """Kill rg's whole process group, if rg has not been reaped yet."""
        if self._process.returncode is not None:
            return
        try:
            if sys.platform == "win32":
                self._process.kill()
            else:
                os.killpg(self._process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@dataclass(frozen=True)
class RgRun:
    """What a finished rg left: exit code (0 found, 1 nothing found, 2 error), stdout, stderr.

    ``timed_out``: rg was killed at its deadline (``returncode`` is then None) and stdout
    holds what it had written by then.
    """

    returncode: int | None
    stdout: bytes
    stderr: str
    timed_out: bool = False


class RgSpawn(TypedDict, total=False):
    """Where and under what deadline rg runs (the keyword arguments of
    :func:`open_rg` and :func:`run_rg`).

    rg runs in ``cwd`` (the server's directory when absent) once ``place`` has its turn,
    under a deadline of ``timeout_ms`` (rg 14 has no timeout flag): when it passes, rg is
    killed and QueryTimeoutError is raised. rg inherits ``pass_fds`` (none when absent), so
    ``/proc/self/fd/N`` in ``cwd`` or the arguments names what octo opened.
    """

    place: Required[RgPlace]
    cwd: Path | str | None
    timeout_ms: Required[int]
    pass_fds: Sequence[int]


@asynccontextmanager
async def open_rg(args: Sequence[str], **spawn: Unpack[RgSpawn]) -> AsyncIterator[RgProcess]:
    """Run ``rg args`` as ``spawn`` says; leaving the block kills rg if it still runs.

    The deadline covers the whole block.
    """
    async with _spawn_rg(args, subprocess.PIPE, spawn) as rg:
        yield rg


async def run_rg(
    args: Sequence[str], *, keep_partial: bool = False, **spawn: Unpack[RgSpawn]
) -> RgRun:
    """Run ``rg args`` as ``spawn`` says, to the end.

    For output that is needed whole: rg writes it to a temporary file, so a
    search printing thousands of lines costs no wake-up per line it writes. With
    ``keep_partial``, rg reaching its deadline is no error: the run says ``timed_out``
    and holds what rg wrote until it was killed.
    """
    with tempfile.TemporaryFile() as stdout:
        returncode: int | None = None
        stderr = ""
        try:
            async with _spawn_rg(args, stdout, spawn) as rg:
                returncode = await rg.wait()
                stderr = rg.stderr  # (at most 16 KiB: read in place, as a small output)
        except QueryTimeoutError:
            if not keep_partial:
                raise
        output = await _output(stdout)
    return RgRun(returncode, output, stderr, timed_out=returncode is None)


#: Bytes of rg's output read in place, in less time than a worker thread takes to wake.
_READ_IN_PLACE = 64 * 1024


def _read_all(file: IO[bytes]) -> bytes:
    file.seek(0)
    return file.read()


async def _output(file: IO[bytes]) -> bytes:
    """What rg wrote to ``file``: read in place when small, else in a worker thread."""
    if os.fstat(file.fileno()).st_size <= _READ_IN_PLACE:
        return _read_all(file)
    return await _read_shielded(lambda: _read_all(file))


async def _read_shielded(read: Callable[[], T]) -> T:
    """``read()`` off the event loop (rg's output may be megabytes); shielded: rg has
    finished, so the deadline passing meanwhile must not drop its output."""
    with anyio.CancelScope(shield=True):
        done = await anyio.to_thread.run_sync(read)
    return done


def _check_args(args: Sequence[str]) -> None:
    """Refuse what no program can receive as an argument, before trying to start rg."""
    for arg in args:
        if "\0" in arg:
            raise InvalidQueryError(
                "ripgrep cannot take a NUL character in a pattern, glob or name",
                hints=[r"In a regex pattern write it as \x00; elsewhere leave it out."],
            )
        if len(arg.encode("utf-8", "surrogatepass")) > _MAX_ARG_BYTES:
            raise InvalidQueryError(
                f"A pattern, glob or name of {len(arg)} characters is too long for ripgrep "
                f"(at most {_MAX_ARG_BYTES} bytes)",
                hints=["Search for a shorter, distinctive part of it."],
            )


@asynccontextmanager
async def _spawn_rg(
    args: Sequence[str], stdout: int | IO[bytes], spawn: RgSpawn
) -> AsyncIterator[RgProcess]:
    _check_args(args)
    # The turn is taken before rg's own deadline starts: waiting in line is not searching.
    async with _turn(spawn["place"]):
        # stderr goes to a file, not a pipe: rg never blocks on it and nothing must drain it.
        with tempfile.TemporaryFile() as stderr:
            # Shielded: asyncio (3.11), cancelled while it connects a child's pipes, leaves
            # the rest open. A cancellation comes at the next await; the finally stops rg.
            with anyio.CancelScope(shield=True):
                process = await _start_rg(
                    args, spawn.get("cwd"), stdout, stderr, spawn.get("pass_fds", ())
                )
            track("rg", process)
            rg = RgProcess(process, stderr)
            seconds = rg_time_limit(spawn["timeout_ms"])
            try:
                with anyio.fail_after(seconds):
                    yield rg
            except TimeoutError:
                raise QueryTimeoutError(
                    f"ripgrep did not finish within {round(seconds * 1000)} ms",
                    hints=[
                        "Narrow the search: a sub-directory as path, a type, or include globs.",
                        "OCTO_RG_TIMEOUT_MS raises the limit (at most 30000).",
                    ],
                ) from None
            finally:
                rg.kill()
                with anyio.CancelScope(shield=True):
                    await process.aclose()


def rg_time_limit(timeout_ms: int) -> float:
    """rg's own limit, in seconds: ``timeout_ms``, but ending a moment before the deadline
    of the query around it, so that a search its deadline cuts short still answers (with
    what rg found) instead of being cancelled with nothing. Work done instead of an rg run
    (a listing read in-process) keeps the same limit."""
    left = anyio.current_effective_deadline() - anyio.current_time() - _ANSWER_MARGIN
    return min(timeout_ms / 1000, max(_SHORTEST_LIMIT, left))


async def _start_rg(
    args: Sequence[str],
    cwd: Path | str | None,
    stdout: int | IO[bytes],
    stderr: IO[bytes],
    pass_fds: Sequence[int],
) -> Process:
    try:
        return await anyio.open_process(
            child_command([rg_binary(), "--no-config", *args]),
            cwd=cwd,
            env=child_environment(os.environ),
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
            pass_fds=pass_fds,
        )
    except FileNotFoundError as exc:
        if cwd is None or exc.filename != str(cwd):
            raise
        # The directory went away between the check and the start.
        raise NotFoundError(
            "The directory to search no longer exists",
            hints=["Check the path with localViewStructure on its parent."],
        ) from None
    except OSError as exc:
        if exc.errno != errno.E2BIG:
            raise
        raise InvalidQueryError(
            "The query's patterns, globs and names together are too long for ripgrep",
            hints=["Use fewer or shorter patterns and globs."],
        ) from None
