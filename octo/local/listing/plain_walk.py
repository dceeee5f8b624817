"""The listing walk read in-process, where octo can apply rg's ignore rules itself.

Starting rg costs a few milliseconds, most of what a small listing takes. Where no
.gitignore, .ignore, .rgignore or git directory lies in the walked tree, and the ignore
files above it hold only rules octo applies itself (octo.local.listing.ignore_rules),
``rg --files`` lists every regular file that is not hidden nor ignored by those rules: a
walk of the opened directory lists the same, and sees the symbolic links and empty
directories on its way (rg's walk reads them again). Anything else (an ignore file met on
the way, exclude globs, file filters) hands the walk back to rg, which then walks from
the start.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from dataclasses import field

from octo.core.files.confined import Opened
from octo.local.listing.entries import MAX_SCANNED_FILES
from octo.local.listing.entries import Walk
from octo.local.listing.entries import WalkOptions
from octo.local.listing.ignore_rules import IGNORE_FILES
from octo.local.listing.ignore_rules import NameRules
from octo.local.listing.ignore_rules import RulesUnknown
from octo.local.listing.ignore_rules import rules_above

#: Names that bring rules of their own to a directory and everything below it.
_RULE_NAMES = frozenset({*IGNORE_FILES, ".git"})

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: Each directory is opened through its parent's descriptor, never through a link.
_OPEN_DIRECTORY = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
#: Where a platform cannot open so, or read a directory through its descriptor (Windows),
#: rg walks.
_PLATFORM_CAN = bool(_NOFOLLOW and _DIRECTORY) and os.scandir in os.supports_fd


@dataclass
class _Frame:
    """A directory the walk is in: its descriptor, path and depth (the start is 0), the
    sub-directories still to enter, and whether it holds a listed file at any depth."""

    fd: int
    rel: str
    depth: int
    pending: list[str] = field(default_factory=list)
    holds: bool = False


@dataclass
class _Seen:
    """What the walk met: files and directories as rg's walk would list them, and per
    directory its links and the directories in it that hold no entry at all."""

    options: WalkOptions
    rules: NameRules | None
    #: When the walk stops (``time.monotonic()``), what it found marked truncated.
    stop_at: float
    #: Paths the walk keeps out of (PathPolicy.fenced_below).
    fenced: frozenset[str]
    files: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    listed: int = 0
    links: dict[str, list[str]] = field(default_factory=dict)
    empty: dict[str, list[str]] = field(default_factory=dict)
    truncated: bool = False


def plain_walk(start: Opened, options: WalkOptions, stop_at: float) -> Walk | None:
    """The walk below the opened directory ``start``, or None where rg's rules would apply.

    Stops at ``stop_at`` (``time.monotonic()``) or :data:`MAX_SCANNED_FILES`, with what it
    found marked truncated, as an rg walk cut short is. Blocking: call it from a worker
    thread.
    """
    if options.file_filters or options.exclude_dirs or not _PLATFORM_CAN:
        return None
    try:
        rules = None if options.no_ignore else rules_above(start.path)
        seen = _Seen(options, rules, stop_at, frozenset(options.paths.fenced_below(start.path)))
        _walk_below(os.dup(start.fd), seen)
    except RulesUnknown:
        return None
    dirs = sorted(seen.dirs) if options.need_dirs else []
    # The directories rg's walk reads links and empty directories from: the start, and the
    # directories it shows above the window's floor.
    parents = ["", *(d for d in dirs if d.count("/") + 1 < options.max_depth)]
    links = [link for p in parents for link in seen.links.get(p, ())]
    visible = set(dirs)
    empty = [d for p in parents for d in seen.empty.get(p, ()) if d not in visible]
    return Walk(
        seen.files,
        dirs,
        links if options.need_symlinks else [],
        seen.truncated,
        sorted(empty) if options.need_empty_dirs else [],
    )


def _walk_below(top: int, seen: _Seen) -> None:
    """Depth first from the directory ``top`` (taken over and closed): one descriptor open
    per level, each directory opened through its parent's without following a link."""
    # A frame is pushed before its scan, so that a scan giving up closes it too.
    frames = [_Frame(top, "", 0)]
    try:
        _scan(frames[-1], seen)
        while frames:
            frame = frames[-1]
            if not frame.pending:
                _leave(frames, seen)
                continue
            if seen.truncated or _out_of_bounds(seen):
                seen.truncated = True
                while frames:
                    _leave(frames, seen)
                return
            name = frame.pending.pop()
            try:
                opened = os.open(name, _OPEN_DIRECTORY, dir_fd=frame.fd)
            except OSError:
                continue  # gone, unreadable or swapped for a link: rg would skip it too
            frames.append(
                _Frame(opened, f"{frame.rel}/{name}" if frame.rel else name, frame.depth + 1)
            )
            _scan(frames[-1], seen)
    finally:
        for frame in frames:
            os.close(frame.fd)


