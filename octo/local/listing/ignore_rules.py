"""The ignore rules above a listing's start directory, in the cases octo applies them itself.

rg (with ``--no-require-git``) obeys the .gitignore, .ignore and .rgignore of every
directory above where it starts, and a repository's .git/info/exclude, each pattern matched
against paths relative to its file's directory. Most such patterns cannot reach below a
start directory deep inside (``/build`` at a repository's top), and most of the rest are
plain name globs (``*.log``, ``.idea``, ``dist/``). Those two kinds are all this module
takes: any other pattern (a negation, a character class, an escape, braces, ``**``, an
anchored path that may lead below the start), an unreadable file, or git's global excludes
leave the walk to rg.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import threading
from collections.abc import Iterable
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from cachetools import LRUCache

#: The ignore files rg reads in every directory.
IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
#: The largest ignore file read here; a larger one leaves the walk to rg.
_LARGEST = 64 * 1024
#: Characters of glob syntax octo does not match itself (git's and rg's differ from fnmatch's).
_HARD = frozenset("[]\\{}!")


class RulesUnknown(Exception):
    """A rule octo does not apply itself: the walk is rg's."""


@dataclass(frozen=True)
class NameRules:
    """Entry names ignored below the start: ``names`` for any entry, ``dir_names`` for
    directories only (patterns ending in ``/``)."""

    names: re.Pattern[str] | None = None
    dir_names: re.Pattern[str] | None = None

    @property
    def any(self) -> bool:
        """True when some name is ignored."""
        return self.names is not None or self.dir_names is not None

    def ignores(self, name: str, *, is_dir: bool) -> bool:
        """True when an entry called ``name`` is ignored."""
        if self.names is not None and self.names.fullmatch(name):
            return True
        return is_dir and self.dir_names is not None and bool(self.dir_names.fullmatch(name))


def rules_above(start: Path) -> NameRules:
    """The rules the ignore files above ``start`` put on what lies below it.

    Raises RulesUnknown where one of them is not a kind octo applies. Touches the disk:
    call it from a worker thread.
    """
    if _global_excludes():
        raise RulesUnknown
    found: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    # Strings, not pathlib: this runs for every listing, a parent at a time.
    parts = str(start).split(os.sep)
    for depth in range(len(parts) - 1, 0, -1):
        patterns = _patterns(os.sep.join(parts[:depth]) or os.sep)
        if patterns:
            found.append((patterns, tuple(parts[depth:])))
    return _name_rules(tuple(found))


@functools.lru_cache(maxsize=1024)
def _name_rules(found: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]) -> NameRules:
    """The rules of ``found`` (each parent's patterns, and the start's path from it); the
    same ignore files above the same start give the same rules, compiled once."""
    names: list[str] = []
    dir_names: list[str] = []
    for patterns, below in found:
        for pattern in patterns:
            kept = _name_glob(pattern, below)
            if kept is None:
                continue
            glob, dir_only = kept
            (dir_names if dir_only else names).append(_glob_regex(glob))
    return NameRules(_joined(names), _joined(dir_names))


#: What tells whether a file or directory changed: inode, size, modification and change times.
_Stamp = tuple[int, int, int, int]


@dataclass(frozen=True)
class _Read:
    """One directory's patterns (None: a kind octo does not apply), with the stamps of the
    directory and of what was read in it."""

    own: _Stamp
    files: tuple[tuple[str, _Stamp], ...]
    patterns: tuple[str, ...] | None


#: Directories read, by path: one is read again only when an ignore file in it appeared, went
#: or changed (its own stamp, or theirs, differs), so a listing costs a stat per parent.
_READS: LRUCache[str, _Read] = LRUCache(maxsize=4096)
_READS_LOCK = threading.Lock()


def _patterns(directory: str) -> tuple[str, ...]:
    """The patterns of ``directory``'s ignore files (its repository's excludes included)."""
    try:
        own = _stamp(directory)
    except OSError:
        return ()
    with _READS_LOCK:
        known = _READS.get(directory)
    if known is None or known.own != own or not all(_same(f, stamp) for f, stamp in known.files):
        read: list[tuple[str, _Stamp]] = []
        try:
            patterns: tuple[str, ...] | None = tuple(_read(directory, read))
        except RulesUnknown:
            patterns = None
        known = _Read(own, tuple(read), patterns)
        with _READS_LOCK:
            _READS[directory] = known
    if known.patterns is None:
        raise RulesUnknown
    return known.patterns


