"""A log's bytes as they arrive, in bounded memory: read straight into a line sink, or, for
a run's zip archive of logs, spooled to a temporary file and its entries read under caps.

Nothing of an archive reaches the disk under its own name: entry names only choose and name
the steps read. The caps refuse a zip bomb before it is inflated (declared sizes and
ratios) and while it is (the bytes actually read).
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO
from typing import Protocol

import anyio

from octo.codehosts.ci.reduce import LineSplitter
from octo.codehosts.ci.reduce import LogReducer
from octo.core.errors import InvalidResponseError
from octo.transports.http.body import BodySink

#: The most of one log read; the rest is left unread and the answer says so.
MAX_LOG_BYTES = 4 * 1024**3
#: A run's zip archive of logs: at most this big, this many entries, each inflating to at
#: most this much, and no entry inflating more than MAX_RATIO times its compressed size.
MAX_ZIP_BYTES = 512 * 1024 * 1024
MAX_ZIP_ENTRIES = 2000
MAX_ENTRY_BYTES = 1024**3
MAX_RATIO = 200
#: Bytes of the archive held in memory before it goes to a temporary file.
_SPOOL_MEMORY = 1024 * 1024
_CHUNK = 64 * 1024


class LineSink(Protocol):
    """Where a log's lines go: a reducer or a pager."""

    def reset(self) -> None: ...

    def add_lines(self, raws: list[str]) -> None: ...


@dataclass
class Reading:
    """What reading one log left to say: it stopped at MAX_LOG_BYTES."""

    cut: bool = False


class LineReader(BodySink):
    """A streamed log's lines fed to ``lines`` (from the start on every try), read up to
    MAX_LOG_BYTES; ``reading`` says whether it stopped there."""

    def __init__(self, lines: LineSink, reading: Reading) -> None:
        self._lines = lines
        self._reading = reading
        self._splitter = LineSplitter()
        self._total = 0

    async def restart(self) -> None:
        self._lines.reset()
        self._reading.cut = False
        self._splitter = LineSplitter()
        self._total = 0

    async def write(self, chunk: bytes) -> bool:
        self._total += len(chunk)
        if self._total > MAX_LOG_BYTES:
            self._reading.cut = True
            return False
        self._lines.add_lines(self._splitter.feed(chunk))
        # The lines are reduced on the event loop: let other work in between chunks.
        await anyio.lowlevel.checkpoint()
        return True

    async def end(self) -> None:
        self._lines.add_lines(self._splitter.finish())


class Spool(BodySink):
    """A run's log archive on its way in: in memory up to 1 MiB, then in a temporary file
    (deleted on close), at most MAX_ZIP_BYTES."""

    def __init__(self) -> None:
        # Closed by close(): the spool outlives the request that fills it.
        self.file: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=_SPOOL_MEMORY)  # noqa: SIM115
        self._total = 0

    def close(self) -> None:
        self.file.close()

    async def restart(self) -> None:
        self.file.seek(0)
        self.file.truncate()
        self._total = 0

    async def write(self, chunk: bytes) -> bool:
        self._total += len(chunk)
        if self._total > MAX_ZIP_BYTES:
            raise InvalidResponseError(
                f"the run's log archive is over {MAX_ZIP_BYTES} bytes",
                hints=["Read one job's log with jobId instead."],
            )
        await anyio.to_thread.run_sync(self.file.write, chunk)
        return True

    async def end(self) -> None:
        """Nothing to finish: the archive is read once whole."""


#: A run log archive's entries for one job: the step an entry holds, by the entry's name;
#: "" for the job's whole log (its steps found by their markers), None for another's.
Choose = Callable[[str], str | None]


def read_archive(spool: Spool, choose: Choose, sink: LogReducer) -> None:
    """Feed the entries ``choose`` names a step for, in archive order, as steps of one
    sink; blocking: run it in a worker thread. Raises InvalidResponseError for an archive
    that is not a zip or breaks a cap."""
    try:
        archive = zipfile.ZipFile(spool.file)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InvalidResponseError(f"the run's log archive is not a zip file: {exc}") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > MAX_ZIP_ENTRIES:
            raise _refused(f"{len(entries)} entries (over {MAX_ZIP_ENTRIES})")
        for info in entries:
            step = choose(info.filename)
            if step is None or info.is_dir():
                continue
            if info.file_size > MAX_ENTRY_BYTES:
                raise _refused(f"an entry of {info.file_size} bytes")
            if info.file_size > _SPOOL_MEMORY and info.file_size > MAX_RATIO * max(
                info.compress_size, 1
            ):
                raise _refused(
                    f"an entry inflating {info.file_size // max(info.compress_size, 1)} times"
                )
            if step:
                sink.start_step(step)
            for lines in _entry_lines(archive, info):
                sink.add_lines(lines)


def _entry_lines(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[list[str]]:
    splitter = LineSplitter()
    total = 0
    try:
        with archive.open(info) as entry:
            while chunk := entry.read(_CHUNK):
                total += len(chunk)
                if total > MAX_ENTRY_BYTES:
                    raise _refused("an entry inflating past its cap")
                yield splitter.feed(chunk)
    except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError) as exc:
        raise InvalidResponseError(f"the run's log archive is damaged: {exc}") from None
    yield splitter.finish()


def _refused(what: str) -> InvalidResponseError:
    return InvalidResponseError(
        f"the run's log archive was refused: {what}",
        hints=["Read one failed job's log with jobId instead."],
    )


_UNSAFE = re.compile(r"[^\w.() -]+")


def comparable(name: str) -> str:
    """A job or step name as archives spell it (punctuation dropped, case aside)."""
    return _UNSAFE.sub("", name).strip().casefold()


def step_chooser(job: str, failed_steps: set[int]) -> Choose:
    """The entries of job ``job`` in GitHub's run log archive ("Job name/3_Step name.txt"):
    its failed steps (all of them when none is known), named after the file."""
    folder = comparable(job)

    def choose(entry: str) -> str | None:
        parts = entry.split("/")
        if len(parts) != 2 or comparable(parts[0]) != folder:
            return None
        number, _, name = parts[1].removesuffix(".txt").partition("_")
        if failed_steps and (not number.isdigit() or int(number) not in failed_steps):
            return None
        return name or parts[1]

    return choose


def job_file_chooser(job: str) -> Choose:
    """The entry of job ``job`` holding its whole log ("2_Job name.txt" at the archive's top,
    the only form of some archives)."""
    wanted = comparable(job)

    def choose(entry: str) -> str | None:
        number, _, name = entry.removesuffix(".txt").partition("_")
        if "/" in entry or not number.isdigit() or comparable(name) != wanted:
            return None
        return ""

    return choose
