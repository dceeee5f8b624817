"""The two rg passes behind every local search, and the rg flags a query turns into.

A counting pass (``rg --count``, multithreaded, files in any order) finds every matching
file with its count. A detail pass (``rg --json``) then reads just the files an answer
shows, each only up to the matches it shows, so its cost follows the answer, not the tree.
rg either walks a directory itself (localSearchCode) or is handed the files a find chose
(localFindAndSearchCode); a long file list is split over runs that each stay far below
the kernel's limit on a command line.

A counting pass cut short by rg's time limit keeps what rg found by then (``Counted.complete``
is False), even nothing (a query that waited in rg's queue until its deadline): the answer
is then a partial page, never a bare TIMEOUT.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import anyio

from octo.core.concurrency import map_ordered
from octo.core.config import Config
from octo.core.errors import InvalidQueryError
from octo.core.files.confined import Opened
from octo.local.marker_reach import may_match_marker
from octo.local.redacted_search import ContentKey
from octo.local.redacted_search import content_key
from octo.local.redacted_search import known_counts
from octo.local.redacted_search import remember_counts
from octo.local.redacted_search import secret_files
from octo.local.redacted_search import tree_secret_files
from octo.local.search.long_lines import LONGEST_EVENT
from octo.local.search.models import SearchFields
from octo.local.search.models import SearchFile
from octo.local.search.models import SearchStats
from octo.local.search.page_sources import learn_key_bodies
from octo.local.search.page_sources import open_page
from octo.local.search.rg_output import MatchingFile
from octo.local.search.rg_output import PageScan
from octo.local.search.rg_output import Searched
from octo.local.search.rg_output import read_counts
from octo.local.search.rg_output import shown_files
from octo.local.search.rg_threads import WalkKey
from octo.local.search.rg_threads import files_threads
from octo.local.search.rg_threads import learn_walk
from octo.local.search.rg_threads import page_threads
from octo.local.search.rg_threads import walk_key
from octo.local.search.rg_threads import walk_threads
from octo.transports.ripgrep import RgPlace
from octo.transports.ripgrep import argument_runs
from octo.transports.ripgrep import fence_args
from octo.transports.ripgrep import max_filesize_bytes
from octo.transports.ripgrep import open_rg
from octo.transports.ripgrep import rg_error_message
from octo.transports.ripgrep import run_rg

#: rg runs of one search at a time (each is multithreaded itself).
_CONCURRENT_RUNS = 4


@dataclass(frozen=True)
class SearchScope:
    """Where rg runs and what it is given: a directory or a file, which rg walks with
    ``filter_args``, or the files a find chose (no filters: rg reads named files).

    ``directory`` is the directory as octo opened it (no link followed): rg runs in that
    very directory, ``file`` (a searched file octo opened) is handed over as itself, and
    the files an answer shows are opened below it.
    """

    directory: Opened
    targets: Sequence[str]
    filter_args: Sequence[str] = ()
    file: Opened | None = None
    #: Bytes above which a file rg walked to is left out of the answer; None where rg is
    #: handed files chosen by size already.
    largest: int | None = None
    #: Bytes of the files a find chose, when rg is handed them (its thread count follows).
    handed_bytes: int | None = None
    #: The query's call's place in the runtime's rg queue: every rg run waits its turn there.
    rg: RgPlace = field(kw_only=True)

    @property
    def cwd(self) -> Path:
        """The searched directory, as answers name it."""
        return self.directory.path

    @property
    def rg_cwd(self) -> str:
        return self.directory.child_path()

    @property
    def walk(self) -> WalkKey | None:
        """What identifies rg's walk of the directory (None: rg is handed files)."""
        if self.largest is None:
            return None
        return walk_key(self.directory, self.targets, self.filter_args)

    @property
    def fds(self) -> tuple[int, ...]:
        """The descriptors rg inherits so that :attr:`rg_cwd` and the targets name them."""
        opened = (self.directory, self.file)
        return tuple(o.fd for o in opened if o is not None)


