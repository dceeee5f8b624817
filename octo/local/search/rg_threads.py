"""How many threads a search's rg runs with: one where the work is too small to repay more.

rg starts a searching thread per core. Over a few hundred small files its whole search takes
a few milliseconds on one thread, less than starting and joining the others costs (1.5 ms
a run on two cores: benchmarks/bench_peer.py's regex task over email/, 117 files, 0.4 MB).
The size of a page is known from the files octo opened for it, that of the files a find chose
from their lstat, and a walked tree's from rg's own stats the last time the same walk ran. A
first walk, or one cut short, keeps rg's default: a tree that has grown since costs one
slower walk, which then tells its new size.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from cachetools import LRUCache

from octo.core.files.confined import Opened

#: The most files and bytes rg searches on one thread.
SMALL_FILES = 300
SMALL_BYTES = 1 << 20

_ONE_THREAD = "--threads=1"

#: A walk: the walked directory (device, inode), rg's targets in it and its walk flags.
WalkKey = tuple[int, int, tuple[str, ...], tuple[str, ...]]

#: Walks known to be small, by what they walk.
_SMALL_WALKS: LRUCache[WalkKey, bool] = LRUCache(maxsize=4096)
#: (Gateways of one process may run in several threads' event loops.)
_SMALL_WALKS_LOCK = threading.Lock()


def is_small(files: int, size: int) -> bool:
    """Whether ``files`` files of ``size`` bytes in all are searched faster on one thread."""
    return files <= SMALL_FILES and size <= SMALL_BYTES


def files_threads(files: int, size: int | None) -> list[str]:
    """rg's thread flag for searching ``files`` files of ``size`` bytes (None: not known)."""
    return [_ONE_THREAD] if size is not None and is_small(files, size) else []


def page_threads(opened: Sequence[Opened]) -> list[str]:
    """rg's thread flag for searching the ``opened`` files."""
    return files_threads(len(opened), sum(source.stat.st_size for source in opened))


def walk_key(directory: Opened, targets: Sequence[str], walk_args: Sequence[str]) -> WalkKey:
    """What identifies a walk of ``targets`` below ``directory`` with ``walk_args``."""
    return (directory.stat.st_dev, directory.stat.st_ino, tuple(targets), tuple(walk_args))


def walk_threads(key: WalkKey) -> list[str]:
    """rg's thread flag for the walk ``key``: one thread when it was small last time."""
    with _SMALL_WALKS_LOCK:
        small = _SMALL_WALKS.get(key, False)
    return [_ONE_THREAD] if small else []


def learn_walk(key: WalkKey, files: int | None, size: int | None) -> None:
    """Remember what the walk ``key`` searched (None: not known, rg was cut short)."""
    small = files is not None and size is not None and is_small(files, size)
    with _SMALL_WALKS_LOCK:
        if small:
            _SMALL_WALKS[key] = True
        else:
            _SMALL_WALKS.pop(key, None)
