"""The walk behind the listing tools: ``rg --files`` decides what is visible, lstat the rest.

``rg --files`` applies .gitignore / .ignore rules (also outside git repositories),
skips hidden entries unless asked, and never follows symlinks, so the walk cannot
leave the root. ripgrep lists files only, so a directory is shown when it holds at
least one visible file (as in git, empty and wholly ignored directories are left
out); symlinks, and empty directories when asked for, are read from those directories
without being followed. Where no ignore rule applies, the same walk is read in-process
(octo.local.listing.plain_walk): rg's start would cost more than a small listing.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TypeVar
from typing import Unpack

import anyio

from octo.contract import QueryContext
from octo.core.errors import InvalidQueryError
from octo.core.errors import OctoError
from octo.core.errors import QueryTimeoutError
from octo.core.files.confined import Opened
from octo.core.files.confined import closed_on_error
from octo.core.files.confined import open_below
from octo.local.checked_paths import open_start
from octo.local.listing.entries import MAX_SCANNED_FILES
from octo.local.listing.entries import Walk
from octo.local.listing.entries import WalkOptions
from octo.local.listing.entries import split_walk
from octo.local.listing.plain_walk import plain_walk
from octo.transports.ripgrep import RgPlace
from octo.transports.ripgrep import RgProcess
from octo.transports.ripgrep import RgQueue
from octo.transports.ripgrep import RgSpawn
from octo.transports.ripgrep import fence_args
from octo.transports.ripgrep import open_rg
from octo.transports.ripgrep import rg_error_message
from octo.transports.ripgrep import rg_time_limit

T = TypeVar("T")

_FS_ENCODING = (sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())


async def rg_files(
    args: Sequence[str], *, max_files: int, **spawn: Unpack[RgSpawn]
) -> tuple[list[str], bool]:
    """Paths ``rg --files args`` lists (rg run as ``spawn`` says), stopping at
    ``max_files`` or the deadline.

    Returns the paths and whether the listing was cut short; a listing that runs
    out of time keeps what it found instead of failing.
    """
    paths: list[str] = []
    cut_short = False
    rejected: str | None = None
    try:
        # NUL-ended names: a newline is a legal character in a file name.
        async with open_rg(["--files", "--null", "--no-messages", *args], **spawn) as rg:
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
    path: str,
    tool: str,
    options: WalkOptions,
    select: Callable[[Opened, Walk], T],
    *,
    timeout_ms: int | None = None,
) -> tuple[Path, Walk, T]:
    """The start directory a listing query's ``path`` names, the walk below it that
    ``options`` ask for (under the server's rg deadline unless ``timeout_ms`` says
    otherwise), and what ``select(start, walk)`` keeps of it (blocking: it runs in a
    worker thread).

    A walk octo reads itself is checked, opened, walked and selected from in one worker
    thread hop: on a small tree, hops are much of the time.
    """
    limit = timeout_ms or ctx.config.rg_timeout_ms
    stop_at = anyio.current_time() + rg_time_limit(limit)

    def open_and_walk() -> tuple[Opened, tuple[Walk, T] | None]:
        opened = open_start(ctx.paths, path, tool)
        with closed_on_error(opened):
            walked = plain_walk(opened, options, stop_at)
            return opened, None if walked is None else (walked, select(opened, walked))

    opened, done = await anyio.to_thread.run_sync(open_and_walk)
    with opened:
        if done is None:
            walked = await rg_walk(
                opened, options, limit, place=ctx.backend(RgQueue).place(ctx.arrived)
            )
            done = walked, await anyio.to_thread.run_sync(select, opened, walked)
    return opened.path, *done


async def walk(start: Opened, options: WalkOptions, timeout_ms: int, *, place: RgPlace) -> Walk:
    """The visible entries below the opened directory ``start`` that ``options`` ask for
    (an rg run waits its turn at ``place``).

    rg walks the opened directory itself (or octo does, where no ignore rule applies), and
    what rg does not list is read from directories opened below it, so a directory swapped
    for a link meanwhile leads nowhere outside.
    """
    stop_at = anyio.current_time() + rg_time_limit(timeout_ms)
    walked = await anyio.to_thread.run_sync(partial(plain_walk, start, options, stop_at))
    if walked is not None:
        return walked
    return await rg_walk(start, options, timeout_ms, place=place)


async def rg_walk(start: Opened, options: WalkOptions, timeout_ms: int, *, place: RgPlace) -> Walk:
    """:func:`walk` by rg, whatever the rules in force."""
    fenced = options.paths.fenced_below(start.path)
    paths, cut_short = await rg_files(
        _rg_args(options, fenced),
        cwd=start.child_path(),
        place=place,
        max_files=MAX_SCANNED_FILES,
        timeout_ms=timeout_ms,
        pass_fds=(start.fd,),
    )

    def split() -> Walk:
        files, dirs = split_walk(paths, options)
        links, empty = _unlisted(start, dirs, options, frozenset(fenced))
        return Walk(files, dirs if options.need_dirs else [], links, cut_short, empty)

    return await anyio.to_thread.run_sync(split)


def _error_of(rg: RgProcess) -> str:
    return rg_error_message(rg.stderr)


def _rg_args(options: WalkOptions, fenced: Sequence[str]) -> list[str]:
    # The caller's filters first: of several globs matching a path, rg obeys the last, so
    # the excluded directories below always stay out.
    args = ["--no-require-git", *options.narrowing, *options.file_filters]
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
    return args + fence_args(fenced)


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
    start: Opened, dirs: Iterable[str], options: WalkOptions, fenced: frozenset[str]
) -> tuple[list[str], list[str]]:
    """What rg does not list: symlinks, and empty directories (when asked for), read from
    the start directory and the visible directories above the window's floor (nothing
    ``fenced``)."""
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
                    if rel in fenced or _excluded(item.name, rel, options.exclude_dirs):
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
