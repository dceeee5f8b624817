"""Which files an index holds, and what they say: the same walk as the local tools (rg --files:
.gitignore respected, hidden entries skipped), credential files left out, symlinks never
followed, binary files skipped, and secrets redacted before anything is chunked or stored."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from octo.core.config import Config
from octo.core.errors import InvalidQueryError
from octo.core.formats import parse_size
from octo.core.paths import is_hidden
from octo.core.queries import is_text
from octo.core.secrets.redaction import redact
from octo.core.secrets.sensitive import is_sensitive
from octo.semantic.languages import language_of
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


async def list_files(root: Path, config: Config) -> list[str]:
    """Root-relative names of the files to index under ``root``, sorted."""
    limit = min(parse_size(config.rg_max_filesize), MAX_FILE_BYTES)
    run = await run_rg(
        ["--files", "--null", max_filesize_arg(str(limit))],
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


def scan_files(root: Path, names: list[str], known: Mapping[str, FileState]) -> list[ScannedFile]:
    """Each listed file's state, with its redacted text when it is new or changed.

    A file whose size and modification time match the index is not read at all, so
    re-indexing an unchanged tree costs one ``stat`` per file. Symlinks, files that
    resolve outside ``root`` and binary files are left out. Blocking: run in a thread.
    """
    scanned = []
    for name in names:
        path = root / name
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        before = known.get(name)
        if before is not None and (before.size, before.mtime_ns) == (
            info.st_size,
            info.st_mtime_ns,
        ):
            scanned.append(ScannedFile(name, language_of(name) or "text", before, None))
            continue
        read = _read(path, root)
        if read is None:
            continue
        digest, text = read
        state = FileState(digest, info.st_size, info.st_mtime_ns)
        unchanged = before is not None and before.hash == digest
        language = language_of(name) or "text"
        scanned.append(ScannedFile(name, language, state, None if unchanged else text))
    return scanned


def _read(path: Path, root: Path) -> tuple[str, str] | None:
    """``(content hash, redacted text)``, or None for a binary or unreadable file."""
    try:
        if not path.resolve().is_relative_to(root):
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:_BINARY_PROBE]:
        return None
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return hashlib.sha256(data).hexdigest(), redact(text)
