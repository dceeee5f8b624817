"""The walk behind the listing tools: ``rg --files`` decides what is visible, lstat the rest.

``rg --files`` applies .gitignore / .ignore rules (also outside git repositories),
skips hidden entries unless asked, and never follows symlinks, so the walk cannot
leave the root. ripgrep lists files only, so a directory is shown when it holds at
least one visible file (as in git, empty and wholly ignored directories are left
out); symlinks, and empty directories when asked for, are read from those directories
without being followed.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from stat import S_IMODE

import anyio

from octo.contract import QueryContext
from octo.core.errors import InvalidQueryError
from octo.core.errors import OctoError
from octo.core.errors import QueryTimeoutError
from octo.core.files.confined import Opened
from octo.core.files.confined import open_below
from octo.core.formats import iso_utc
from octo.core.secrets.sensitive import is_sensitive
from octo.local.checked_paths import opened_directory
from octo.local.checked_paths import start_directory
from octo.local.listing.models import EntryType
from octo.local.listing.models import ListingQuery
from octo.transports.ripgrep import RgProcess
from octo.transports.ripgrep import open_rg
from octo.transports.ripgrep import rg_error_message

_FS_ENCODING = (sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())

#: Files read from one walk before it stops and reports ``truncated``.
MAX_SCANNED_FILES = 200_000


@dataclass(frozen=True)
class WalkOptions:
    """How deep to walk, what to enter, and which kinds of entries the caller needs."""

    max_depth: int
    hidden: bool
    no_ignore: bool
    exclude_dirs: Sequence[str] = ()
    need_dirs: bool = True
    need_symlinks: bool = True
    need_empty_dirs: bool = False
    #: More rg filters on files (type, globs), for walks that want files only.
    file_filters: Sequence[str] = ()


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


async def rg_files(
    args: Sequence[str],
    cwd: Path | str,
    *,
    max_files: int,
    timeout_ms: int,
    pass_fds: Sequence[int] = (),
) -> tuple[list[str], bool]:
    """Paths ``rg --files args`` lists in ``cwd``, stopping at ``max_files`` or the deadline.

    Returns the paths and whether the listing was cut short; a listing that runs
    out of time keeps what it found instead of failing. rg inherits ``pass_fds``.
    """
    paths: list[str] = []
    cut_short = False
    rejected: str | None = None
    try:
        # NUL-ended names: a newline is a legal character in a file name.
        async with open_rg(
            ["--files", "--null", "--no-messages", *args],
            cwd=cwd,
            timeout_ms=timeout_ms,
            pass_fds=pass_fds,
        ) as rg:
            async for records in rg.record_batches(b"\0"):
                # One decode a batch, as os.fsdecode decodes a name.
                paths += b"\0".join(records).decode(*_FS_ENCODING).split("\0")
                if len(paths) >= max_files:
                    del paths[max_files:]
                    cut_short = True
                    break
            else:
                if await rg.wait() == 2 and not paths:
                    # rg has finished: its complaint is read even if the deadline passes now.
                    with anyio.CancelScope(shield=True):
                        rejected = await anyio.to_thread.run_sync(_error_of, rg)
    except QueryTimeoutError:
        cut_short = True
    # Raised out here: inside open_rg's task group it would arrive wrapped in a group.
    if rejected is not None:
        raise InvalidQueryError(
            f"ripgrep rejected the listing: {rejected}",
            hints=[
                'Check excludeDir (names or paths such as "node_modules" or "src/gen") and any '
                "include/exclude globs (such as '*.py' or 'src/**')."
            ],
        )
    return paths, cut_short


async def walk_listing(
    ctx: QueryContext,
    query: ListingQuery,
    tool: str,
    *,
    max_depth: int,
    need_dirs: bool,
    need_symlinks: bool,
    exclude_dirs: Sequence[str] = (),
    need_empty_dirs: bool = False,
    file_filters: Sequence[str] = (),
    timeout_ms: int | None = None,
) -> tuple[Path, Walk]:
    """The start directory a listing query names, and the walk below it (under the
    server's rg deadline unless ``timeout_ms`` says otherwise)."""
    start = await start_directory(ctx.paths, query.path, tool)
    options = WalkOptions(
        max_depth=max_depth,
        hidden=query.hidden,
        no_ignore=query.noIgnore,
        exclude_dirs=exclude_dirs,
        need_dirs=need_dirs,
        need_symlinks=need_symlinks,
        need_empty_dirs=need_empty_dirs,
        file_filters=file_filters,
    )
    with await opened_directory(ctx.paths, start, query.path) as opened:
        return start, await walk(opened, options, timeout_ms or ctx.config.rg_timeout_ms)


async def walk(start: Opened, options: WalkOptions, timeout_ms: int) -> Walk:
    """The visible entries below the opened directory ``start`` that ``options`` ask for.

    rg walks the opened directory itself, and what rg does not list is read from
    directories opened below it, so a directory swapped for a link meanwhile leads nowhere
    outside.
    """
    paths, cut_short = await rg_files(
        _rg_args(options),
        start.child_path(),
        max_files=MAX_SCANNED_FILES,
        timeout_ms=timeout_ms,
        pass_fds=(start.fd,),
    )

    def split() -> Walk:
        files, dirs = _split_walk(paths, options)
        links, empty = _unlisted(start, dirs, options)
        return Walk(files, dirs if options.need_dirs else [], links, cut_short, empty)

    return await anyio.to_thread.run_sync(split)


def stat_entries(start: Path, walk: Walk, keep: Callable[[str, EntryType], bool]) -> list[Entry]:
    """lstat every entry ``keep`` accepts (by path and type); vanished entries are skipped.

    Touches the disk: call it from a worker thread.
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
                info = os.lstat(os.path.join(start, rel))
            except OSError:
                continue
            entries.append(Entry(rel, kind, info))
    return entries


def _error_of(rg: RgProcess) -> str:
    return rg_error_message(rg.stderr)


def _rg_args(options: WalkOptions) -> list[str]:
    # The caller's filters first: of several globs matching a path, rg obeys the last, so
    # the excluded directories below always stay out.
    args = ["--no-require-git", *options.file_filters]
    if options.hidden:
        # .git internals are noise in a listing even when hidden entries are wanted.
        args += ["--hidden", "--glob", "!.git/"]
    if options.no_ignore:
        args.append("--no-ignore")
    if not options.need_dirs:
        args += ["--max-depth", str(options.max_depth)]
    for raw in options.exclude_dirs:
        cleaned, anchored = _exclude_pattern(raw)
        args += ["--glob", f"!/{cleaned}/" if anchored else f"!{cleaned}/"]
    return args


def _split_walk(paths: list[str], options: WalkOptions) -> tuple[list[str], list[str]]:
    """Files within the depth window, and every directory within it that holds a listed file."""
    files: list[str] = []
    dirs: set[str] = set()
    for rel in paths:
        rel = rel.removeprefix("./")
        depth = rel.count("/") + 1
        if depth <= options.max_depth:
            files.append(rel)
        if not options.need_dirs:
            continue
        parent = rel.rpartition("/")[0]
        # Trim to the window, then add ancestors until one is known (its own are known too).
        while parent and parent.count("/") + 1 > options.max_depth:
            parent = parent.rpartition("/")[0]
        while parent and parent not in dirs:
            dirs.add(parent)
            parent = parent.rpartition("/")[0]
    return files, sorted(dirs)


def _exclude_pattern(raw: str) -> tuple[str, bool]:
    """An excludeDir entry as a glob, and whether it is anchored at the start directory.

    "node_modules" is a name anywhere; "src/gen", "./build" and "/build" are paths.
    """
    text = raw.strip()
    cleaned = text.removeprefix("./").strip("/")
    return cleaned, "/" in cleaned or text.startswith(("./", "/"))


def _excluded(name: str, rel: str, exclude_dirs: Sequence[str]) -> bool:
    for raw in exclude_dirs:
        cleaned, anchored = _exclude_pattern(raw)
        if fnmatch.fnmatchcase(rel if anchored else name, cleaned):
            return True
    return False


def _unlisted(
    start: Opened, dirs: Iterable[str], options: WalkOptions
) -> tuple[list[str], list[str]]:
    """What rg does not list: symlinks, and empty directories (when asked for), read from
    the start directory and the visible directories above the window's floor."""
    links: list[str] = []
    empty: list[str] = []
    if not (options.need_symlinks or options.need_empty_dirs):
        return links, empty
    visible = set(dirs)
    for parent in ["", *(d for d in dirs if d.count("/") + 1 < options.max_depth)]:
        try:
            with (
                open_below(start, parent, directory=True) as directory,
                os.scandir(directory.fd) as scan,
            ):
                for item in scan:
                    rel = f"{parent}/{item.name}" if parent else item.name
                    if item.name.startswith(".") and not options.hidden:
                        continue
                    if _excluded(item.name, rel, options.exclude_dirs):
                        continue
                    if item.is_symlink():
                        if options.need_symlinks:
                            links.append(rel)
                    elif (
                        options.need_empty_dirs
                        and rel not in visible
                        and _is_empty(directory, item)
                    ):
                        empty.append(rel)
        except (OSError, OctoError):
            continue
    return links, sorted(empty)


def _is_empty(parent: Opened, item: os.DirEntry[str]) -> bool:
    """True for a directory (``item`` of the opened ``parent``) with no entry at all."""
    if not item.is_dir(follow_symlinks=False):
        return False
    try:
        with (
            open_below(parent, item.name, directory=True) as directory,
            os.scandir(directory.fd) as inside,
        ):
            return next(inside, None) is None
    except (OSError, OctoError):
        return False
