"""Opening a checked path so that the object checked is the object read.

A path is resolved and checked against the allowed roots first; by the time it is opened, a
directory on the way or the file itself may have been swapped for a symbolic link leading
outside. Here the path is opened from its root one component at a time, each with
``O_NOFOLLOW`` through its parent's descriptor: no link is followed on the way, so what is
opened lies inside the root, or the open fails. Children (rg) get the opened object itself
through ``/proc/self/fd/N``, which no later swap can redirect.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import TracebackType

from octo.core.errors import InvalidQueryError
from octo.core.errors import NotFoundError
from octo.core.errors import OctoError
from octo.core.errors import PathNotAllowedError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# A FIFO opened for reading would block until a writer comes: never wait for one.
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CHUNK = 1 << 20


@cache
def _by_components() -> bool:
    """True where a path can be opened component by component (``openat``, O_NOFOLLOW)."""
    return bool(_NOFOLLOW) and os.open in os.supports_dir_fd


@cache
def _proc_fds() -> bool:
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self/fd")


@dataclass
class Opened:
    """An open descriptor of a checked ``path``, and its status; close it (or use ``with``)."""

    fd: int
    path: Path
    stat: os.stat_result

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.stat.st_mode)

    @property
    def is_file(self) -> bool:
        return stat.S_ISREG(self.stat.st_mode)

    def child_path(self) -> str:
        """A path naming this very object for a child that inherits ``fd`` (pass_fds):
        ``/proc/self/fd/N`` on Linux, else the checked path."""
        return f"/proc/self/fd/{self.fd}" if _proc_fds() else str(self.path)

    def read_bytes(
        self, limit: int | None = None, *, between: Callable[[], object] | None = None
    ) -> bytearray:
        """The content from the start, at most ``limit`` bytes (blocking).

        Read a block at a time into one buffer of the size the file had when opened (more
        is read if it grew), calling ``between`` after each block: a worker thread's look
        at its deadline, whose raising abandons the read.
        """
        os.lseek(self.fd, 0, os.SEEK_SET)
        want = self.stat.st_size if limit is None else min(limit, self.stat.st_size)
        data = bytearray(want)
        got = 0
        with io.FileIO(self.fd, closefd=False) as file, memoryview(data) as view:
            while got < want and (count := file.readinto(view[got : got + _CHUNK])):
                got += count
                if between is not None:
                    between()
        del data[got:]
        if got < want:
            return data  # the file shrank: its end is reached
        while limit is None or len(data) < limit:
            size = _CHUNK if limit is None else min(_CHUNK, limit - len(data))
            chunk = os.read(self.fd, size)
            if not chunk:
                break
            data += chunk
            if between is not None:
                between()
        return data

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Opened:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


@contextmanager
def closed_on_error(opened: Opened) -> Iterator[Opened]:
    """``opened``, closed if the block fails (kept open for the caller when it succeeds)."""
    try:
        yield opened
    except BaseException:
        opened.close()
        raise


def open_confined(root: Path, path: Path, shown: str, *, directory: bool = False) -> Opened:
    """Open the resolved ``path`` below ``root`` without following any symbolic link.

    ``shown`` names the path in errors. Blocking: call it from a worker thread. Raises
    NotFoundError when it is gone, PathNotAllowedError when a link was swapped in on the
    way, InvalidQueryError when ``directory`` and it is not one.
    """
    try:
        if _by_components():
            start = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
            fd = _open_components(start, path.relative_to(root).parts, directory)
        else:
            fd = _open_plain(path)
    except OSError as exc:
        raise _open_error(exc, shown, directory) from None
    return _opened(fd, path)


def open_below(base: Opened, relative: str, *, directory: bool = False) -> Opened:
    """Open ``relative`` (a path below the opened directory ``base``) the same way, from
    ``base`` itself. Blocking; raises like :func:`open_confined`."""
    path = base.path / relative
    try:
        if _by_components():
            parts = [part for part in Path(relative).parts if part not in (".", "")]
            fd = _open_components(os.dup(base.fd), parts, directory)
        else:
            fd = _open_plain(path)
    except OSError as exc:
        raise _open_error(exc, relative, directory) from None
    return _opened(fd, path)


def _opened(fd: int, path: Path) -> Opened:
    try:
        return Opened(fd, path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise


def _open_plain(path: Path) -> int:
    return os.open(path, os.O_RDONLY | _CLOEXEC | _NONBLOCK)


def _open_components(fd: int, parts: Sequence[str], directory: bool) -> int:
    """Open ``parts`` one by one from the directory ``fd`` (which this takes over)."""
    try:
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            flags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC
            flags |= _DIRECTORY if directory or not last else _NONBLOCK
            opened = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = opened
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_error(exc: OSError, shown: str, directory: bool) -> OctoError:
    if exc.errno == errno.ENOENT:
        return NotFoundError(
            f"'{shown}' does not exist",
            hints=["Check the path with localViewStructure or localFindFiles."],
        )
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return PathNotAllowedError(
            f"'{shown}' was replaced by a symbolic link as it was opened",
            hints=["Retry; a link is followed only when it resolves inside the allowed roots."],
        )
    if exc.errno == errno.ENOTDIR:
        if directory:
            return InvalidQueryError(f"'{shown}' is not a directory")
        return PathNotAllowedError(
            f"A directory on the way to '{shown}' was replaced as it was opened",
            hints=["Retry; a link is followed only when it resolves inside the allowed roots."],
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return PathNotAllowedError(f"'{shown}' cannot be read: permission denied")
    return InvalidQueryError(f"'{shown}' cannot be opened: {exc.strerror}")
