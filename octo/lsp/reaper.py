"""Last-resort cleanup of language-server process groups.

Every server runs in its own process group (its pid is the group id). The
normal path closes them from the pool; this module kills whatever is still
tracked when the interpreter exits or receives SIGTERM, so no server outlives
octo (PR_SET_PDEATHSIG only covers the direct child, not its children).
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
_installed = False
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
    """Remember a started server's group; installs the exit and SIGTERM hooks once."""
    if pgid is None:
        return
    _groups.add(pgid)
    _install()


def untrack(pgid: int) -> None:
    _groups.discard(pgid)


def tracked() -> frozenset[int]:
    """The process groups of servers that have not been closed yet."""
    return frozenset(_groups)


def _install() -> None:
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    atexit.register(kill_all)
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum: int, frame: FrameType | None) -> Any:
        kill_all()
        if callable(previous):
            return previous(signum, frame)
        if previous == signal.SIG_IGN:
            return None
        # Default action: die by SIGTERM, as if we had not been here.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return None

    signal.signal(signal.SIGTERM, on_sigterm)
