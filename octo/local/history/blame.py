"""localGitBlame: who last changed each line of a file range at HEAD, grouped into hunks
(``git blame --incremental`` of the committed file over its text at HEAD: the work tree is
never read). Stopped at the time limit, the answer holds the hunks git had found, partial."""

from __future__ import annotations

from dataclasses import dataclass

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import with_tokens
from octo.core.errors import InvalidQueryError
from octo.core.formats import compact_json
from octo.local.history.checkout import git_answer
from octo.local.history.checkout import git_on
from octo.local.history.models import BlameHunkItem
from octo.local.history.models import GitBlameQuery
from octo.local.history.models import GitBlameResult
from octo.transports.git import Checkout
from octo.transports.git import GitOutput
from octo.transports.git_records import blame_hunks

#: The most output read (the file, its blame): past it the answer is partial.
MAX_OUTPUT = 64 << 20
#: The file of revisions blame skips, read when the checkout has one.
IGNORE_REVS_FILE = ".git-blame-ignore-revs"


def _commands(query: GitBlameQuery, checkout: Checkout) -> list[list[str]]:
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
    text = ["cat-file", "blob", f"HEAD:{checkout.path}"]
    return [text, [*args, "HEAD", "--", checkout.path]]


@dataclass
class _Blamed:
    """What git answered: the hunks, and whether a limit cut it."""

    checkout: Checkout
    hunks: list[BlameHunkItem]
    cut: bool
    timed_out: bool


def _read(checkout: Checkout, outputs: list[GitOutput]) -> _Blamed:
    """The hunks of git's answer (in the worker thread: a whole file's blame is parsed)."""
    text, output = outputs
    hunks = [
        BlameHunkItem(
            startLine=h.start_line,
            endLine=h.start_line + h.line_count - 1,
            sha=h.sha,
            author=h.author,
            date=h.date,
            summary=h.summary,
            originalLine=h.original_line,
            originalPath=h.original_path,
            lines=h.lines,
        )
        for h in blame_hunks(output.stdout, text.stdout)
    ]
    return _Blamed(checkout, hunks, output.cut or text.cut, output.timed_out or text.timed_out)


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
    answer = git_answer(result, blamed, "hunks", "blame fewer lines (startLine/endLine)")
    if hunks:
        first = hunks[0]
        again = {"path": query.path, "startLine": first.startLine, "endLine": first.endLine}
        answer.hint(
            f"Why these lines are here (pull request, issue): traceLine {compact_json(again)}"
        )
    return answer
