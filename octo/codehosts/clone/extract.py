"""Safe extraction of a host's tar archive into a new folder, or nothing at all.

An archive comes from the network and is refused whole, with an error naming the entry or
the cap, when it holds an absolute path, a ``..`` component, a link pointing outside the
clone, a device or FIFO, a duplicate entry, or more bytes or files than the caps allow.
Installed dependencies (node_modules, virtual environments) are left out and no file is
executable. Entries are written into a fresh temporary folder beside the target, never through a link,
and the folder is renamed into place only when every entry passed: a refusal (or a stop)
removes it, so nothing half-written is ever seen at the target, and nothing outside the
temporary folder is ever touched.
"""

from __future__ import annotations

import gzip
import io
import os
import posixpath
import secrets
import shutil
import tarfile
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

from octo.core.errors import FileTooLargeError
from octo.core.errors import InvalidResponseError
from octo.core.errors import QueryTimeoutError
from octo.core.errors import ToolNotAvailableError

_COPY_CHUNK = 1024 * 1024
#: Folders of installed dependencies and environments, never extracted: a language server
#: would load or run code from them (typescript-language-server prefers the workspace's
#: node_modules/typescript, Python servers run a virtual environment's interpreter).
DEPENDENCY_FOLDERS = frozenset({"node_modules", ".venv", "venv", "site-packages", "dist-packages"})


@dataclass(frozen=True)
class Caps:
    """What one clone may hold, and the settings that raise it (named in the errors)."""

    max_bytes: int
    max_files: int


@dataclass(frozen=True)
class Extracted:
    """What an extraction wrote: unpacked bytes and entries other than folders."""

    size: int
    files: int


class UnsafeArchiveError(InvalidResponseError):
    """The archive holds an entry octo refuses to write."""

    def __init__(self, name: str, why: str) -> None:
        super().__init__(
            f"The archive was refused: entry '{name[:200]}' {why}; nothing was extracted",
            hints=[
                "A code host's archive never holds such entries: check the configured host "
                "(GITHUB_API_URL, GITLAB_HOST) and any proxy in between."
            ],
        )


def _inside(path: str) -> bool:
    """True when the normalised relative ``path`` stays inside the clone."""
    return path != ".." and not path.startswith("../") and not posixpath.isabs(path)


def _relative(member: tarfile.TarInfo) -> str | None:
    """The entry's path inside the clone (the archive's one top folder dropped), or None for
    that top folder; raises UnsafeArchiveError for an absolute path or a ``..``."""
    name = member.name
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchiveError(name, "has an absolute path")
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafeArchiveError(name, "climbs out with '..'")
    return "/".join(parts[1:]) or None


def _wanted(relative: str, sparse_path: str | None) -> bool:
    """True when ``relative`` lies in ``sparse_path`` (or on the way to it)."""
    if sparse_path is None:
        return True
    return (
        relative == sparse_path
        or relative.startswith(f"{sparse_path}/")
        or sparse_path.startswith(f"{relative}/")
    )


def _check_link(member: tarfile.TarInfo, relative: str) -> str:
    """A link's target relative to the clone root; refused when it points outside."""
    target = member.linkname.replace("\\", "/")
    if posixpath.isabs(target):
        raise UnsafeArchiveError(member.name, f"links to an absolute path ({target[:200]})")
    if member.issym():
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(relative), target))
    else:
        # A hard link names another entry of the archive, top folder included.
        parts = target.split("/")
        resolved = ".." if ".." in parts else posixpath.normpath("/".join(parts[1:]) or ".")
    if not _inside(resolved):
        raise UnsafeArchiveError(member.name, f"links outside the clone ({target[:200]})")
    return resolved


