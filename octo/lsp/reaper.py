"""Last-resort cleanup of language-server process groups.

Every server runs in its own process group (its pid is the group id). The
normal path closes them from the pool; this module kills whatever is still
tracked when the interpreter exits or receives SIGTERM or SIGHUP, so no server
outlives octo (PR_SET_PDEATHSIG only covers the direct child, not its children).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
from types import FrameType
from typing import Any

_groups: set[int] = set()
_atexit_installed = False
_lock = threading.Lock()


def kill_group(pgid: int, sig: int) -> None:
    """Send ``sig`` to process group ``pgid``; a group that is gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def kill_all() -> None:
    """SIGKILL every tracked group (async-signal-safe enough: only killpg calls)."""
    for pgid in list(_groups):
        kill_group(pgid, signal.SIGKILL)
    _groups.clear()


def track(pgid: int | None) -> None:
    """Remember a started server's group; makes sure the exit and signal hooks are in place."""
    if pgid is None:
        return
    _groups.add(pgid)
    guard()


def untrack(pgid: int) -> None:
    _groups.discard(pgid)


def tracked() -> frozenset[int]:
    """The process groups of servers that have not been closed yet."""
    return frozenset(_groups)


def guard() -> None:
    """Install the exit hook once, and the SIGTERM/SIGHUP hooks wherever they are missing.

    Called whenever servers start or are used: a handler installed after ours (a web
    server's, say) replaces it, so ours is put back in front, calling the newcomer after
    the kill. Ignored signals stay ignored, and only the main thread may set handlers.
    """
    global _atexit_installed
    with _lock:
        if not _atexit_installed:
            _atexit_installed = True
            atexit.register(kill_all)
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGHUP):
        current = signal.getsignal(signum)
        if current is not signal.SIG_IGN and not getattr(current, "octo_reaper", False):
            signal.signal(signum, _chained(signum, current))


def _chained(signum: int, previous: Any) -> Any:
    def on_signal(received: int, frame: FrameType | None) -> Any:
        kill_all()
        if callable(previous):
            return previous(received, frame)
        # Default action: die by the signal, as if we had not been here.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return None

    on_signal.octo_reaper = True  # type: ignore[attr-defined]
    return on_signal
