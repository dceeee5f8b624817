"""Content handles kept on disk, so the next ``octo call`` can read what this one cut.

Each ``octo call`` is its own process: handles kept in memory would die with it. The command
line keeps them instead in a private folder under the user's cache directory (the folder
owner-only, 0700; each record owner-only, 0600), one JSON file per handle, readable for the
same ``ttl`` and under the same roots as in memory (the record keeps its origin). The origin
of an expired handle stays ``ORIGIN_GRACE`` seconds longer, for the hint that repeats its
call; older records, and the oldest beyond ``max_entries`` or ``max_bytes``, are removed as
new ones come.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import anyio

from octo.core.handles import ExpiringHandles
from octo.core.handles import MemoryHandleStore
from octo.core.handles import Origin
from octo.core.handles import Stored
from octo.core.handles import new_handle
from octo.core.shared.handles import ORIGIN_GRACE
from octo.core.shared.handles import origin_document
from octo.core.shared.handles import origin_from

logger = logging.getLogger("octo.shared")

#: What a handle looks like (new_handle's alphabet): anything else names no file here.
_HANDLE = re.compile(r"[A-Za-z0-9_-]{16,64}")


def default_folder() -> Path:
    """``handles`` in octo's folder of the user's cache directory."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("octo")) / "handles"


class DiskHandleStore(ExpiringHandles):
    """:class:`~octo.core.handles.HandleStore` in ``folder``, each handle for ``ttl`` seconds,
    at most ``max_entries`` records and ``max_bytes`` bytes of them.

    The folder is opened without following a link and only when it is the user's own; every
    record is written, read and removed relative to that opened folder. Content the folder
    cannot take (a link or someone else's folder planted in its place, a record beyond the
    byte cap) is kept in this process instead: readable by this call only.
    """

    def __init__(
        self,
        folder: Path,
        ttl: float,
        *,
        max_entries: int = 2000,
        max_bytes: int = 64 * 1024 * 1024,
        # Wall-clock time: the record is read by another process.
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(ttl, max_entries, clock)
        self.folder = folder
        self.max_bytes = max_bytes
        self.local = MemoryHandleStore(ttl, max_entries=max_entries, clock=clock)
        self._refused = False

    async def put(self, content: str, origin: Origin) -> str:
        handle = new_handle()
        record = {"expires": self.expiry(), "content": content}
        record["origin"] = origin_document(origin)
        data = json.dumps(record, ensure_ascii=False).encode()
        try:
            await anyio.to_thread.run_sync(self._write, handle, data)
        except OSError as exc:
            if not self._refused:
                logger.warning("content handles kept in memory only: %s", exc)
                self._refused = True
            return await self.local.put(content, origin)
        return handle

    async def get(self, handle: str) -> Stored | None:
        if not _HANDLE.fullmatch(handle):
            return None
        found = await anyio.to_thread.run_sync(self._read, handle)
        return found if found is not None else await self.local.get(handle)

    def _open_folder(self) -> int:
        """The folder, created owner-only, opened without following a link at its last
        component; OSError when it is a link, not a folder, or not the user's."""
        self.folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with suppress(FileExistsError):
            os.mkdir(self.folder, 0o700)
        folder = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            if os.fstat(folder).st_uid != os.getuid():
                raise PermissionError(f"{self.folder} belongs to another user")
            # mkdir's mode applies only to a folder it creates: an older one is made private too.
            os.fchmod(folder, 0o700)
        except OSError:
            os.close(folder)
            raise
        return folder

    def _write(self, handle: str, data: bytes) -> None:
        if len(data) > self.max_bytes:
            raise OSError(f"a record of {len(data)} bytes is beyond the folder's cap")
        folder = self._open_folder()
        try:
            self._prune(folder, len(data))
            partial = f".{handle}.tmp"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            with os.fdopen(os.open(partial, flags, 0o600, dir_fd=folder), "wb") as file:
                file.write(data)
            os.replace(partial, f"{handle}.json", src_dir_fd=folder, dst_dir_fd=folder)
        finally:
            os.close(folder)

    def _read(self, handle: str) -> Stored | None:
        try:
            folder = self._open_folder()
        except OSError:
            return None
        try:
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
            with os.fdopen(os.open(f"{handle}.json", flags, dir_fd=folder), "rb") as file:
                data = file.read(self.max_bytes + 1)
            if len(data) > self.max_bytes:
                return None
            record = json.loads(data)
            origin = origin_from(record["origin"])
            expires = float(record["expires"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        finally:
            os.close(folder)
        if expires <= self.clock():
            return Stored(None, origin)
        return Stored(str(record["content"]), origin)

    def _prune(self, folder: int, incoming: int) -> None:
        """Remove records past their origin's grace, then the oldest until ``incoming`` more
        bytes fit under max_entries and max_bytes."""
        now = self.clock()
        kept: list[tuple[float, int, str]] = []
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.name.endswith(".json"):
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_mtime + self.ttl + ORIGIN_GRACE <= now:
                    _remove(entry.name, folder)
                else:
                    kept.append((info.st_mtime, info.st_size, entry.name))
        kept.sort()
        total = sum(size for _modified, size, _name in kept) + incoming
        for count, (_modified, size, name) in enumerate(kept):
            if len(kept) - count < self.max_entries and total <= self.max_bytes:
                break
            _remove(name, folder)
            total -= size


def _remove(name: str, folder: int) -> None:
    with suppress(FileNotFoundError):
        os.unlink(name, dir_fd=folder)