class _Tree:
    """What an extraction wrote so far, kept in memory: the folder is new and only this
    writes to it, so each entry costs no lookups on disk."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folders: set[str] = {""}
        self.links: set[str] = set()
        self.written: set[str] = set()

    def _folder(self, relative: str) -> None:
        """Make the folder ``relative`` (and those above it) unless made already."""
        if relative in self.folders:
            return
        self._folder(posixpath.dirname(relative))
        (self.root / relative).mkdir(exist_ok=True)
        self.folders.add(relative)

    def _place(self, relative: str) -> Path:
        """Where ``relative`` goes; refused when a folder on the way is a link (writing
        through it could land anywhere) or the entry came before."""
        above = posixpath.dirname(relative)
        while above:
            if above in self.links:
                raise UnsafeArchiveError(relative, "would be written through a link")
            above = posixpath.dirname(above)
        if relative in self.written or relative in self.links:
            raise UnsafeArchiveError(relative, "appears twice")
        return self.root / relative

    def write(self, tar: tarfile.TarFile, member: tarfile.TarInfo, relative: str) -> None:
        """Write one checked entry: a folder, a regular file (read-only, never executable: a
        clone is material to read, and no server may be pointed at a program in it), or a
        link."""
        dest = self._place(relative)
        if member.isdir():
            self._folder(relative)
            return
        self._folder(posixpath.dirname(relative))
        if member.issym():
            os.symlink(member.linkname, dest)
            self.links.add(relative)
            return
        self.written.add(relative)
        if member.islnk():
            source = _check_link(member, relative)
            if source not in self.written or source in self.links:
                raise UnsafeArchiveError(member.name, "hard-links to no file extracted before it")
            os.link(self.root / source, dest)
            return
        source_file = tar.extractfile(member)
        if source_file is None:
            raise UnsafeArchiveError(member.name, "has no content")
        descriptor = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o444)
        with source_file, open(descriptor, "wb") as out:
            shutil.copyfileobj(source_file, out, _COPY_CHUNK)

    def links_stay_inside(self) -> None:
        """Every link, resolved with the real file system, stays inside (a chain of links
        that each look inside can still point out)."""
        real_root = self.root.resolve()
        for relative in self.links:
            if not (self.root / relative).resolve().is_relative_to(real_root):
                raise UnsafeArchiveError(relative, "links outside the clone through other links")


def extract(
    data: bytes,
    target: Path,
    *,
    caps: Caps,
    sparse_path: str | None = None,
    stop: threading.Event | None = None,
) -> Extracted:
    """Extract the gzipped tar ``data`` to the new folder ``target`` (its parent exists).

    Runs in a worker thread; ``stop`` set from outside ends it early (QueryTimeoutError).
    Raises UnsafeArchiveError, FileTooLargeError naming the cap, or InvalidResponseError for
    an archive that cannot be read; ``target`` is then untouched.
    """
    work = target.parent / f".partial-{secrets.token_hex(8)}"
    work.mkdir()
    tree = _Tree(work)
    size = files = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            for member in tar:
                if stop is not None and stop.is_set():
                    raise QueryTimeoutError("The clone was stopped before it was complete")
                relative = _relative(member)
                if relative is None or not _wanted(relative, sparse_path):
                    continue
                if DEPENDENCY_FOLDERS.intersection(relative.split("/")):
                    continue
                if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
                    raise UnsafeArchiveError(member.name, "is a device, FIFO or special file")
                if member.issym() or member.islnk():
                    _check_link(member, relative)
                if not member.isdir():
                    files += 1
                    size += member.size
                if files > caps.max_files:
                    raise FileTooLargeError(
                        f"The archive holds more than {caps.max_files} files "
                        "(cap OCTO_CLONE_MAX_FILES); nothing was extracted",
                        hints=["Clone a part with sparsePath, or raise OCTO_CLONE_MAX_FILES."],
                    )
                if size > caps.max_bytes:
                    raise FileTooLargeError(
                        f"The archive unpacks to more than {caps.max_bytes} bytes "
                        "(cap OCTO_CLONE_MAX_BYTES); nothing was extracted",
                        hints=["Clone a part with sparsePath, or raise OCTO_CLONE_MAX_BYTES."],
                    )
                tree.write(tar, member, relative)
        tree.links_stay_inside()
        work.rename(target)
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        _remove(work)
        raise InvalidResponseError(
            f"The archive could not be read: {exc}; nothing was extracted",
            hints=["Retry; the download may have been cut short."],
        ) from None
    except OSError as exc:
        _remove(work)
        raise ToolNotAvailableError(
            f"The clone folder could not be written: {exc.strerror or exc}",
            hints=["Check the space and permissions of OCTO_CLONE_DIR."],
        ) from None
    except BaseException:
        _remove(work)
        raise
    return Extracted(size, files)


def _remove(folder: Path) -> None:
    """Remove ``folder`` and all in it, read-only files included."""
    shutil.rmtree(folder, ignore_errors=True)
