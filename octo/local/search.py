"""localSearchCode on ripgrep, in two passes.

A counting pass (``rg --count``, multithreaded, files in any order) finds every
matching file with its count; sorted by path here, that gives exact stats and
file pages that line up across calls (sorting in rg would make it
single-threaded). A detail pass (``rg --json``) then reads just the page's
files, each only up to its matchesPerPage-th match, so its cost follows the
page, not the tree. Searches are not cached: files change under an agent's
hands and nothing cheap tells when.

When rg reaches its time limit in the counting pass after finding matches, the answer is
the page of what it found, partial, with the ways to a complete one. A line of rg's
output too long to read whole is shown by a preview (octo.local.long_lines).
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import token_info
from octo.core.config import Config
from octo.core.errors import FileTooLargeError
from octo.core.errors import InvalidQueryError
from octo.core.errors import QueryTimeoutError
from octo.core.formats import iso_utc
from octo.core.paging import Pagination
from octo.local.long_lines import LONGEST_EVENT
from octo.local.models import LocalSearchCodeQuery
from octo.local.models import LocalSearchCodeResult
from octo.local.models import SearchFile
from octo.local.models import SearchStats
from octo.local.page_fit import fit_budget
from octo.local.rg_output import MatchingFile
from octo.local.rg_output import PageScan
from octo.local.rg_output import read_counts
from octo.local.search_hints import budget_hints
from octo.local.search_hints import search_hints
from octo.local.targets import search_target
from octo.transports.ripgrep import max_filesize_arg
from octo.transports.ripgrep import max_filesize_bytes
from octo.transports.ripgrep import open_rg
from octo.transports.ripgrep import rg_error_message
from octo.transports.ripgrep import run_rg


async def search_code(
    ctx: QueryContext, query: LocalSearchCodeQuery
) -> Answer[LocalSearchCodeResult]:
    """Search file contents under a directory (or in one file): one page of matching files."""
    config = ctx.config
    cwd, search_arg = await search_target(ctx.paths, query)
    if search_arg != ".":
        await _check_file_size(config, query, cwd / search_arg)

    started = time.monotonic()
    counted, files_searched, complete = await _count_matches(config, query, cwd, search_arg)
    matching = sorted(counted, key=lambda entry: entry.sort_key)
    first = (query.filePageNumber - 1) * query.filesPerPage
    page = matching[first : first + query.filesPerPage]
    lines_cut = False
    if query.filesOnly:
        files = await _files_with_mtimes(cwd, page)
    else:
        try:
            files = await _page_matches(config, query, cwd, page)
        except QueryTimeoutError:
            # Out of time for the page's lines: the files and counts are still an answer.
            files = [SearchFile(path=entry.path, matchCount=entry.matched_lines) for entry in page]
            lines_cut = bool(page)
    elapsed_ms = round((time.monotonic() - started) * 1000)
    fit = fit_budget(files, config.max_tokens * config.chars_per_token)

    result = LocalSearchCodeResult(
        root=str(cwd),
        files=fit.files,
        stats=SearchStats(
            filesSearched=files_searched,
            filesWithMatches=len(matching),
            totalMatches=sum(entry.matched_lines for entry in matching),
            searchTimeMs=elapsed_ms,
            complete=complete,
        ),
        # Not page_of: a search that matched nothing has no pages (totalPages 0).
        pagination=Pagination(
            currentPage=query.filePageNumber,
            totalPages=math.ceil(len(matching) / query.filesPerPage),
            hasMore=first + query.filesPerPage < len(matching),
        ),
    )
    hints, next_step = budget_hints(query, fit, cwd, config.max_tokens)
    if next_step is None and result.pagination.hasMore:
        next_step = f"filePageNumber={query.filePageNumber + 1}"
    result.tokens = token_info(
        fit.text,
        max_tokens=config.max_tokens,
        chars_per_token=config.chars_per_token,
        truncated_at_line=fit.cut_after_line,
        next_step=next_step,
        truncated=fit.cut is not None,
    )
    answer = Answer(result, partial=not complete or lines_cut)
    if not complete:
        answer.hint(_cut_short_hint(config, len(matching)))
    if lines_cut:
        answer.hint(
            "There was no time left to read the page's matching lines: the files and counts "
            "are shown; ask again for the lines (a narrower path makes it quicker)."
        )
    answer.hint(*hints, *search_hints(query, result, cwd))
    return answer


def _cut_short_hint(config: Config, found: int) -> str:
    return (
        f"ripgrep reached its time limit ({config.rg_timeout_ms} ms) after finding {found} "
        "matching files: the counts and pages cover those only. For a complete answer narrow "
        "the search (a sub-directory as path, a type, include globs) or raise "
        "OCTO_RG_TIMEOUT_MS (at most 30000)."
    )


async def _check_file_size(config: Config, query: LocalSearchCodeQuery, file: Path) -> None:
    """rg skips large files only while it walks; a file named as path is checked here."""
    limit = max_filesize_bytes(config.rg_max_filesize)
    size = (await anyio.Path(file).stat()).st_size
    if size > limit:
        raise FileTooLargeError(
            f"'{query.path}' has {size} bytes; searches skip files over {limit} bytes "
            "(OCTO_RG_MAX_FILESIZE)",
            hints=[
                "OCTO_RG_MAX_FILESIZE raises the limit (at most 200M).",
                "Search the directory around it for smaller files, or the file's source.",
            ],
        )


async def _count_matches(
    config: Config, query: LocalSearchCodeQuery, cwd: Path, search_arg: str
) -> tuple[list[MatchingFile], int | None, bool]:
    """Pass 1: every matching file with its count, from multithreaded rg in any order, and
    whether rg finished (else: the files it found before its time limit)."""
    args = [
        "--count",
        "--null",
        "--with-filename",
        "--stats",
        "--no-messages",
        # Each file's count is written as it is found: what rg found survives its time limit.
        "--line-buffered",
        *_match_args(query),
        *_filter_args(config, query),
    ]
    done = await run_rg(
        [*args, "--", query.pattern, search_arg],
        cwd=cwd,
        timeout_ms=config.rg_timeout_ms,
        keep_partial=True,
    )
    if done.timed_out:
        # The stats block comes last: what rg wrote is matching files only.
        found, _ = read_counts(done.stdout + b"\n\n", query.includeSensitive)
        if not found:
            raise QueryTimeoutError(
                f"ripgrep found nothing within its time limit ({config.rg_timeout_ms} ms)",
                hints=[
                    "Narrow the search: a sub-directory as path, a type, or include globs.",
                    "OCTO_RG_TIMEOUT_MS raises the limit (at most 30000).",
                ],
            )
        return found, None, False
    # --no-messages silences unreadable files; what remains is about the query.
    if done.returncode == 2 and done.stderr.strip():
        raise _rg_rejected(rg_error_message(done.stderr))
    return (*read_counts(done.stdout, query.includeSensitive), True)


async def _files_with_mtimes(cwd: Path, page: list[MatchingFile]) -> list[SearchFile]:
    """The page's files with their counts and modification times (filesOnly)."""

    def stat_page() -> list[SearchFile]:
        return [
            SearchFile(
                path=entry.path,
                matchCount=entry.matched_lines,
                modified=_iso_mtime(cwd / os.fsdecode(entry.arg)),
            )
            for entry in page
        ]

    return await anyio.to_thread.run_sync(stat_page)


