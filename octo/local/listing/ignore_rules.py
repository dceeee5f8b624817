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
import os
import re
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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
    names: list[str] = []
    dir_names: list[str] = []
    for parent in start.parents:
        below = start.relative_to(parent).parts
        for pattern in _patterns(parent):
            kept = _name_glob(pattern, below)
            if kept is None:
                continue
            glob, dir_only = kept
            (dir_names if dir_only else names).append(_glob_regex(glob))
    return NameRules(_joined(names), _joined(dir_names))


def _patterns(directory: Path) -> Iterator[str]:
    """The patterns of ``directory``'s ignore files (its repository's excludes included)."""
    files = [directory / name for name in IGNORE_FILES]
    git = directory / ".git"
    if os.path.lexists(git):
        if not git.is_dir() or git.is_symlink():
            raise RulesUnknown  # a worktree's or submodule's pointer: its excludes live elsewhere
        files.append(git / "info" / "exclude")
    for file in files:
        yield from _lines(file)


def _lines(file: Path) -> Iterable[str]:
    """The pattern lines of one ignore file (none when it does not exist)."""
    try:
        with file.open("rb") as opened:
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
    config_home = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    if (config_home / "git" / "ignore").exists():
        return True
    for config in (config_home / "git" / "config", Path.home() / ".gitconfig"):
        try:
            text = config.read_text("utf-8", "replace").lower()
        except OSError:
            continue
        if "excludesfile" in text or "[include" in text:
            return True
    return False
