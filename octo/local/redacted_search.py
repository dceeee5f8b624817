"""Searches answer as if they ran over redacted text, so no count can confirm a secret.

rg searches the files themselves, where a secret is still whole: a pattern extended one
character at a time would count its way through a token every answer shows redacted. So
the matching files that hold a secret detector (one more rg pass over just them, with the
detectors as its pattern) are searched again over their redacted text: a match that touches a
redacted span counts, and is shown, as matching the marker only. Files without a secret,
nearly all of them, cost only that one pass.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import ExitStack

import anyio
from cachetools import LRUCache

from octo.core.errors import OctoError
from octo.core.files.confined import Opened
from octo.core.files.confined import open_below
from octo.core.secrets.detectors import PREFILTER
from octo.core.secrets.redaction import as_shown
from octo.core.secrets.redaction import relearn
from octo.transports.ripgrep import RgPlace
from octo.transports.ripgrep import argument_runs
from octo.transports.ripgrep import run_rg

#: What identifies a file's content: device, inode, size, modification and change times.
ContentKey = tuple[int, ...]


#: rg lists the files that may hold a secret (the detectors' literal prefilter).
_FIND_ARGS = ("--files-with-matches", "--null", "--no-messages", "--text", "-e", PREFILTER)


#: Whether a file holds a secret, by what identifies its content (device, inode, size,
#: modification and change times): a tree searched again is not read again to tell.
_VERDICTS: LRUCache[ContentKey, bool] = LRUCache(maxsize=200_000)
_VERDICTS_LOCK = threading.Lock()


def _content_keys(directory: Opened, args: Sequence[bytes]) -> dict[bytes, ContentKey]:
    keys: dict[bytes, ContentKey] = {}
    for arg in args:
        try:
            st = os.stat(arg, dir_fd=directory.fd, follow_symlinks=False)
        except OSError:
            continue
        keys[arg] = content_key(st)
    return keys


#: The redacted text of files that hold a secret, by content key, up to 64 MiB: the few such
#: files a search meets again are not redacted again.
_REDACTED: LRUCache[ContentKey, bytes] = LRUCache(maxsize=64 << 20, getsizeof=len)


def content_key(st: os.stat_result) -> ContentKey:
    """What identifies the content of the file ``st`` describes."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def redacted_bytes(source: Opened) -> bytes | None:
    """The redacted content of ``source``, None when redaction changes nothing (blocking)."""
    key = content_key(os.fstat(source.fd))
    with _VERDICTS_LOCK:
        if _VERDICTS.get(key) is False:
            return None
        cached = _REDACTED.get(key)
    if cached is not None:
        relearn(cached.decode("utf-8", "surrogateescape"))  # for the call's other answers
        return cached
    text = bytes(source.read_bytes()).decode("utf-8", "surrogateescape")
    hidden = as_shown(text)
    found = None if hidden == text else hidden.encode("utf-8", "surrogateescape")
    with _VERDICTS_LOCK:
        _VERDICTS[key] = found is not None
        if found is not None and len(found) <= _REDACTED.maxsize:
            _REDACTED[key] = found
    return found


def _exact(directory: Opened, suspects: Iterable[bytes]) -> dict[bytes, bool]:
    """Whether redaction changes each of ``suspects`` (opened below ``directory``)."""
    verdicts = {}
    for arg in suspects:
        try:
            source = open_below(directory, os.fsdecode(arg))
        except OctoError:
            continue
        with source:
            if source.is_file:
                verdicts[arg] = redacted_bytes(source) is not None
    return verdicts


async def secret_files(
    directory: Opened,
    args: Sequence[bytes],
    *,
    place: RgPlace,
    cwd: str,
    pass_fds: Sequence[int],
    timeout_ms: int,
    keys: Mapping[bytes, ContentKey] | None = None,
) -> dict[bytes, ContentKey | None]:
    """The files ``args`` (below ``directory``, as rg printed them) that hold a secret, with
    their content keys (None: the file could not be looked at).

    Files seen before with the same content keys are known; the others go through the
    prefilter (one rg run) and those it flags are redacted to tell (a worker thread).
    ``keys``: the content keys of ``args`` where the caller has stat'ed them already (one
    missing: the file could not be looked at); else each is stat'ed here.
    """
    if keys is None:
        keys = await anyio.to_thread.run_sync(_content_keys, directory, args)
    with _VERDICTS_LOCK:
        known = {arg: _VERDICTS.get(key) for arg, key in keys.items()}
    unknown = [arg for arg in args if known.get(arg) is None]
    suspects = await files_holding_secrets(
        [os.fsdecode(arg) for arg in unknown],
        place=place,
        cwd=cwd,
        pass_fds=pass_fds,
        timeout_ms=timeout_ms,
    )
    # (Nearly always none: no worker thread then.)
    exact = await anyio.to_thread.run_sync(_exact, directory, suspects) if suspects else {}
    with _VERDICTS_LOCK:
        for arg in unknown:
            if arg in keys and (arg not in suspects or arg in exact):
                _VERDICTS[keys[arg]] = exact.get(arg, False)
    # A suspect that could not be told (gone, or not a file now) counts as holding one.
    return {arg: keys.get(arg) for arg in args if known.get(arg) or exact.get(arg, arg in suspects)}


