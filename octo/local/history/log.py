"""localGitHistory: a checkout's commits by path (renames followed), line range (``log -L``),
author, dates, revision range, or text added or removed (the pickaxe), with their files and,
when asked, patches cut to the token budget (a cut patch carries a handle to all of it)."""

from __future__ import annotations

from dataclasses import dataclass

import re2

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import Pagination
from octo.core.budget import page_of
from octo.core.budget import with_tokens
from octo.core.formats import compact_json
from octo.local.history.checkout import git_answer
from octo.local.history.checkout import git_on
from octo.local.history.models import GitHistoryQuery
from octo.local.history.models import GitHistoryResult
from octo.local.history.models import HistoryCommit
from octo.transports.git import Checkout
from octo.transports.git import GitOutput
from octo.transports.git_records import LOG_FORMAT
from octo.transports.git_records import LoggedCommit
from octo.transports.git_records import logged_commits

#: The most log output read: past it the answer is partial.
MAX_OUTPUT = 32 << 20
#: Commits the pickaxe looks at before it pages (each checked for the text's direction).
PICKAXE_COMMITS = 500


def _args(query: GitHistoryQuery, checkout: Checkout) -> list[str]:
    """git log's arguments for the query (its revision after ``--end-of-options``); in the
    worker thread, where a file is told from a folder."""
    args = ["log", LOG_FORMAT, "--no-ext-diff", "--no-textconv", "--no-color"]
    args += [f"--{name}={value}" for name, value in _filters(query)]
    pathspec = ["--", checkout.path] if checkout.path else []
    if query.startLine:
        args.append(f"-L{query.startLine},{query.endLine or query.startLine}:{checkout.path}")
        pathspec = []
    elif query.added or query.removed:
        term = query.added or query.removed or ""
        args += [f"-G{term}" if query.regex else f"-S{term}", "-p", "--unified=0"]
        args.append(f"--max-count={PICKAXE_COMMITS}")
    else:
        args.append("-p" if query.includePatch else "--name-status")
        if checkout.path and not (checkout.work_tree / checkout.path).is_dir():
            args.append("--follow")
    if not (query.added or query.removed):
        args += [f"--skip={(query.page - 1) * query.limit}", f"--max-count={query.limit + 1}"]
    return [*args, "--end-of-options", query.ref or "HEAD", *pathspec]


def _filters(query: GitHistoryQuery) -> list[tuple[str, str]]:
    wanted = {"author": query.author, "since": query.since, "until": query.until}
    return [(name, value) for name, value in wanted.items() if value]


def _moved_the_asked_way(commit: LoggedCommit, query: GitHistoryQuery) -> bool:
    """True when the commit's patch adds (``added``) or removes (``removed``) more of the
    text than the other way: git's pickaxe finds both."""
    term = query.added or query.removed or ""
    pattern = re2.compile(term if query.regex else re2.escape(term))
    plus = minus = 0
    for line in commit.patch.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            plus += len(pattern.findall(line[1:]))
        elif line.startswith("-") and not line.startswith("---"):
            minus += len(pattern.findall(line[1:]))
    return plus > minus if query.added else minus > plus


@dataclass
class _Logged:
    """What git answered: the commits (the pickaxe's kept by direction) and its output."""

    checkout: Checkout
    commits: list[LoggedCommit]
    output: GitOutput


def _read(query: GitHistoryQuery, checkout: Checkout, output: GitOutput) -> _Logged:
    """git's commits (in the worker thread: the output may be large, the pickaxe's patches
    are searched)."""
    found = logged_commits(output.stdout)
    if output.cut:
        found = found[:-1]  # the last commit read may be cut short
    if query.added or query.removed:
        found = [c for c in found if _moved_the_asked_way(c, query)]
    return _Logged(checkout, found, output)


async def git_history(ctx: QueryContext, query: GitHistoryQuery) -> Answer[GitHistoryResult]:
    """The commits the query selects, newest first, a page at a time."""
    logged = await git_on(
        ctx,
        query.path,
        lambda c: [_args(query, c)],
        lambda c, o: _read(query, c, o[0]),
        max_bytes=MAX_OUTPUT,
    )
    checkout, found, output = logged.checkout, logged.commits, logged.output
    if query.added or query.removed:
        commits, pagination = page_of(found, query.limit, query.page)
    else:
        more = len(found) > query.limit
        commits = found[: query.limit]
        last = query.page + 1 if more else query.page
        pagination = Pagination(currentPage=query.page, totalPages=last, hasMore=more)
    show_patch = query.includePatch or bool(query.startLine)
    share = ctx.config.max_tokens * ctx.config.chars_per_token // max(1, len(commits)) // 2
    items = [await _item(ctx, query, commit, show_patch, share) for commit in commits]
    result = with_tokens(
        GitHistoryResult(
            repository=str(checkout.work_tree),
            path=checkout.path or ".",
            commits=items,
            pagination=pagination,
        ),
        ctx.config,
    )
    answer = git_answer(result, output, "commits", "narrow the search (path, since/until, ref)")
    if pagination.hasMore:
        answer.hint(
            f"Next page: localGitHistory {compact_json({**query.params(), 'page': query.page + 1})}"
        )
    if items and not show_patch:
        answer.hint("The changes themselves: the same query with includePatch=true.")
    return answer


async def _item(
    ctx: QueryContext, query: GitHistoryQuery, commit: LoggedCommit, show_patch: bool, share: int
) -> HistoryCommit:
    """One commit as answered: its patch cut to ``share`` characters, the rest behind a
    handle."""
    patch: str | None = None
    handle: str | None = None
    if show_patch and commit.patch:
        patch = commit.patch
        if len(patch) > share:
            handle = await ctx.mint_handle(patch, query)
            patch = patch[:share]
    return HistoryCommit(
        sha=commit.sha,
        parents=commit.parents,
        author=commit.author,
        email=commit.author_mail,
        date=commit.date,
        message=commit.message,
        files=commit.files,
        patch=patch,
        patchHandle=handle,
    )
