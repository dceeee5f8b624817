"""localGitBlame: who last changed each line of a file range at HEAD, grouped into hunks
(``git blame --incremental`` of the committed file over its text at HEAD: the work tree is
never read). Stopped at the time limit, the answer holds the hunks git had found, partial,
and the next calls blame the lines left."""

from __future__ import annotations

from dataclasses import dataclass

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import with_tokens
from octo.core.errors import InvalidQueryError
from octo.core.formats import compact_json
from octo.core.queries import BlameHunkItem
from octo.local.history.checkout import git_on
from octo.local.history.models import GitBlameQuery
from octo.local.history.models import GitBlameResult
from octo.transports.git import Checkout
from octo.transports.git import GitCommand
from octo.transports.git import GitOutput
from octo.transports.git_records import blame_hunks

#: The most output read (the file, its blame): past it the answer is partial.
MAX_OUTPUT = 64 << 20
#: The file of revisions blame skips, read when the checkout has one.
IGNORE_REVS_FILE = ".git-blame-ignore-revs"


def _whole(output: bytearray, start: int) -> bool:
    """Never: a file's text is read whole (only the hard limit stops it)."""
    return False


def _first_hunk_read(output: bytearray, start: int) -> bool:
    """True once git has printed a whole hunk: its ``filename`` line ends it."""
    return output.find(b"\nfilename ", max(0, start - 9)) >= 0


def _commands(query: GitBlameQuery, checkout: Checkout) -> list[GitCommand]:
    """The file's text at HEAD, then its blame (in the worker thread: the ignore file is
    looked for)."""
    if not checkout.path:
        raise InvalidQueryError("localGitBlame needs a file", hints=["Name a file, not a folder."])
    args = ["blame", "--incremental", "--no-textconv"]
    if query.startLine:
        args.append(f"-L{query.startLine},{query.endLine or query.startLine}")
    if query.ignoreWhitespace:
        args.append("-w")
    args += [f"--ignore-rev={rev}" for rev in query.ignoreRevs or ()]
    revs_file = checkout.work_tree / IGNORE_REVS_FILE
    if revs_file.is_file() and not revs_file.is_symlink():
        args.append(f"--ignore-revs-file={revs_file}")
    text = GitCommand(["cat-file", "blob", f"HEAD:{checkout.path}"], _whole)
    return [text, GitCommand([*args, "HEAD", "--", checkout.path], _first_hunk_read)]


@dataclass
class _Blamed:
    """What git answered: the hunks, the file's line count, and whether a limit cut it."""

    checkout: Checkout
    hunks: list[BlameHunkItem]
    lines: int
    cut: bool
    timed_out: bool


def _read(checkout: Checkout, outputs: list[GitOutput]) -> _Blamed:
    """The hunks of git's answer (in the worker thread: a whole file's blame is parsed)."""
    text, output = outputs
    hunks = blame_hunks(output.stdout, text.stdout)
    lines = text.stdout.count(b"\n") + (0 if text.stdout.endswith(b"\n") else 1)
    cut, late = output.cut or text.cut, output.timed_out or text.timed_out
    return _Blamed(checkout, hunks, lines, cut, late)


def _left(first: int, last: int, hunks: list[BlameHunkItem]) -> list[tuple[int, int]]:
    """The line ranges of ``first``-``last`` no hunk covers, in order."""
    ranges: list[tuple[int, int]] = []
    line = first
    for hunk in sorted(hunks, key=lambda h: h.startLine):
        if hunk.startLine > line:
            ranges.append((line, min(hunk.startLine - 1, last)))
        line = max(line, hunk.endLine + 1)
    if line <= last:
        ranges.append((line, last))
    return [(a, b) for a, b in ranges if a <= b]


#: Next calls named for the lines a stopped blame left; more ranges are counted.
_NEXT_CALLS = 5


async def git_blame(ctx: QueryContext, query: GitBlameQuery) -> Answer[GitBlameResult]:
    """The blame hunks of the query's file (or line range) at HEAD."""
    blamed = await git_on(
        ctx, query.path, lambda c: _commands(query, c), _read, max_bytes=MAX_OUTPUT
    )
    checkout, hunks = blamed.checkout, blamed.hunks
    result = with_tokens(
        GitBlameResult(
            repository=str(checkout.work_tree), path=checkout.path, revision="HEAD", hunks=hunks
        ),
        ctx.config,
    )
    answer = Answer(result, partial=blamed.cut)
    if blamed.cut:
        first = query.startLine or 1
        left = _left(first, query.endLine or query.startLine or blamed.lines, hunks)
        why = (
            f"git was stopped after {ctx.config.git_time_limit:g} s (OCTO_GIT_TIME_LIMIT)"
            if blamed.timed_out
            else "git's output reached its limit"
        )
        answer.hint(
            f"{why}: the hunks found by then are shown; {len(left)} line range(s) are left, "
            "each blamed by one of these calls:"
        )
        base = {k: v for k, v in query.params().items() if k not in ("startLine", "endLine")}
        for start, end in left[:_NEXT_CALLS]:
            again = {**base, "startLine": start, "endLine": end}
            answer.hint(f"localGitBlame {compact_json(again)}")
        if len(left) > _NEXT_CALLS:
            answer.hint(f"... and {len(left) - _NEXT_CALLS} more ranges after line {left[4][1]}.")
    if hunks:
        first_hunk = hunks[0]
        again = {
            "path": query.path,
            "startLine": first_hunk.startLine,
            "endLine": first_hunk.endLine,
        }
        answer.hint(
            f"Why these lines are here (pull request, issue): traceLine {compact_json(again)}"
        )
    return answer