async def files_holding_secrets(
    targets: Sequence[str],
    *,
    place: RgPlace,
    cwd: str | None,
    pass_fds: Sequence[int],
    timeout_ms: int,
) -> set[bytes]:
    """The ``targets`` (as rg prints them) that may hold a secret: a superset, told apart
    when their redacted copies are made (:meth:`RedactedCopies.add`)."""
    found: set[bytes] = set()
    for run in argument_runs(targets):
        done = await run_rg(
            [*_FIND_ARGS, "--", *run],
            place=place,
            cwd=cwd,
            timeout_ms=timeout_ms,
            pass_fds=pass_fds,
        )
        found.update(name for name in done.stdout.split(b"\0") if name)
    return found


async def tree_secret_files(
    targets: Sequence[str],
    *,
    place: RgPlace,
    cwd: str,
    pass_fds: Sequence[int],
    timeout_ms: int,
    walk_args: Sequence[str],
) -> tuple[set[bytes], bool]:
    """The files of a searched tree (``targets``, directories walked with ``walk_args``)
    that may hold a secret, as rg prints them, and whether rg finished (else: those it
    found before ``timeout_ms``)."""
    found: set[bytes] = set()
    complete = True
    for run in argument_runs(targets):
        done = await run_rg(
            [*_FIND_ARGS, *walk_args, "--", *run],
            place=place,
            cwd=cwd,
            timeout_ms=timeout_ms,
            pass_fds=pass_fds,
            keep_partial=True,
        )
        # Each name ends with NUL: a name rg was cut off in the middle of is left out.
        found.update(name for name in done.stdout.split(b"\0")[:-1] if name)
        complete = complete and not done.timed_out
    return found, complete


#: Matching lines of a query over a file's redacted text, by the file's content key and how
#: the query matches (pattern and rg's matching flags): the same search of an unchanged tree
#: again copies and searches no file.
_COUNTS: LRUCache[tuple[ContentKey, tuple[str, ...]], int] = LRUCache(maxsize=100_000)


def known_counts(
    keys: Mapping[bytes, ContentKey | None], matching: tuple[str, ...]
) -> dict[bytes, int]:
    """The counts over redacted text already known for the files ``keys`` (by content key)
    of the search ``matching``."""
    with _VERDICTS_LOCK:
        found = {arg: _COUNTS.get((key, matching)) for arg, key in keys.items() if key}
    return {arg: count for arg, count in found.items() if count is not None}


def remember_counts(
    keys: Mapping[bytes, ContentKey], matching: tuple[str, ...], counts: Mapping[bytes, int]
) -> None:
    """Keep the counts of the search ``matching`` over the redacted copies ``keys`` (their
    files' content keys when copied); a copied file not in ``counts`` has none."""
    with _VERDICTS_LOCK:
        for arg, key in keys.items():
            _COUNTS[key, matching] = counts.get(arg, 0)


class RedactedCopies:
    """Redacted copies of files, each an unnamed temporary file a child reads by its
    descriptor (``/proc/self/fd/N``); closed with this object."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self.fds: dict[bytes, int] = {}
        #: The content key of each copied file when it was copied.
        self.keys: dict[bytes, ContentKey] = {}

    def add(self, key: bytes, source: Opened) -> None:
        """A redacted copy of ``source`` (as octo opened it) under ``key``, unless
        redaction changes nothing in it (blocking)."""
        content = content_key(os.fstat(source.fd))
        hidden = redacted_bytes(source)
        if hidden is None:
            return
        self.keys[key] = content
        copy = self._stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115 - kept open
        copy.write(hidden)
        copy.flush()
        copy.seek(0)
        self.fds[key] = copy.fileno()

    def path(self, key: bytes) -> str:
        """The copy's name for a child that inherits its descriptor."""
        return f"/proc/self/fd/{self.fds[key]}"

    def close(self) -> None:
        self._stack.close()
        self.fds.clear()

    def __enter__(self) -> RedactedCopies:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


async def redacted_copies(opened: Mapping[bytes, Opened]) -> RedactedCopies:
    """Redacted copies of the ``opened`` files (by key), made in one worker-thread hop; the
    caller closes them."""

    def copy_all() -> None:
        for key, source in opened.items():
            copies.add(key, source)

    copies = RedactedCopies()
    try:
        await anyio.to_thread.run_sync(copy_all)
    except BaseException:
        copies.close()
        raise
    return copies
