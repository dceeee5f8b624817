"""An archive extracted in a child process (:mod:`octo.codehosts.clone.extract`): memory
limited, killed when the query is cancelled (its deadline), its work folder removed, so no
archive can freeze the server, grow it, or leave a half-written folder behind.

The child is started like every other (:mod:`octo.transports.processes`: its own session,
killed when octo dies, no credential in its environment) and says in one JSON line what it
wrote or why it refused; each refusal becomes the error of its kind.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

import anyio

from octo.codehosts.clone import extract as child
from octo.codehosts.clone.extract import Caps
from octo.codehosts.clone.extract import Extracted
from octo.core.errors import FileTooLargeError
from octo.core.errors import InvalidResponseError
from octo.core.errors import OctoError
from octo.core.errors import ToolNotAvailableError
from octo.transports.processes import child_command
from octo.transports.processes import child_environment
from octo.transports.processes import track

#: More than the child's one line ever holds.
_MAX_ANSWER = 64 * 1024
_ERRORS: Mapping[str, type[OctoError]] = {
    child.UNSAFE: InvalidResponseError,
    child.UNREADABLE: InvalidResponseError,
    child.TOO_LARGE: FileTooLargeError,
    child.UNWRITABLE: ToolNotAvailableError,
}


class UnsafeArchiveError(InvalidResponseError):
    """The archive holds an entry octo refuses to write."""


async def unpack(
    archive: Path,
    work: Path,
    *,
    caps: Caps,
    sparse_path: str | None,
    env: Mapping[str, str],
) -> Extracted:
    """Extract ``archive`` into the new folder ``work`` in a child process; on any error or
    cancellation ``work`` is gone. Raises the refusal's OctoError (FILE_TOO_LARGE for a cap,
    INVALID_RESPONSE for an unsafe or unreadable archive)."""
    argv = [sys.executable, "-I", "-S", child.__file__, str(archive), str(work)]
    argv += [str(caps.max_bytes), str(caps.max_files), *([sparse_path] if sparse_path else [])]
    output = bytearray()
    finished = False
    try:
        try:
            process = await anyio.open_process(
                child_command(argv),
                env=child_environment(env),
                stdin=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            raise ToolNotAvailableError(
                f"The extractor could not start: {exc.strerror or exc}",
                hints=["Check that octo's Python can run in this environment."],
            ) from None
        track("extract", process)
        async with process:
            assert process.stdout is not None  # (a pipe: open_process's default)
            async for chunk in process.stdout:
                output += chunk
                if len(output) > _MAX_ANSWER:
                    process.kill()
                    break
            await process.wait()
        finished = True
    finally:
        if not finished:
            # Cancelled (the deadline): anyio killed the child; its folder goes in the
            # background, not past the deadline.
            threading.Thread(target=_remove, args=(work,), daemon=True).start()
    try:
        return _answer(bytes(output), process.returncode)
    except OctoError:
        await anyio.to_thread.run_sync(_remove, work)
        raise


def _answer(output: bytes, returncode: int | None) -> Extracted:
    """What the child wrote, or the error it reported."""
    try:
        said = json.loads(output)
        if not isinstance(said, dict):
            raise TypeError("not an object")
        if "refused" not in said:
            return Extracted(int(said["size"]), int(said["files"]), int(said["entries"]))
        kind, message, hint = str(said["refused"]), str(said["message"]), str(said["hint"])
    except (ValueError, TypeError, KeyError):
        raise InvalidResponseError(
            f"The archive could not be extracted: the extractor stopped (exit {returncode}) "
            "without an answer; nothing was extracted",
            hints=["A code host's archive extracts: check the configured host and any proxy."],
        ) from None
    error = UnsafeArchiveError if kind == child.UNSAFE else _ERRORS.get(kind, InvalidResponseError)
    raise error(message, hints=[hint])


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