@dataclass(frozen=True)
class Counted:
    """What the counting pass found: the matching files (in rg's order), how many files rg
    read, when the search started (``time.monotonic()``), and whether rg finished (else:
    the files it found before its time limit)."""

    files: list[MatchingFile]
    files_searched: int | None
    started: float
    complete: bool = True
    #: The query's maxCount, when some file's count stopped at it.
    capped_at: int | None = None

    def in_path_order(self) -> list[MatchingFile]:
        """The matching files in path order, so pages line up across calls."""
        return sorted(self.files, key=lambda entry: entry.sort_key)

    def stats(self, *, complete: bool | None = None) -> SearchStats:
        """The search's stats, timed up to now; never complete when rg was cut short."""
        return SearchStats(
            filesSearched=self.files_searched,
            filesWithMatches=len(self.files),
            totalMatches=sum(entry.matched_lines for entry in self.files),
            searchTimeMs=round((time.monotonic() - self.started) * 1000),
            complete=complete if self.complete else False,
            cappedAt=self.capped_at,
        )


def timeout_ms(config: Config, query: SearchFields) -> int:
    """The deadline of each rg run: the query's own, else the server's."""
    return query.timeoutMs or config.rg_timeout_ms


async def count_matches(config: Config, query: SearchFields, scope: SearchScope) -> Counted:
    """Pass 1: every matching file with its count, and the files rg read (those found
    before rg's time limit when it reached it: ``complete`` is then False)."""
    started = time.monotonic()
    walk = scope.walk
    if walk is not None:
        threads = walk_threads(walk)
    else:
        threads = files_threads(len(scope.targets), scope.handed_bytes)
    args = [
        *threads,
        "--count",
        "--null",
        "--with-filename",
        "--stats",
        "--no-messages",
        # Each file's count is written as it is found: what rg found survives its time limit.
        "--line-buffered",
        *match_args(query),
        *scope.filter_args,
        "--",
        query.pattern,
    ]
    limiter = anyio.CapacityLimiter(_CONCURRENT_RUNS)

    async def count(targets: Sequence[str]) -> tuple[list[MatchingFile], Searched | None, bool]:
        async with limiter:
            done = await run_rg(
                [*args, *targets],
                place=scope.rg,
                cwd=scope.rg_cwd,
                timeout_ms=timeout_ms(config, query),
                pass_fds=scope.fds,
                keep_partial=True,
            )
        # --no-messages silences unreadable files; what remains is about the query.
        if done.returncode == 2 and done.stderr.strip():
            raise rg_rejected(rg_error_message(done.stderr))
        # Cut short, rg wrote no stats block: what it wrote is matching files only.
        stdout = done.stdout + b"\n\n" if done.timed_out else done.stdout
        found, searched = read_counts(
            stdout, include_sensitive=query.includeSensitive, include_hidden=query.hidden
        )
        return found, searched, not done.timed_out

    tree_secrets: tuple[set[bytes], bool] = (set(), True)

    async def find_tree_secrets() -> None:
        nonlocal tree_secrets
        tree_secrets = await tree_secret_files(
            scope.targets,
            place=scope.rg,
            cwd=scope.rg_cwd,
            pass_fds=scope.fds,
            timeout_ms=timeout_ms(config, query),
            walk_args=[*threads, *scope.filter_args],
        )

    async with anyio.create_task_group() as tasks:
        if may_match_marker(
            query.pattern, fixed=query.fixedString, case_sensitive=_case_sensitive(query)
        ):
            tasks.start_soon(find_tree_secrets)
        runs = await map_ordered(count, argument_runs(scope.targets))
    matching = [entry for found, _searched, _complete in runs for entry in found]
    complete = tree_secrets[1] and all(finished for _found, _searched, finished in runs)
    unmatched = tree_secrets[0] - {entry.arg for entry in matching}
    if scope.file is not None:
        # rg named the file by its descriptor: shown by its name, as rg would have.
        shown = f"./{scope.file.path.name}".encode()
        matching = [entry._replace(arg=shown) for entry in matching]
        unmatched = {shown} if unmatched and not matching else set()
    others = shown_files(
        [MatchingFile(arg, 0) for arg in sorted(unmatched)],
        include_sensitive=query.includeSensitive,
        include_hidden=query.hidden,
    )
    keys = None
    if scope.largest is not None:
        matching, others, keys = await anyio.to_thread.run_sync(
            _small_enough, scope.directory, scope.largest, matching, others
        )
    matching = await _over_redacted(config, query, scope, matching, others, keys)
    searched = [searched for _found, searched, _complete in runs]
    files = None if None in searched else sum(s.files for s in searched if s is not None)
    if walk is not None and query.maxCount is None:
        # (rg stops reading a file at a maxCount: what it read then is not the tree's size.)
        size = None if None in searched else sum(s.bytes for s in searched if s is not None)
        learn_walk(walk, files, size)
    cap = query.maxCount
    capped = cap is not None and any(entry.matched_lines >= cap for entry in matching)
    return Counted(matching, files, started, complete, cap if capped else None)


