"""The secret values of a workspace's files, made known to the call of every LSP answer
about it: a hover or a diagnostic quotes another module's constant (``Literal["..."]``, a
default) without its name, from a file no answer reads.

The files that may hold a secret are listed by rg with the detectors' prefilter (the walk's
ignore rules; listed again at most every few seconds per workspace), and each one's values
are read through the confined opener, kept by its size and modification time. A workspace's
values are indexed once (:class:`~octo.core.secrets.redaction.ValueIndex`), so a call pays
for the few its answers hold, not for a pattern of thousands (the standard library's). The
files that held values are checked (``stat``) on every call, the others with each new
listing, as a file new to the listing is: a ``stat`` of every listed file on every call
cost more than the answer (7,800 files under the standard library).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

import anyio
from cachetools import LRUCache
from cachetools import TTLCache

from octo.core.errors import OctoError
from octo.core.files.confined import open_confined
from octo.core.secrets.detectors import PREFILTER
from octo.core.secrets.redaction import ValueIndex
from octo.core.secrets.redaction import learn_index
from octo.core.secrets.redaction import secret_values
from octo.core.secrets.redaction import worth_hiding
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
#: Each listed file: its name as rg printed it, and its path.
_Listing = tuple[tuple[str, str], ...]
_LISTED: TTLCache[Path, _Listing] = TTLCache(maxsize=64, ttl=_LISTED_FOR)
#: Each file's values by (path, modification time, size).
_VALUES: LRUCache[tuple[str, int, int], list[tuple[str, str]]] = LRUCache(maxsize=10_000)
_LOCK = threading.Lock()


@dataclass(frozen=True)
class _Indexed:
    """A workspace's values indexed: from which listing, and the files that held values
    (path, modification time, size), each checked again on every call."""

    listing: _Listing
    holding: frozenset[tuple[str, int, int]]
    index: ValueIndex


_INDEXES: LRUCache[tuple[Path, Path], _Indexed] = LRUCache(maxsize=16)


async def learn_workspace(allowed_root: Path, workspace: Path, place: RgPlace) -> None:
    """Make the secret values of ``workspace``'s files (below ``allowed_root``) known to the
    call (rg lists them once ``place``, the call's in the rg queue, has its turn)."""
    learn_index(await workspace_index(allowed_root, workspace, place))


async def workspace_index(allowed_root: Path, workspace: Path, place: RgPlace) -> ValueIndex:
    """The secret values of ``workspace``'s files (below ``allowed_root``), indexed again when
    a file that held values changed (one ``stat`` each per call) and with each new listing
    (then a listed file that held none is read again when it changed, as a new one is)."""
    with _LOCK:
        listing = _LISTED.get(workspace)
    if listing is None:
        listed = await run_rg(
            _LIST_ARGS, place=place, cwd=workspace, timeout_ms=_LIST_MS, keep_partial=True
        )
        # Each name ends with NUL: a name rg was cut off in the middle of is left out.
        names = (
            name.decode("utf-8", "surrogateescape")
            for name in listed.stdout.split(b"\0")[:-1]
            if name
        )
        listing = tuple((name, str(workspace / name.removeprefix("./"))) for name in names)
        with _LOCK:
            _LISTED[workspace] = listing
    return await anyio.to_thread.run_sync(_indexed, allowed_root, workspace, listing)


def _indexed(allowed_root: Path, workspace: Path, listing: _Listing) -> ValueIndex:
    with _LOCK:
        kept = _INDEXES.get((allowed_root, workspace))
    if kept is not None and kept.listing is listing and _unchanged(kept.holding):
        return kept.index
    found = []
    for name, path in listing:
        state = _file_state(path)
        if state is not None and (values := _file_values(allowed_root, name, (path, *state))):
            found.append(((path, *state), values))
    holding = frozenset(held for held, _ in found)
    if kept is not None and kept.holding == holding:
        index = kept.index  # listed again, the same files hold the same values
    else:
        index = ValueIndex(value for _, values in found for value in values)
    with _LOCK:
        _INDEXES[allowed_root, workspace] = _Indexed(listing, holding, index)
    return index


def _unchanged(files: frozenset[tuple[str, int, int]]) -> bool:
    return all(_file_state(path) == (mtime, size) for path, mtime, size in files)


def _file_state(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except (OSError, ValueError):  # gone, or a name no file can have
        return None
    return stat.st_mtime_ns, stat.st_size


def _file_values(allowed_root: Path, name: str, key: tuple[str, int, int]) -> list[tuple[str, str]]:
    """The values of the file ``name`` (as listed) at ``key`` (its path, modification time
    and size), read the confined way (none when it cannot be)."""
    with _LOCK:
        found = _VALUES.get(key)
    if found is None:
        try:
            with open_confined(allowed_root, Path(key[0]), name) as opened:
                text = opened.read_bytes().decode("utf-8", errors="replace")
        except (OSError, OctoError, ValueError):  # gone, swapped for a link, outside the root
            return []
        # The values hidden only beside their name are not the workspace's to hide.
        found = [pair for pair in secret_values(text) if worth_hiding(pair[0])]
        with _LOCK:
            _VALUES[key] = found
    return found
