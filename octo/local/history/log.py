"""localGitHistory: a checkout's commits by path (renames followed), line range (``log -L``),
author, dates, revision range, or text added or removed (the pickaxe), with their files and,
when asked, patches cut to the token budget (a cut patch carries a handle to all of it).
Stopped by git's time limit, the answer holds the commits found by then, partial, and the
next call goes on after the last of them (``resume``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import re2

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import Pagination
from octo.core.budget import page_of
from octo.core.budget import with_tokens
from octo.core.formats import compact_json
from octo.local.history.checkout import git_on
from octo.local.history.models import GitHistoryQuery
from octo.local.history.models import GitHistoryResult
from octo.transports.git import Checkout
from octo.transports.git import GitCommand
from octo.transports.git import GitOutput
from octo.transports.git_records import LOG_FORMAT
from octo.transports.git_records import LoggedCommit
from octo.transports.git_records import logged_commits

#: The most log output read: past it the answer is partial.
MAX_OUTPUT = 32 << 20
#: Commits the pickaxe looks at before it pages (each checked for the text's direction).
PICKAXE_COMMITS = 500


@dataclass(frozen=True)
class Resume:
    """Where a walk goes on (the query's ``resume``, ``<before>:<shown>[:<path>]``): with
    the commits git's walk gives committed at ``before`` (seconds) or earlier, after the
    first ``shown`` of them (those of that second already answered), following ``path``
    (the file's name there, after a rename; None: the query's). git walks newest first, so
    this is exactly where the last answer stopped while commit times run forward."""

    before: int
    shown: int
    path: str | None

    @classmethod
    def read(cls, token: str | None) -> Resume | None:
        """The cursor ``token`` names (its form checked by the query model)."""
        if token is None:
            return None
        before, shown, *path = token.split(":", 2)
        return cls(int(before), int(shown), path[0] if path else None)

    def token(self) -> str:
        """The cursor as the query takes it."""
        return f"{self.before}:{self.shown}" + (f":{self.path}" if self.path else "")


def _searches_text(query: GitHistoryQuery) -> bool:
    return bool(query.added or query.removed)


def _follows(query: GitHistoryQuery, checkout: Checkout) -> bool:
    """True when git follows one file's renames (in the worker thread: it stats)."""
    plain = not (query.startLine or _searches_text(query))
    return plain and bool(checkout.path) and not (checkout.work_tree / checkout.path).is_dir()


def _args(query: GitHistoryQuery, checkout: Checkout, resume: Resume | None) -> list[str]:
    """git log's arguments for the query (its revision after ``--end-of-options``); in the
    worker thread, where a file is told from a folder."""
    args = ["log", LOG_FORMAT, "--no-ext-diff", "--no-textconv", "--no-color"]
    args += [f"--{name}={value}" for name, value in _filters(query)]
    skip = (query.page - 1) * query.limit
    if resume is not None:
        args.append(f"--until=@{resume.before}")  # after the query's own: git takes the last
        skip += resume.shown
    path = resume.path if resume is not None and resume.path else checkout.path
    pathspec = ["--", path] if path else []
    if query.startLine:
        args.append(f"-L{query.startLine},{query.endLine or query.startLine}:{checkout.path}")
        pathspec = []
    elif _searches_text(query):
        term = query.added or query.removed or ""
        args += [f"-G{term}" if query.regex else f"-S{term}", "-p", "--unified=0"]
        # git's --skip counts the commits the pickaxe looks at: the resumed ones are dropped
        # here instead (:func:`_read`).
        args.append(f"--max-count={PICKAXE_COMMITS + (resume.shown if resume else 0)}")
    else:
        args.append("-p" if query.includePatch else "--name-status")
        if _follows(query, checkout):
            args.append("--follow")
    if not _searches_text(query):
        args += [f"--skip={skip}", f"--max-count={query.limit + 1}"]
    return [*args, "--end-of-options", query.ref or "HEAD", *pathspec]


def _filters(query: GitHistoryQuery) -> list[tuple[str, str]]:
    wanted = {"author": query.author, "since": query.since, "until": query.until}
    return [(name, value) for name, value in wanted.items() if value]


def _moved_the_asked_way(commit: LoggedCommit, query: GitHistoryQuery, pattern: Any) -> bool:
    """True when the commit's patch adds (``added``) or removes (``removed``) more of the
    text (``pattern``, compiled) than the other way: git's pickaxe finds both."""
    plus = minus = 0
    for line in commit.patch.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            plus += len(pattern.findall(line[1:]))
        elif line.startswith("-") and not line.startswith("---"):
            minus += len(pattern.findall(line[1:]))
    return plus > minus if query.added else minus > plus


@dataclass
class _Logged:
    """What git answered: the commits of its walk, whole ones only (the resumed pickaxe's
    first ones, answered before, dropped), whether it followed a file, and its output."""

    checkout: Checkout
    commits: list[LoggedCommit]
    follows: bool
    output: GitOutput


class _CommitsRead:
    """Whether git has printed ``wanted`` whole commits (each is whole once the next one's
    separator follows it), counted over the bytes read as they come."""

    def __init__(self, wanted: int) -> None:
        self.wanted = wanted
        self.seen = 0

    def __call__(self, output: bytearray, start: int) -> bool:
        self.seen += output.count(b"\x1e", start)
        return self.seen > self.wanted


def _dropped(query: GitHistoryQuery, resume: Resume | None) -> int:
    """The first commits of git's output answered before (the resumed pickaxe's)."""
    return resume.shown if resume is not None and _searches_text(query) else 0


def _read(
    query: GitHistoryQuery, resume: Resume | None, checkout: Checkout, output: GitOutput
) -> _Logged:
    """git's commits (in the worker thread: the output may be large)."""
    found = logged_commits(output.stdout)
    if output.cut:
        found = found[:-1]  # the last commit read may be cut short
    found = found[_dropped(query, resume) :]
    return _Logged(checkout, found, _follows(query, checkout), output)


def _followed(path: str, commits: list[LoggedCommit]) -> str:
    """The name of the followed file after ``commits`` (newest first), ``path`` before them:
    each commit names it as it was there (``M b.py``), a rename as old and new names."""
    for commit in commits:
        for entry in commit.files:
            status, _, names = entry.partition(" ")
            if status[:1] in ("R", "C"):
                if names.endswith(f" {path}"):
                    path = names[: -len(path) - 1]
            elif names:
                path = names
    return path


def _resume_after(
    shown: list[LoggedCommit], resume: Resume | None, page: int, path: str | None
) -> Resume:
    """The cursor after the walk's commits ``shown`` (non-empty): the last one's second, and
    how many of the walk so far were committed in it (they come first when resumed)."""
    second = shown[-1].committed
    same = len(shown)
    for number, commit in enumerate(reversed(shown)):
        if commit.committed != second:
            same = number
            break
    if same == len(shown) and page == 1 and resume is not None and resume.before == second:
        same += resume.shown
    return Resume(second, same, path)


async def git_history(ctx: QueryContext, query: GitHistoryQuery) -> Answer[GitHistoryResult]:
    """The commits the query selects, newest first, a page at a time; stopped by the time
    limit, the commits found by then with the next call that goes on after them."""
    resume = Resume.read(query.resume)
    logged = await git_on(
        ctx,
        query.path,
        lambda c: [
            GitCommand(
                _args(query, c, resume),
                _CommitsRead(_dropped(query, resume) + 1),
                buffered=not _searches_text(query),
            )
        ],
        lambda c, o: _read(query, resume, c, o[0]),
        max_bytes=MAX_OUTPUT,
    )
    checkout, walked, output = logged.checkout, logged.commits, logged.output
    searched = _searches_text(query)
    if searched:
        term = query.added or query.removed or ""
        pattern = re2.compile(term if query.regex else re2.escape(term))
        kept = [c for c in walked if _moved_the_asked_way(c, query, pattern)]
        commits, pagination = page_of(kept, query.limit, query.page)
        stopped = output.cut or len(walked) >= PICKAXE_COMMITS
        partial = output.cut
    else:
        more = len(walked) > query.limit
        commits = walked[: query.limit]
        last = query.page + 1 if more else query.page
        pagination = Pagination(currentPage=query.page, totalPages=last, hasMore=more)
        stopped = partial = output.cut and not more
    show_patch = query.includePatch or bool(query.startLine)
    share = ctx.config.max_tokens * ctx.config.chars_per_token // max(1, len(commits)) // 2
    items = [_fields(commit, show_patch) for commit in commits]
    for item in items:
        patch = item["patch"]
        if isinstance(patch, str) and len(patch) > share:
            item["patchHandle"] = await ctx.mint_handle(patch, query)
            item["patch"] = patch[:share]
    # Validated at once, the commits as plain fields: a model built per commit costs more.
    answered = GitHistoryResult.model_validate(
        {
            "repository": str(checkout.work_tree),
            "path": checkout.path or ".",
            "commits": items,
            "pagination": pagination,
        }
    )
    result = with_tokens(answered, ctx.config)
    answer = Answer(result, partial=partial)
    if pagination.hasMore:
        answer.hint(
            f"Next page: localGitHistory {compact_json({**query.params(), 'page': query.page + 1})}"
        )
    if stopped:
        answer.hint(_stopped_hint(ctx, query, logged, resume, walked if searched else commits))
    if items and not show_patch:
        answer.hint("The changes themselves: the same query with includePatch=true.")
    return answer


def _stopped_hint(
    ctx: QueryContext,
    query: GitHistoryQuery,
    logged: _Logged,
    resume: Resume | None,
    walked: list[LoggedCommit],
) -> str:
    """What to do when git stopped before the walk's end: the call that goes on after the
    last commit it gave, or, with none, how to narrow the search."""
    why = (
        f"git was stopped after {ctx.config.git_time_limit:g} s (OCTO_GIT_TIME_LIMIT)"
        if logged.output.timed_out
        else "git's output reached its limit"
        if logged.output.cut
        else f"the pickaxe looked at {PICKAXE_COMMITS} commits"
    )
    if not walked:
        return f"{why} before it found a commit: narrow the search (path, since/until, ref)."
    path = None
    if logged.follows:
        start = resume.path if resume is not None and resume.path else logged.checkout.path
        renamed = _followed(start, walked)
        path = renamed if renamed != logged.checkout.path else None
    page = 1 if _searches_text(query) else query.page  # (the pickaxe pages in octo)
    after = _resume_after(walked, resume, page, path)
    params = {k: v for k, v in query.params().items() if k != "page"}
    return (
        f"{why}: the commits found by then are shown. The rest, after the last one: "
        f"localGitHistory {compact_json({**params, 'resume': after.token()})}"
    )


def _fields(commit: LoggedCommit, show_patch: bool) -> dict[str, object]:
    """The fields of one commit as answered (a :class:`HistoryCommit`), its whole patch
    when shown: the caller cuts it to its share of the budget."""
    return {
        "sha": commit.sha,
        "parents": commit.parents,
        "author": commit.author,
        "email": commit.author_mail,
        "date": commit.date,
        "message": commit.message,
        "files": commit.files,
        "patch": commit.patch if show_patch and commit.patch else None,
        "patchHandle": None,
    }
