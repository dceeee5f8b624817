"""Content handles kept on disk, so the next ``octo call`` can read what this one cut.

Each ``octo call`` is its own process: handles kept in memory would die with it. The command
line keeps them instead in a private folder under the user's cache directory (the folder
owner-only, 0700; each record owner-only, 0600), one JSON file per handle, readable for the
same ``ttl`` and under the same roots as in memory (the record keeps its origin). The origin
of an expired handle stays ``ORIGIN_GRACE`` seconds longer, for the hint that repeats its
call; older records, and the oldest beyond ``max_entries``, are removed as new ones come.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from octo.core.handles import ExpiringHandles
from octo.core.handles import Origin
from octo.core.handles import Stored
from octo.core.handles import new_handle
from octo.core.shared.handles import ORIGIN_GRACE
from octo.core.shared.handles import origin_document
from octo.core.shared.handles import origin_from

#: What a handle looks like (new_handle's alphabet): anything else names no file here.
_HANDLE = re.compile(r"[A-Za-z0-9_-]{16,64}")


def default_folder() -> Path:
    """``handles`` in octo's folder of the user's cache directory."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("octo")) / "handles"


class DiskHandleStore(ExpiringHandles):
    """:class:`~octo.core.handles.HandleStore` in ``folder``, each handle for ``ttl`` seconds."""

    def __init__(
        self,
        folder: Path,
        ttl: float,
        *,
        max_entries: int = 2000,
        # Wall-clock time: the record is read by another process.
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(ttl, max_entries, clock)
        self.folder = folder

    async def put(self, content: str, origin: Origin) -> str:
        handle = new_handle()
        record = {"expires": self.expiry(), "content": content}
        record["origin"] = origin_document(origin)
        await anyio.to_thread.run_sync(self._write, handle, record)
        return handle

    async def get(self, handle: str) -> Stored | None:
        if not _HANDLE.fullmatch(handle):
            return None
        return await anyio.to_thread.run_sync(self._read, handle)

    def _private_folder(self) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        # mkdir's mode applies only to a folder it creates: an older one is made private too.
        os.chmod(self.folder, 0o700)
        return self.folder

    def _write(self, handle: str, record: dict[str, Any]) -> None:
        folder = self._private_folder()
        self._prune(folder)
        partial = folder / f".{handle}.tmp"
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(record, file, ensure_ascii=False)
        partial.replace(folder / f"{handle}.json")

    def _read(self, handle: str) -> Stored | None:
        try:
            record = json.loads((self.folder / f"{handle}.json").read_text(encoding="utf-8"))
            origin = origin_from(record["origin"])
            expires = float(record["expires"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if expires <= self.clock():
            return Stored(None, origin)
        return Stored(str(record["content"]), origin)

    def _prune(self, folder: Path) -> None:
        """Remove records past their origin's grace, then the oldest beyond max_entries."""
        now = self.clock()
        kept: list[tuple[float, Path]] = []
        for path in folder.glob("*.json"):
            try:
                modified = path.stat().st_mtime
            except OSError:
                continue
            if modified + self.ttl + ORIGIN_GRACE <= now:
                path.unlink(missing_ok=True)
            else:
                kept.append((modified, path))
        kept.sort()
        for _modified, path in kept[: max(0, len(kept) - self.max_entries + 1)]:
            path.unlink(missing_ok=True)