def _leave(frames: list[_Frame], seen: _Seen) -> None:
    """Close the innermost directory; one that holds a listed file is shown (within the
    depth window) and makes its parent hold one too."""
    frame = frames.pop()
    os.close(frame.fd)
    if frame.holds and frames:
        parent = frames[-1]
        parent.holds = True
        if frame.depth <= seen.options.max_depth:
            seen.dirs.append(frame.rel)
        _enough(parent, seen)


def _enough(frame: _Frame, seen: _Seen) -> None:
    """Below the depth window a directory matters only as holding a file or not: once it
    does, the rest of its tree is left unread, and :func:`_scan` reads no further in its
    own listing (rg would read all of it to no end). Rules in that rest could hide only
    files in it; an ignore file beside the file found is looked for by name."""
    if frame.holds and frame.depth >= seen.options.max_depth:
        frame.pending.clear()


def _scan(frame: _Frame, seen: _Seen) -> None:
    """Record one directory's files and links, and the directory itself when it holds no
    entry at all; queue the sub-directories to enter."""
    options = seen.options
    rules = seen.rules
    ignores = rules.ignores if rules is not None and rules.any else None
    in_window = frame.depth < options.max_depth
    enter = options.need_dirs or frame.depth + 1 < options.max_depth
    prefix = f"{frame.rel}/" if frame.rel else ""
    held = 0
    try:
        entries = os.scandir(frame.fd)
    except OSError:
        return
    with entries:
        for item in entries:
            held += 1
            # A directory of millions of entries is looked at the walk's bounds too.
            if not held % 4096 and _out_of_bounds(seen):
                seen.truncated = True
                break
            name = item.name
            if seen.fenced and prefix + name in seen.fenced:
                continue
            if name.startswith("."):
                if rules is not None and name in _RULE_NAMES:
                    raise RulesUnknown
                if not options.hidden:
                    continue
            # Links are listed as rg's walk lists them: whatever the rules say of their names.
            if item.is_symlink():
                seen.links.setdefault(frame.rel, []).append(prefix + name)
            elif item.is_file(follow_symlinks=False):
                if ignores is None or not ignores(name, is_dir=False):
                    frame.holds = True
                    seen.listed += 1
                    if in_window:
                        seen.files.append(prefix + name)
                    elif rules is None or not _brings_rules(frame.fd):
                        break  # below the window one listed file says all (see _enough)
            elif item.is_dir(follow_symlinks=False) and name != ".git":
                if ignores is not None and ignores(name, is_dir=True):
                    # rg's walk lists an empty directory even where a rule ignores it.
                    if options.need_empty_dirs and _is_empty(frame.fd, name):
                        seen.empty.setdefault(frame.rel, []).append(prefix + name)
                elif enter:
                    frame.pending.append(name)
    if not held and frame.rel:
        seen.empty.setdefault(frame.rel.rpartition("/")[0], []).append(frame.rel)
    _enough(frame, seen)


def _brings_rules(directory: int) -> bool:
    """Whether ``directory`` holds an ignore file or a .git (the rest of a scan that stops
    early would have met it)."""
    for name in _RULE_NAMES:
        try:
            os.stat(name, dir_fd=directory, follow_symlinks=False)
        except OSError:
            continue
        return True
    return False


def _out_of_bounds(seen: _Seen) -> bool:
    return time.monotonic() > seen.stop_at or seen.listed >= MAX_SCANNED_FILES


def _is_empty(parent: int, name: str) -> bool:
    """True for the directory ``name`` in ``parent`` when it holds no entry at all."""
    try:
        fd = os.open(name, _OPEN_DIRECTORY, dir_fd=parent)
    except OSError:
        return False
    try:
        with os.scandir(fd) as inside:
            return next(inside, None) is None
    finally:
        os.close(fd)
