"""Safe extraction of a host's tar archive into a new folder, or nothing at all; run in a
child process (:mod:`octo.codehosts.clone.unpack` starts it as ``python -I -S extract.py``),
so it imports nothing but the standard library.

An archive comes from the network. The child limits its own memory (``RLIMIT_AS``) before
it reads a byte, and the parent kills it at the query's deadline: ``tarfile``'s parsing
(quadratic on a PAX header in this Python, CVE-2024-6232, and holding the interpreter
lock) can neither freeze the server nor grow it. Extended headers (PAX, GNU long name and
long link) are refused past :data:`MAX_HEADER_BYTES` before ``tarfile`` reads them, and
count against the byte cap.

The archive is refused whole, with an error naming the entry or the cap, when it holds an
absolute path, a ``..`` component, a path too long or too deep, a link pointing outside
the clone or a loop of links, a device or FIFO, a duplicate entry, entries outside one top
folder, or more bytes or entries than the caps allow (folders count as entries and as
:data:`FOLDER_BYTES` each). Installed dependencies (node_modules, virtual environments)
are left out; files are owner-read-only, folders owner-only. Entries are written into the
new work folder, never through a link; a refusal removes it.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import posixpath
import resource
import shutil
import sys
import tarfile
import zlib
from dataclasses import asdict
from dataclasses import dataclass
from pathlib import Path
from typing import cast

_COPY_CHUNK = 1024 * 1024
#: Folders of installed dependencies and environments, never extracted: a language server
#: would load or run code from them (typescript-language-server prefers the workspace's
#: node_modules/typescript, Python servers run a virtual environment's interpreter).
DEPENDENCY_FOLDERS = frozenset({"node_modules", ".venv", "venv", "site-packages", "dist-packages"})
#: The most one PAX or GNU long-name/long-link header may hold, and all global PAX headers
#: together: a code host's names fit many times over, and ``tarfile`` parses no more (its
#: PAX parser is quadratic, and it applies the global headers again to every entry).
MAX_HEADER_BYTES = 8 * 1024
#: Extended headers in a row before one entry (each refers to the next header).
MAX_HEADER_CHAIN = 8
#: The longest entry path (bytes), one name in it, and the most folders deep.
MAX_PATH_BYTES = 1024
MAX_NAME_BYTES = 255
MAX_DEPTH = 64
#: What one folder counts against the byte cap: the block it takes on common file systems.
FOLDER_BYTES = 4096
#: The child's address space: Python, tarfile and one read buffer, whatever the archive.
MEMORY_LIMIT = 112 * 1024 * 1024

#: The kinds of refusal the child reports; the parent maps each to an error code.
UNSAFE, TOO_LARGE, UNREADABLE, UNWRITABLE = "unsafe", "too-large", "unreadable", "unwritable"


@dataclass(frozen=True)
class Caps:
    """What one clone may hold, and the settings that raise it (named in the errors)."""

    max_bytes: int
    max_files: int


@dataclass(frozen=True)
class Extracted:
    """What an extraction wrote: bytes (file contents, headers and folders), files (entries
    other than folders) and entries (folders included)."""

    size: int
    files: int
    entries: int


class Refused(Exception):
    """The archive was refused: ``kind`` (:data:`UNSAFE`, ...), a message and a hint."""

    def __init__(self, kind: str, message: str, hint: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.hint = hint


_HOST_HINT = (
    "A code host's archive never holds such entries: check the configured host "
    "(GITHUB_API_URL, GITLAB_HOST) and any proxy in between."
)


def unsafe(name: str, why: str) -> Refused:
    """The refusal of entry ``name`` for ``why``."""
    return Refused(
        UNSAFE,
        f"The archive was refused: entry '{name[:200]}' {why}; nothing was extracted",
        _HOST_HINT,
    )


def _too_large(what: str, setting: str) -> Refused:
    return Refused(
        TOO_LARGE,
        f"The archive {what} (cap {setting}); nothing was extracted",
        f"Clone a part with sparsePath, or raise {setting}.",
    )


class _Budget:
    """Bytes and entries counted so far against the caps."""

    def __init__(self, caps: Caps) -> None:
        self.caps = caps
        self.size = self.files = self.entries = 0

    def add(self, size: int, *, folder: bool = False, entry: bool = True) -> None:
        self.size += size
        if entry:
            self.entries += 1
            self.files += not folder
        if self.entries > self.caps.max_files:
            raise _too_large(
                f"holds more than {self.caps.max_files} entries (files and folders)",
                "OCTO_CLONE_MAX_FILES",
            )
        if self.size > self.caps.max_bytes:
            raise _too_large(
                f"unpacks to more than {self.caps.max_bytes} bytes (files, headers and folders)",
                "OCTO_CLONE_MAX_BYTES",
            )


class _CappedTarFile(tarfile.TarFile):
    """A TarFile reading ``fileobj`` forward only, whose extended headers count against
    ``budget``."""

    def __init__(self, fileobj: gzip.GzipFile, budget: _Budget) -> None:
        self.budget = budget
        #: Extended headers read since the last entry, and global header bytes so far.
        self.chain = self.global_bytes = 0
        super().__init__(fileobj=fileobj, mode="r", tarinfo=_CappedTarInfo)


#: tarfile's own readers of extended headers (private: what the overrides below call).
_TARFILE_READS = vars(tarfile.TarInfo)


class _CappedTarInfo(tarfile.TarInfo):
    """A TarInfo whose extended headers are checked before ``tarfile`` reads them."""

    def _check(self, archive: tarfile.TarFile) -> None:
        capped = cast(_CappedTarFile, archive)
        if self.size > MAX_HEADER_BYTES:
            raise unsafe(
                self.name,
                f"has an extended header of {self.size} bytes (at most {MAX_HEADER_BYTES})",
            )
        if self.type == tarfile.XGLTYPE:
            # Global headers apply to every later entry, so tarfile reads them again for
            # each: their sum is capped, not each one.
            capped.global_bytes += self.size
            if capped.global_bytes > MAX_HEADER_BYTES:
                raise unsafe(self.name, f"brings the global headers over {MAX_HEADER_BYTES} bytes")
        capped.chain += 1
        if capped.chain > MAX_HEADER_CHAIN:
            raise unsafe(
                self.name, f"follows more than {MAX_HEADER_CHAIN} extended headers in a row"
            )
        capped.budget.add(self.size, entry=False)

    def _proc_gnulong(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
        self._check(archive)
        return cast(tarfile.TarInfo, _TARFILE_READS["_proc_gnulong"](self, archive))

    def _proc_pax(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
        self._check(archive)
        return cast(tarfile.TarInfo, _TARFILE_READS["_proc_pax"](self, archive))

    def _proc_sparse(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
        raise unsafe(self.name, "is a sparse file")


def _inside(path: str) -> bool:
    """True when the normalised relative ``path`` stays inside the clone."""
    return path != ".." and not path.startswith("../") and not posixpath.isabs(path)


def _parts(member: tarfile.TarInfo) -> list[str]:
    """The entry's path components; raises Refused for an absolute, climbing, too long or
    too deep path."""
    name = member.name
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise unsafe(name, "has an absolute path")
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise unsafe(name, "climbs out with '..'")
    if len(parts) > MAX_DEPTH:
        raise unsafe(name, f"is {len(parts)} folders deep (at most {MAX_DEPTH})")
    if len(name.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
        raise unsafe(name, f"has a path longer than {MAX_PATH_BYTES} bytes")
    if any(len(p.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for p in parts):
        raise unsafe(name, f"has a name longer than {MAX_NAME_BYTES} bytes")
    return parts


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
        raise unsafe(member.name, f"links to an absolute path ({target[:200]})")
    if member.issym():
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(relative), target))
    else:
        # A hard link names another entry of the archive, top folder included.
        parts = target.split("/")
        resolved = ".." if ".." in parts else posixpath.normpath("/".join(parts[1:]) or ".")
    if not _inside(resolved):
        raise unsafe(member.name, f"links outside the clone ({target[:200]})")
    return resolved


class _Tree:
    """What an extraction wrote so far, kept in memory: the folder is new and only this
    writes to it, so each entry costs no lookups on disk."""

    def __init__(self, root: Path, budget: _Budget) -> None:
        self.root = root
        self.budget = budget
        self.folders: set[str] = {""}
        self.links: set[str] = set()
        self.written: set[str] = set()

    def _folder(self, relative: str) -> None:
        """Make the folder ``relative`` and those above it not made yet, each counted."""
        missing: list[str] = []
        while relative not in self.folders:
            missing.append(relative)
            relative = posixpath.dirname(relative)
        for folder in reversed(missing):
            self.budget.add(FOLDER_BYTES, folder=True)
            (self.root / folder).mkdir(mode=0o700)
            self.folders.add(folder)

    def _place(self, relative: str) -> Path:
        """Where ``relative`` goes; refused when a folder on the way is a link (writing
        through it could land anywhere) or the entry came before."""
        above = posixpath.dirname(relative)
        while above:
            if above in self.links:
                raise unsafe(relative, "would be written through a link")
            above = posixpath.dirname(above)
        if relative in self.written or relative in self.links:
            raise unsafe(relative, "appears twice")
        return self.root / relative

    def write(self, tar: tarfile.TarFile, member: tarfile.TarInfo, relative: str) -> None:
        """Write one checked entry: a folder, a regular file (owner-read-only, never
        executable: a clone is material to read, and no server may be pointed at a program
        in it), or a link."""
        dest = self._place(relative)
        if member.isdir():
            self._folder(relative)
            return
        self._folder(posixpath.dirname(relative))
        self.budget.add(0 if member.issym() or member.islnk() else member.size)
        if member.issym():
            os.symlink(member.linkname, dest)
            self.links.add(relative)
            return
        self.written.add(relative)
        if member.islnk():
            source = _check_link(member, relative)
            if source not in self.written or source in self.links:
                raise unsafe(member.name, "hard-links to no file extracted before it")
            os.link(self.root / source, dest)
            return
        source_file = tar.extractfile(member)
        if source_file is None:
            raise unsafe(member.name, "has no content")
        descriptor = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o400)
        with source_file, open(descriptor, "wb") as out:
            shutil.copyfileobj(source_file, out, _COPY_CHUNK)

    def links_stay_inside(self) -> None:
        """Every link, resolved with the real file system, stays inside (a chain of links
        that each look inside can still point out) and ends (no loop)."""
        real_root = self.root.resolve()
        for relative in self.links:
            try:
                real = (self.root / relative).resolve(strict=False)
            except (RuntimeError, OSError):
                raise unsafe(relative, "is a loop of symbolic links") from None
            if not real.is_relative_to(real_root):
                raise unsafe(relative, "links outside the clone through other links")


def _next(tar: _CappedTarFile) -> tarfile.TarInfo | None:
    """The next entry (its chain of extended headers counted afresh), None at the end."""
    tar.chain = 0
    member = tar.next()
    # tarfile keeps every entry it read; an extraction needs only the current one.
    vars(tar)["members"].clear()
    return member


def extract(archive: Path, work: Path, *, caps: Caps, sparse_path: str | None = None) -> Extracted:
    """Extract the gzipped tar at ``archive`` into the new folder ``work`` (its parent
    exists). Raises Refused; ``work`` is then removed."""
    work.mkdir(mode=0o700)
    budget = _Budget(caps)
    tree = _Tree(work, budget)
    top: str | None = None
    try:
        with gzip.open(archive, "rb") as unzipped, _CappedTarFile(unzipped, budget) as tar:
            while (member := _next(tar)) is not None:
                parts = _parts(member)
                if not parts:
                    continue
                if top is None:
                    top = parts[0]
                if parts[0] != top or (len(parts) == 1 and not member.isdir()):
                    raise unsafe(
                        member.name,
                        f"lies outside the archive's top folder '{top[:200]}' (a code host's "
                        "archive holds one folder, the repository)",
                    )
                relative = "/".join(parts[1:])
                if not relative or not _wanted(relative, sparse_path):
                    continue
                if DEPENDENCY_FOLDERS.intersection(parts[1:]):
                    continue
                if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
                    raise unsafe(member.name, "is a device, FIFO or special file")
                if member.issym() or member.islnk():
                    _check_link(member, relative)
                tree.write(tar, member, relative)
        if top is None:
            raise Refused(
                UNREADABLE,
                "The archive holds no entries at all (a code host's archive holds the "
                "repository's folder); nothing was extracted",
                "Retry; check the configured host and any proxy in between.",
            )
        tree.links_stay_inside()
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        _remove(work)
        raise Refused(
            UNREADABLE,
            f"The archive could not be read: {exc}; nothing was extracted",
            "Retry; the download may have been cut short.",
        ) from None
    except MemoryError:
        _remove(work)
        raise Refused(
            TOO_LARGE,
            f"The archive needs more than the {MEMORY_LIMIT >> 20} MiB an extraction may use; "
            "nothing was extracted",
            _HOST_HINT,
        ) from None
    except OSError as exc:
        _remove(work)
        raise Refused(
            UNWRITABLE,
            f"The clone folder could not be written: {exc.strerror or exc}",
            "Check the space and permissions of OCTO_CLONE_DIR.",
        ) from None
    except BaseException:
        _remove(work)
        raise
    return Extracted(budget.size, budget.files, budget.entries)


def _remove(folder: Path) -> None:
    """Remove ``folder`` and all in it, read-only files included."""
    shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    """The child: ``extract.py ARCHIVE WORK MAX_BYTES MAX_FILES [SPARSE_PATH]``; one JSON
    line on stdout (the Extracted, or ``{"refused": kind, "message", "hint"}``)."""
    # A system that cannot lower it (macOS) runs without: the deadline still bounds the child.
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    archive, work, max_bytes, max_files, *sparse = argv
    caps = Caps(int(max_bytes), int(max_files))
    try:
        done = extract(
            Path(archive), Path(work), caps=caps, sparse_path=sparse[0] if sparse else None
        )
    except Refused as refused:
        answer = {"refused": refused.kind, "message": refused.message, "hint": refused.hint}
    else:
        answer = asdict(done)
    print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