def _read(directory: str, read: list[tuple[str, _Stamp]]) -> Iterator[str]:
    """Read ``directory``'s ignore files, noting each one found (and a repository's info
    folder, where its excludes file may appear) in ``read``."""
    files = [os.path.join(directory, name) for name in IGNORE_FILES]
    git = os.path.join(directory, ".git")
    if os.path.lexists(git):
        if not os.path.isdir(git) or os.path.islink(git):
            raise RulesUnknown  # a worktree's or submodule's pointer: its excludes live elsewhere
        info = os.path.join(git, "info")
        with suppress(OSError):
            read.append((info, _stamp(info)))
        files.append(os.path.join(info, "exclude"))
    for file in files:
        try:
            stamp = _stamp(file)
        except FileNotFoundError:
            continue
        except OSError:
            raise RulesUnknown from None
        read.append((file, stamp))
        yield from _lines(file)


def _stamp(path: str | Path) -> _Stamp:
    info = os.stat(path)
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _same(path: str, stamp: _Stamp) -> bool:
    try:
        return _stamp(path) == stamp
    except OSError:
        return False


def _lines(file: str) -> Iterable[str]:
    """The pattern lines of one ignore file (none when it does not exist)."""
    try:
        with open(file, "rb") as opened:
            data = opened.read(_LARGEST + 1)
    except FileNotFoundError:
        return []
    except OSError:
        raise RulesUnknown from None
    if len(data) > _LARGEST:
        raise RulesUnknown
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RulesUnknown from None
    lines = []
    for raw in text.splitlines():
        line = raw.rstrip(" ")
        if not line or line.startswith("#"):
            continue
        if line[0].isspace() or line[-1].isspace() or _HARD.intersection(line):
            raise RulesUnknown
        lines.append(line)
    return lines


def _name_glob(pattern: str, below: tuple[str, ...]) -> tuple[str, bool] | None:
    """``pattern`` as a glob on entry names and whether it is for directories only; None
    when it cannot match anything below the start (``below``: the start's path from the
    pattern's directory). Raises RulesUnknown for a pattern that may, and not by name."""
    dir_only = pattern.endswith("/")
    body = pattern.rstrip("/")
    if "**" in body:
        raise RulesUnknown
    if "/" not in body:
        return body, dir_only
    # Anchored: the whole path from the pattern's directory, one component per part.
    parts = body.lstrip("/").split("/")
    if len(parts) <= len(below):
        return None  # it names the start or a directory above it, never an entry below
    if all(fnmatch.fnmatchcase(name, glob) for name, glob in zip(below, parts, strict=False)):
        raise RulesUnknown
    return None


def _glob_regex(glob: str) -> str:
    """A name glob of ``*`` and ``?`` as a regex."""
    return "".join(
        "[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char) for char in glob
    )


def _joined(regexes: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{r})" for r in regexes)) if regexes else None


def _global_excludes() -> bool:
    """True when git may name a global excludes file, which rg obeys too."""
    home = os.path.expanduser("~")
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    if os.path.exists(os.path.join(config_home, "git", "ignore")):
        return True
    return any(
        _names_excludes(config)
        for config in (
            os.path.join(config_home, "git", "config"),
            os.path.join(home, ".gitconfig"),
        )
    )


def _names_excludes(config: str) -> bool:
    """True when the git configuration file ``config`` may name an excludes file (read
    again only when it changed)."""
    try:
        stamp = _stamp(config)
    except OSError:
        return False
    with _READS_LOCK:
        known = _CONFIGS.get(config)
    if known is not None and known[0] == stamp:
        return known[1]
    try:
        with open(config, encoding="utf-8", errors="replace") as file:
            text = file.read().lower()
    except OSError:
        return True
    verdict = "excludesfile" in text or "[include" in text
    with _READS_LOCK:
        _CONFIGS[config] = (stamp, verdict)
    return verdict


#: Git configuration files read, by path, with their stamp and whether they may name one.
_CONFIGS: LRUCache[str, tuple[_Stamp, bool]] = LRUCache(maxsize=64)
