"""How much memory language servers hold: each server's process tree read from /proc, and
the default budget for all of them together.

A server leads its own session (octo.lsp.servers.wire.process), so its tree is every process of
that session: tsserver under typescript-language-server, node under a launcher script.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: The default budget's ceiling: a quarter of the machine's memory, at most this.
MAX_DEFAULT_BUDGET = 4 << 30
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def default_budget() -> int:
    """A quarter of the machine's memory, at most 4 GiB (4 GiB where it cannot be read)."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * _PAGE
    except (ValueError, OSError, AttributeError):
        return MAX_DEFAULT_BUDGET
    return min(total // 4, MAX_DEFAULT_BUDGET)


def _session_and_rss(pid: str) -> tuple[int, int] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        statm = Path(f"/proc/{pid}/statm").read_text().split()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[3]), int(statm[1]) * _PAGE


def resident_sizes(sessions: Iterable[int]) -> dict[int, int]:
    """The resident bytes of every process tree led by one of ``sessions`` (session ids,
    each a server's pid), by session (blocking: reads /proc; empty where there is none)."""
    wanted = set(sessions)
    sizes = dict.fromkeys(wanted, 0)
    try:
        entries = os.listdir("/proc")
    except OSError:
        return sizes
    for entry in entries:
        if not entry.isdigit():
            continue
        found = _session_and_rss(entry)
        if found is not None and found[0] in wanted:
            sizes[found[0]] += found[1]
    return sizes


def megabytes(size: int) -> str:
    """``size`` bytes as whole megabytes (``512 MB``)."""
    return f"{size / (1 << 20):.0f} MB"
