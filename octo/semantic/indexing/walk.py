"""Which files an index holds, and what they say: the same walk as the local tools (rg --files:
.gitignore respected, hidden entries skipped), credential files left out, binary files skipped,
and secrets redacted before anything is chunked or stored.

Files are read through the local tools' confined opener (one component at a time, no symbolic
link followed), so a link swapped in after the listing is never read. A file that cannot be
read is skipped and named; the rest of the tree is indexed.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from octo.core.config import Config
from octo.core.errors import InvalidQueryError
from octo.core.errors import OctoError
from octo.core.files.confined import open_confined
from octo.core.files.paths import is_hidden
from octo.core.formats import parse_size
from octo.core.queries import is_text
from octo.core.secrets.redaction import redact
from octo.core.secrets.sensitive import is_sensitive
from octo.semantic.indexing.languages import language_of
from octo.transports.ripgrep import RgPlace
from octo.transports.ripgrep import fence_args
from octo.transports.ripgrep import max_filesize_arg
from octo.transports.ripgrep import rg_error_message
from octo.transports.ripgrep import run_rg

#: Listing a large tree may take longer than one search's rg limit.
LIST_TIMEOUT_MS = 60_000
#: Larger files (generated code, data, minified bundles) are left out of an index.
MAX_FILE_BYTES = 1024 * 1024
_BINARY_PROBE = 8192


@dataclass(frozen=True)
class FileState:
    """What the index remembers of a file to tell whether it changed."""

    hash: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class ScannedFile:
    """A file of the tree; ``text`` (redacted) is set only when its content changed."""

    path: str
    language: str
    state: FileState
    text: str | None


async def list_files(
    root: Path, config: Config, fenced: Sequence[str], place: RgPlace
) -> list[str]:
    """Root-relative names of the files to index under ``root``, sorted; none below the
    ``fenced`` paths (PathPolicy.fenced_below). rg lists them once ``place`` in the rg queue
    has its turn."""
    limit = min(parse_size(config.rg_max_filesize), MAX_FILE_BYTES)
    run = await run_rg(
        ["--files", "--null", max_filesize_arg(str(limit)), *fence_args(fenced)],
        place=place,
        cwd=root,
        timeout_ms=LIST_TIMEOUT_MS,
    )
    # rg exits 2 when some directory could not be read, yet lists the rest.
    if run.returncode == 2 and not run.stdout:
        raise InvalidQueryError(
            f"Cannot list the files under {root}: {rg_error_message(run.stderr)}",
            hints=["Check the directory's permissions, or index a sub-directory."],
        )
    names = []
    for raw in run.stdout.split(b"\0"):
        name = os.fsdecode(raw).removeprefix("./")
        if (
            name
            and is_text(name)
            and language_of(name) is not None
            and not is_sensitive(name)
            and not is_hidden(root / name, root)
        ):
            names.append(name)
    return sorted(names)


@dataclass(frozen=True)
class SkippedFile:
    """A listed file left out of the index, and why."""

    path: str
    reason: str


@dataclass
class Scan:
    """What a batch of listed files gave: their states and texts, and the files skipped."""

    files: list[ScannedFile]
    skipped: list[SkippedFile]


def scan_files(root: Path, names: list[str], known: Mapping[str, FileState]) -> Scan:
    """Each listed file's state, with its redacted text when it is new or changed.

    A file whose size and modification time match the index is not read at all, so
    re-indexing an unchanged tree costs one ``stat`` per file. Anything but a regular file
    below ``root`` reached without a symbolic link is skipped and named, and so is a binary
    or unreadable file. Blocking: run in a thread.
    """
    scan = Scan([], [])
    for name in names:
        try:
            info = os.lstat(root / name)
        except OSError:
            continue  # gone since the listing
        before = known.get(name)
        language = language_of(name) or "text"
        if before is not None and (before.size, before.mtime_ns) == (
            info.st_size,
            info.st_mtime_ns,
        ):
            scan.files.append(ScannedFile(name, language, before, None))
            continue
        try:
            state, text = _read(root, name)
        except OctoError as exc:
            scan.skipped.append(SkippedFile(name, exc.message))
            continue
        unchanged = before is not None and before.hash == state.hash
        scan.files.append(ScannedFile(name, language, state, None if unchanged else text))
    return scan


def _read(root: Path, name: str) -> tuple[FileState, str]:
    """The state and redacted text of file ``name`` under ``root``, opened without following
    any link; raises an OctoError saying why a file cannot be indexed."""
    with open_confined(root, root / name, name) as opened:
        if not opened.is_file:
            raise InvalidQueryError(f"'{name}' is not a regular file")
        try:
            data = bytes(opened.read_bytes(MAX_FILE_BYTES + 1))
        except OSError as exc:
            raise InvalidQueryError(f"'{name}' cannot be read: {exc.strerror}") from None
        info = opened.stat
    if len(data) > MAX_FILE_BYTES:
        raise InvalidQueryError(f"'{name}' is larger than {MAX_FILE_BYTES} bytes")
    if b"\0" in data[:_BINARY_PROBE]:
        raise InvalidQueryError(f"'{name}' is binary")
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return FileState(hashlib.sha256(data).hexdigest(), info.st_size, info.st_mtime_ns), redact(text)
