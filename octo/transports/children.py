"""How many children octo runs right now, by kind (rg, lsp): what the metrics report as
processes in use.

A child is registered when it starts and counted while it has no exit status; nothing
has to remember to unregister it (a crash, a kill, a forgotten process all end the count),
and a process object that is gone is forgotten with it.
"""

from __future__ import annotations

import weakref
from typing import Protocol


class Child(Protocol):
    """A started process (asyncio's or anyio's): its exit status, None while it runs."""

    @property
    def returncode(self) -> int | None: ...


_children: dict[str, weakref.WeakSet[Child]] = {}


def track(kind: str, process: Child) -> None:
    """Count ``process`` as a running child of ``kind`` until it exits."""
    _children.setdefault(kind, weakref.WeakSet()).add(process)


def running() -> dict[str, int]:
    """The children running now, by kind (every kind ever started, 0 included)."""
    return {
        kind: sum(1 for process in list(processes) if process.returncode is None)
        for kind, processes in _children.items()
    }