def _small_enough(
    directory: Opened, largest: int, matching: list[MatchingFile], others: list[MatchingFile]
) -> tuple[list[MatchingFile], list[MatchingFile], dict[bytes, ContentKey]]:
    """``matching`` and ``others`` without the files over ``largest`` bytes (lstat'ed below
    the opened ``directory``; a file gone since is left out too), and the content keys of
    those kept, taken from the same lstat (the secret check needs them).

    rg's own ``--max-filesize`` costs it a stat of every file it walks to, a fifth of a
    search over a large tree: only the files found are checked, before octo reads any.
    """
    keys: dict[bytes, ContentKey] = {}

    def small(entry: MatchingFile) -> bool:
        try:
            info = os.stat(entry.arg, dir_fd=directory.fd, follow_symlinks=False)
        except OSError:
            return False
        if info.st_size > largest:
            return False
        keys[entry.arg] = content_key(info)
        return True

    kept = [entry for entry in matching if small(entry)]
    return kept, [entry for entry in others if small(entry)], keys


_RECOUNT_ARGS = ("--count", "--null", "--with-filename", "--no-messages")


async def _over_redacted(
    config: Config,
    query: SearchFields,
    scope: SearchScope,
    matching: list[MatchingFile],
    others: list[MatchingFile],
    keys: dict[bytes, ContentKey] | None,
) -> list[MatchingFile]:
    """``matching`` with the files that hold a secret counted again over their redacted
    text (:mod:`octo.local.redacted_search`): those no match is left in are dropped. Of
    ``others`` (files whose raw text does not match, that may hold a secret), those whose
    redacted text matches are added. ``keys``: their content keys, when taken already."""
    if others:
        matching = [*matching, *others]
    if not matching:
        return matching
    limit = timeout_ms(config, query)
    secret = await secret_files(
        scope.directory,
        [entry.arg for entry in matching],
        place=scope.rg,
        cwd=scope.rg_cwd,
        pass_fds=scope.fds,
        timeout_ms=limit,
        keys=keys,
    )
    if not secret:
        return [entry for entry in matching if entry.matched_lines]
    matched_by = (query.pattern, *match_args(query))
    counts = known_counts(secret, matched_by)
    chosen = [entry for entry in matching if entry.arg in secret and entry.arg not in counts]
    if chosen:
        with await open_page(scope.directory, chosen) as sources:
            await sources.search_redacted(entry.arg for entry in chosen)
            # A file that could not be copied (gone since) has no count: it is left out.
            copied = {sources.copies.path(arg).encode(): arg for arg in sources.copies.fds}
            fresh: dict[bytes, int] = {}
            if copied:  # (rg given no file would search its working directory)
                done = await run_rg(
                    [*_RECOUNT_ARGS, *match_args(query), "--", query.pattern]
                    + [os.fsdecode(path) for path in copied],
                    place=scope.rg,
                    cwd=scope.rg_cwd,
                    timeout_ms=limit,
                    pass_fds=(*scope.fds, *sources.fds),
                )
                for line in done.stdout.split(b"\n"):
                    name, _, count = line.rpartition(b"\0")
                    if name in copied:
                        fresh[copied[name]] = int(count)
                if done.returncode in (0, 1):  # (an error may have left a count out)
                    remember_counts(sources.copies.keys, matched_by, fresh)
            counts.update(fresh)
    return [
        entry._replace(matched_lines=counts[entry.arg], redacted=True)
        if entry.arg in secret
        else entry
        for entry in matching
        if (entry.arg not in secret and entry.matched_lines) or counts.get(entry.arg)
    ]


def _case_sensitive(query: SearchFields) -> bool:
    return not query.caseInsensitive and not query.smartCase