def _iso_mtime(path: Path) -> str | None:
    try:
        return iso_utc(path.stat().st_mtime)
    except OSError:
        return None


async def _page_matches(
    config: Config, query: LocalSearchCodeQuery, cwd: Path, page: list[MatchingFile]
) -> list[SearchFile]:
    """Pass 2: the matching lines of just the page's files, named explicitly."""
    if not page:
        return []
    args = ["--json", "--no-messages", *_match_args(query)]
    # One match past the page ends the last shown match's after-context where it begins.
    args.append(f"--max-count={query.matchesPerPage + 1}")
    if query.contextLines:
        args.append(f"--context={query.contextLines}")
    scan = PageScan(query, page)
    # Streamed: few lines, but a minified file's line may be megabytes long.
    async with open_rg(
        [*args, "--", query.pattern, *(os.fsdecode(entry.arg) for entry in page)],
        cwd=cwd,
        timeout_ms=config.rg_timeout_ms,
    ) as rg:
        async for line in rg.capped_lines(LONGEST_EVENT):
            scan.feed(line)
    return scan.files()


def _match_args(query: LocalSearchCodeQuery) -> list[str]:
    args = ["--smart-case" if query.smartCase else "--case-sensitive"]
    if query.fixedString:
        args.append("--fixed-strings")
    return args


def _filter_args(config: Config, query: LocalSearchCodeQuery) -> list[str]:
    """Which files rg looks at."""
    args = ["--no-require-git", max_filesize_arg(config.rg_max_filesize)]
    if query.hidden:
        args.append("--hidden")
    if query.noIgnore:
        args.append("--no-ignore")
    if query.type:
        args.append(f"--type={query.type}")
    args += [f"--glob={glob}" for glob in query.include or ()]
    args += [f"--glob=!{glob.removeprefix('!')}" for glob in query.exclude or ()]
    if query.hidden:
        args.append("--glob=!.git/")
    # Credential files are dropped by name from the counting pass's output, not with
    # rg globs: a glob set costs rg a match per walked path (~10% on a large tree).
    return args


def _rg_rejected(message: str) -> InvalidQueryError:
    hints: list[str] = []
    if "regex" in message:
        hints.append(
            "Search the text literally with fixedString: true, or escape regex characters "
            "(\\( \\[ \\. \\*)."
        )
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
