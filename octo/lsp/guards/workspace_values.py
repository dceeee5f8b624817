"""The secret values of a workspace's files, made known to the call of every LSP answer
about it: a hover or a diagnostic quotes another module's constant (``Literal["..."]``, a
default) without its name, from a file no answer reads.

The files that may hold a secret are listed by rg with the detectors' prefilter (the walk's
ignore rules; listed again at most every few seconds per workspace), and each one's values
are read through the confined opener, kept by its size and modification time.
"""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
from cachetools import LRUCache
from cachetools import TTLCache

from octo.core.errors import OctoError
from octo.core.files.confined import open_confined
from octo.core.secrets.detectors import PREFILTER
from octo.core.secrets.redaction import learn_values
from octo.core.secrets.redaction import secret_values
from octo.transports.ripgrep import RgPlace
from octo.transports.ripgrep import run_rg

#: rg's listing of the files that may hold a secret (larger files are not source a server
#: quotes from).
_LIST_ARGS = (
    "--files-with-matches",
    "--null",
    "--no-messages",
    "--max-filesize",
    "1M",
    "-e",
    PREFILTER,
    "--",
    ".",
)
#: How long rg may list, and how long a listing of a workspace is used again.
_LIST_MS = 2000
_LISTED_FOR = 10.0
_LISTED: TTLCache[Path, tuple[str, ...]] = TTLCache(maxsize=64, ttl=_LISTED_FOR)
#: Each file's values by (path, modification time, size).
_VALUES: LRUCache[tuple[Path, int, int], list[tuple[str, str]]] = LRUCache(maxsize=10_000)
_LOCK = threading.Lock()


async def learn_workspace(allowed_root: Path, workspace: Path, place: RgPlace) -> None:
    """Make the secret values of ``workspace``'s files (below ``allowed_root``) known to the
    call (rg lists them once ``place``, the call's in the rg queue, has its turn)."""
    with _LOCK:
        names = _LISTED.get(workspace)
    if names is None:
        listed = await run_rg(
            _LIST_ARGS, place=place, cwd=workspace, timeout_ms=_LIST_MS, keep_partial=True
        )
        # Each name ends with NUL: a name rg was cut off in the middle of is left out.
        names = tuple(
            name.decode("utf-8", "surrogateescape")
            for name in listed.stdout.split(b"\0")[:-1]
            if name
        )
        with _LOCK:
            _LISTED[workspace] = names
    if names:
        await anyio.to_thread.run_sync(_learn_files, allowed_root, workspace, names)


def _learn_files(allowed_root: Path, workspace: Path, names: tuple[str, ...]) -> None:
    for name in names:
        path = workspace / name.removeprefix("./")
        try:
            stat = path.stat()
            key = (path, stat.st_mtime_ns, stat.st_size)
            with _LOCK:
                found = _VALUES.get(key)
            if found is None:
                with open_confined(allowed_root, path, name) as opened:
                    text = opened.read_bytes().decode("utf-8", errors="replace")
                found = secret_values(text)
                with _LOCK:
                    _VALUES[key] = found
        except (OSError, OctoError, ValueError):  # gone, swapped for a link, outside the root
            continue
        learn_values(found)