async def page_matches(
    config: Config, query: SearchFields, scope: SearchScope, page: list[MatchingFile], per_file: int
) -> list[SearchFile]:
    """Pass 2: the first ``per_file`` matching lines of just ``page``'s files, each opened
    by octo below the searched directory (no link followed) and handed to rg as itself."""
    if not page:
        return []
    args = ["--json", "--no-messages", *match_args(query)]
    # One match past the page ends the last shown match's after-context where it begins;
    # never past the query's maxCount, which the counts stop at.
    args.append(f"--max-count={min(per_file + 1, query.maxCount or per_file + 1)}")
    if query.context_before:
        args.append(f"--before-context={query.context_before}")
    if query.context_after:
        args.append(f"--after-context={query.context_after}")
    with await open_page(scope.directory, page) as sources:
        await sources.search_redacted(entry.arg for entry in page if entry.redacted)
        scan = PageScan(query, page, per_file, sources.aliases)
        args += page_threads(list(sources.opened.values()))
        # Streamed: few lines, but a minified file's line may be megabytes long.
        async with open_rg(
            [*args, "--", query.pattern, *sources.args],
            place=scope.rg,
            cwd=scope.rg_cwd,
            timeout_ms=timeout_ms(config, query),
            pass_fds=(*scope.fds, *sources.fds),
        ) as rg:
            async for line in rg.capped_lines(LONGEST_EVENT):
                scan.feed(line)
        await learn_key_bodies(scan, sources)
    return scan.files()


def match_args(query: SearchFields) -> list[str]:
    """How rg matches: case, literal or regex, whole words, across lines, the encoding it
    reads, and how many matching lines of a file it counts."""
    if query.caseInsensitive:
        args = ["--ignore-case"]
    else:
        args = ["--smart-case" if query.smartCase else "--case-sensitive"]
    if query.fixedString:
        args.append("--fixed-strings")
    if query.word:
        args.append("--word-regexp")
    if query.multiline:
        args.append("--multiline")
    if query.encoding is not None:
        # rg transcodes what it reads to UTF-8: lines are answered as UTF-8 whatever the file.
        args.append(f"--encoding={query.encoding}")
    if query.maxCount is not None:
        args.append(f"--max-count={query.maxCount}")
    return args


def walk_args(query: SearchFields, fenced: Sequence[str]) -> list[str]:
    """Which files rg looks at when it walks a directory itself (their size is checked on
    the files found: :attr:`SearchScope.largest`), never one below the ``fenced`` paths."""
    args = ["--no-require-git", *file_filter_args(query)]
    if query.hidden:
        args += ["--hidden", "--glob=!.git/"]
    if query.noIgnore:
        args.append("--no-ignore")
    # Credential files are dropped by name from the counting pass's output, not with
    # rg globs: a glob set costs rg a match per walked path (~10% on a large tree).
    return args + fence_args(fenced)


def max_filesize(config: Config, query: SearchFields) -> int:
    """Bytes above which a file is not searched: the query's, else the server's (capped)."""
    return max_filesize_bytes(query.maxFilesize or config.rg_max_filesize)


def file_filter_args(query: SearchFields) -> list[str]:
    """The query's own filters on file names: type and globs (rg --files takes them too).

    Not the size: rg checks it with a stat of every file it walks, where a find checks it
    on the few files its name filters keep, with the stat it takes anyway.
    """
    args: list[str] = []
    if query.type:
        args.append(f"--type={query.type}")
    args += [f"--glob={glob}" for glob in query.include or ()]
    args += [f"--glob=!{glob.removeprefix('!')}" for glob in query.exclude or ()]
    return args


def rg_rejected(message: str) -> InvalidQueryError:
    """INVALID_QUERY for what rg refused, with the way to a query it takes."""
    hints: list[str] = []
    if "multiline" in message:
        hints.append("Set multiline: true to let the pattern match across lines.")
    elif "regex" in message:
        hints.append(
            "Search the text literally with fixedString: true, or escape regex characters "
            "(\\( \\[ \\. \\*)."
        )
    if "encoding" in message:
        hints.append('Use an encoding label rg knows: "latin1", "utf-16", "shift_jis", "auto".')
    if "file type" in message:
        hints.append(
            "Common types: py, js, ts, rust, go, java, c, cpp, md, json, yaml; "
            "or filter by name with include globs such as '*.ext'."
        )
    if "glob" in message:
        hints.append(
            "Fix the include/exclude globs: close every [ and {, and end none with \\ "
            "(e.g. '*.py', 'src/**')."
        )
    if not hints:
        hints.append(
            "Check the pattern and globs against ripgrep's syntax; fixedString: true searches "
            "the text literally."
        )
    return InvalidQueryError(f"ripgrep rejected the query: {message}", hints=hints)
