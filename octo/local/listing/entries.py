"""What a listing walk is asked and yields: its options, the walk (files, directories,
links, empty directories) and lstat'ed entries; and the split of a file list into the
files and directories a depth window shows."""

from __future__ import annotations

import os
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from stat import S_IMODE

from octo.core.files.confined import Opened
from octo.core.files.paths import PathPolicy
from octo.core.formats import iso_utc
from octo.core.secrets.sensitive import is_sensitive
from octo.local.listing.models import EntryType

#: Files read from one walk before it stops and reports ``truncated``.
MAX_SCANNED_FILES = 200_000


@dataclass(frozen=True)
class WalkOptions:
    """How deep to walk, what to enter, and which kinds of entries the caller needs."""

    max_depth: int
    hidden: bool
    no_ignore: bool
    #: The call's roots, whose fenced folders no walk enters (PathPolicy.fenced_below).
    paths: PathPolicy
    exclude_dirs: Sequence[str] = ()
    need_dirs: bool = True
    need_symlinks: bool = True
    need_empty_dirs: bool = False
    #: More rg filters on files (type, globs), for walks that want files only.
    file_filters: Sequence[str] = ()
    #: rg flags that only make its output shorter: the caller keeps just what they keep in
    #: any case (a walk octo reads itself goes without them).
    narrowing: Sequence[str] = ()

    @classmethod
    def files_only(
        cls,
        *,
        paths: PathPolicy,
        hidden: bool,
        no_ignore: bool,
        include: Sequence[str],
        exclude: Sequence[str] = (),
    ) -> WalkOptions:
        """Every file at any depth that an ``include`` glob matches and no ``exclude`` glob
        does; no folders or links listed (the source files a parser reads)."""
        filters = [arg for glob in include for arg in ("--glob", glob)]
        filters += [arg for glob in exclude for arg in ("--glob", f"!{glob}")]
        return cls(
            max_depth=10_000,
            hidden=hidden,
            no_ignore=no_ignore,
            paths=paths,
            need_dirs=False,
            need_symlinks=False,
            file_filters=filters,
        )


@dataclass(frozen=True)
class Walk:
    """Visible entries up to ``max_depth``, as paths relative to the start directory."""

    files: list[str]
    dirs: list[str]
    symlinks: list[str]
    truncated: bool
    empty_dirs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Entry:
    """A walked entry with its lstat."""

    rel: str
    type: EntryType
    stat: os.stat_result

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]

    @property
    def size(self) -> int:
        return self.stat.st_size if self.type == "file" else 0

    @property
    def shown(self) -> str:
        """``rel`` fit for JSON: bytes that are not UTF-8 become U+FFFD."""
        return self.rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")

    @property
    def modified(self) -> str:
        """Last modification, ISO 8601 UTC."""
        return iso_utc(self.stat.st_mtime)

    @property
    def permissions(self) -> str:
        """The octal mode, e.g. "644"."""
        return format(S_IMODE(self.stat.st_mode), "03o")

    @property
    def sensitive(self) -> bool | None:
        """True for a file named like a credential file; None (left out) otherwise."""
        return True if self.type == "file" and is_sensitive(self.rel) else None


def stat_entries(start: Opened, walk: Walk, keep: Callable[[str, EntryType], bool]) -> list[Entry]:
    """lstat every entry ``keep`` accepts (by path and type) below the opened directory
    ``start``; vanished entries are skipped.

    Relative to the descriptor, each lstat resolves only the walked part of its path (and
    no component of the checked one again). Touches the disk: call it from a worker thread.
    """
    entries: list[Entry] = []
    kinds: list[tuple[list[str], EntryType]] = [
        (walk.files, "file"),
        (walk.dirs, "dir"),
        (walk.symlinks, "symlink"),
        (walk.empty_dirs, "dir"),
    ]
    for rels, kind in kinds:
        for rel in rels:
            if not keep(rel, kind):
                continue
            try:
                info = os.lstat(rel, dir_fd=start.fd)
            except OSError:
                continue
            entries.append(Entry(rel, kind, info))
    return entries


def split_walk(paths: list[str], options: WalkOptions) -> tuple[list[str], list[str]]:
    """Files within the depth window, and every directory within it that holds a listed file."""
    files: list[str] = []
    dirs: set[str] = set()
    last_parent = ""
    for rel in paths:
        rel = rel.removeprefix("./")
        if rel.count("/") < options.max_depth:
            files.append(rel)
        cut = rel.rfind("/")
        # Listings come a directory at a time: a parent seen just before is known.
        if not options.need_dirs or cut < 0 or rel[:cut] == last_parent:
            continue
        parent = last_parent = rel[:cut]
        # Trim to the window, then add ancestors until one is known (its own are known too).
        while parent and parent.count("/") + 1 > options.max_depth:
            parent = parent.rpartition("/")[0]
        while parent and parent not in dirs:
            dirs.add(parent)
            parent = parent.rpartition("/")[0]
    return files, sorted(dirs)
