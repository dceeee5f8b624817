"""traceLine: why a line range is there, in one call. The blame of the lines (a local
checkout's, read by the locked-down git of ``octo.transports.git``, or a remote file's) ->
each commit (message, author, date, that file's diff) -> the pull (merge) requests that
brought it in (for a checkout through its ``origin`` remote, when that is the configured
GitHub or GitLab) -> the issues they close or reference. Each link is cut to its share of
the token budget, the rest behind content handles; the steps of one commit run
concurrently, and every request goes through the host's cache."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlparse

import anyio
import re2

from octo.codehosts.history.file_blame import lines_of
from octo.codehosts.history.file_blame import remote_blame
from octo.codehosts.hosts.github.backend import GitHubBackend
from octo.codehosts.hosts.github.policy import api_url
from octo.codehosts.hosts.github.policy import web_host
from octo.codehosts.hosts.gitlab.backend import GitLabBackend
from octo.codehosts.hosts.gitlab.policy import web_root
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import follow_up_hints
from octo.codehosts.hosts.routing import web_host_entry
from octo.codehosts.models.lines import IssueRef
from octo.codehosts.models.lines import PullRef
from octo.codehosts.models.lines import TracedCommit
from octo.codehosts.models.lines import TracedPull
from octo.codehosts.models.lines import TraceLineQuery
from octo.codehosts.models.lines import TraceLineResult
from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import with_tokens
from octo.core.concurrency import map_ordered
from octo.core.errors import InvalidQueryError
from octo.core.errors import OctoError
from octo.core.queries import BlameHunkItem
from octo.transports.git import Checkout
from octo.transports.git import GitCommand
from octo.transports.git import GitOutput
from octo.transports.git import GitProcesses
from octo.transports.git import find_checkout
from octo.transports.git import locate_and_run
from octo.transports.git import run_git
from octo.transports.git_records import LOG_FORMAT
from octo.transports.git_records import blame_hunks
from octo.transports.git_records import logged_commits

#: Commits traced at most (the first ones of the range); pull requests per commit; issues
#: per pull request.
MAX_COMMITS = 5
MAX_PULLS = 3
MAX_ISSUES = 5
#: Characters of a pull request's or an issue's body shown; the rest behind a handle.
BODY_CHARS = 600
#: The most git output read for the blame of a range or one commit's diff of a file, and
#: the seconds the blame may take (past them the commits found by then are traced).
MAX_GIT_BYTES = 8 << 20
GIT_TIME_LIMIT = 3.0

#: ``Fixes #12``, ``closes owner/repo#3``, a bare ``group/sub/project#5`` or ``#7``, or an
#: issue's URL: the references a pull request's body makes. RE2: a body is someone else's
#: text, read in linear time.
_REFERENCE = re2.compile(
    r"(?i)(?:^|[^\w/#])(?P<keyword>(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+)?"
    r"(?:https?://[^\s/]+/(?P<url_repo>[\w.-]+(?:/[\w.-]+)*?)/(?:-/)?issues/(?P<url_number>\d+)"
    r"|(?P<repo>[\w.-]+(?:/[\w.-]+)+)?#(?P<number>\d+))"
)


@dataclass(frozen=True)
class _Remote:
    """Where the chain goes on: a host and a repository on it."""

    host: CodeHost
    owner: str
    repo: str


def references(body: str, repository: str) -> list[IssueRef]:
    """The issues ``body`` names (in ``repository`` when it names no other), closing ones
    marked; each once, in order."""
    found: dict[tuple[str, int], IssueRef] = {}
    for match in _REFERENCE.finditer(body):
        repo = match.group("url_repo") or match.group("repo") or repository
        number = int(match.group("url_number") or match.group("number"))
        key = (repo.lower(), number)
        closes = bool(match.group("keyword"))
        if key in found:
            found[key].closes = found[key].closes or closes
        else:
            found[key] = IssueRef(repository=repo, number=number, closes=closes)
    return list(found.values())


def origin_place(ctx: QueryContext, url: str) -> _Remote | None:
    """The configured host and repository an ``origin`` URL names (https, ssh or scp-like):
    the hosts file entry listing its host in ``web_hosts``, else the environment's GitHub or
    GitLab; None when it is on no host octo is configured for."""
    text = url.strip().removesuffix("/").removesuffix(".git")
    if "://" not in text and ":" in text:
        user_host, _, path = text.partition(":")
        host = user_host.rpartition("@")[2]
    else:
        parsed = urlparse(text)
        host, path = parsed.hostname or "", parsed.path
    path = path.strip("/")
    configured = web_host_entry(ctx, host)
    if configured is not None:
        owner, _, repo = path.rpartition("/")
        if configured.provider == "github":
            owner, _, repo = path.partition("/")
        return _Remote(configured, owner, repo) if owner and repo else None
    env = ctx.config.env
    if host == web_host(api_url(env)):
        owner, _, repo = path.partition("/")
        return _Remote(ctx.backend(GitHubBackend), owner, repo) if owner and repo else None
    gitlab = urlparse(web_root(env))
    if host == gitlab.hostname:
        path = path.removeprefix(gitlab.path.strip("/")).strip("/")
        owner, _, repo = path.rpartition("/")
        return _Remote(ctx.backend(GitLabBackend), owner, repo) if owner and repo else None
    return None


async def _local_links(
    ctx: QueryContext, query: TraceLineQuery
) -> tuple[Checkout, list[TracedCommit], str | None]:
    """The blamed commits of a local file's lines, and the ``origin`` URL (None: none)."""
    paths = ctx.paths

    def found() -> Checkout:
        return find_checkout(paths.resolve(query.path), lambda p: paths.root_of(p) is not None)

    def blame_commands(checkout: Checkout) -> list[GitCommand]:
        if not checkout.path:
            raise InvalidQueryError("traceLine needs a file", hints=["Name a file, not a folder."])
        span = f"-L{query.startLine},{query.endLine or query.startLine}"
        revision = query.ref or "HEAD"
        text = ["cat-file", "blob", f"{revision}:{checkout.path}"]
        # (git blame takes no --end-of-options: the query's ref never starts with "-".)
        blame = ["blame", "--incremental", "--no-textconv", span, revision]
        return [GitCommand(text), GitCommand([*blame, "--", checkout.path])]

    def hunks_of(
        checkout: Checkout, outputs: list[GitOutput]
    ) -> tuple[Checkout, list[BlameHunkItem]]:
        text, blamed = outputs
        return checkout, blame_hunks(blamed.stdout, text.stdout)[:MAX_COMMITS]

    env, processes = ctx.config.env, ctx.backend(GitProcesses)
    checkout, hunks = await locate_and_run(
        found,
        blame_commands,
        hunks_of,
        env,
        processes,
        max_bytes=MAX_GIT_BYTES,
        time_limit=GIT_TIME_LIMIT,
    )

    async def link(index: int) -> TracedCommit:
        hunk = hunks[index]
        args = ["log", LOG_FORMAT, "-1", "-p", "--no-ext-diff", "--no-textconv"]
        args += ["--end-of-options", hunk.sha, "--", hunk.originalPath or checkout.path]
        shown = await run_git(checkout, args, env, processes, max_bytes=MAX_GIT_BYTES)
        commits = logged_commits(shown.stdout)
        message = commits[0].message if commits else hunk.summary
        patch = commits[0].patch if commits else ""
        return TracedCommit(
            sha=hunk.sha,
            lines=[hunk.startLine, hunk.endLine],
            author=hunk.author,
            date=hunk.date,
            message=message,
            patch=patch,
        )

    links = await map_ordered(link, list(range(len(hunks))))
    try:
        origin = await run_git(
            checkout, ["config", "--get", "remote.origin.url"], env, processes, max_bytes=4096
        )
    except OctoError:
        return checkout, links, None
    return checkout, links, origin.stdout.decode("utf-8", "replace").strip() or None


async def _remote_links(remote: _Remote, query: TraceLineQuery) -> list[TracedCommit]:
    """The blamed commits of a remote file's lines (their messages and patches are read
    with the rest of the chain: :func:`_read_commit`)."""
    _, reply = await remote_blame(remote.host, remote.owner, remote.repo, query.path, query.ref)
    ranges = lines_of(reply.value, query.startLine, query.endLine)[:MAX_COMMITS]
    return [
        TracedCommit(
            sha=r.sha,
            lines=[r.startLine, r.endLine],
            author=r.author,
            date=r.date,
            message=r.summary,
        )
        for r in ranges
    ]


async def _read_commit(remote: _Remote, link: TracedCommit, path: str) -> None:
    """``link`` with its whole message and the file's patch in the commit (the blame's
    summary alone when the host cannot say)."""
    try:
        detail = (await remote.host.commit(remote.owner, remote.repo, link.sha)).value
    except OctoError:
        return
    wanted = path.strip("/")
    link.message = detail.message or link.message
    link.patch = next(
        (f.patch or "" for f in detail.files if wanted in (f.filename, f.previous_filename)), ""
    )


class _Cutter:
    """Texts cut to their share of the budget, the whole behind a content handle."""

    def __init__(self, ctx: QueryContext, query: TraceLineQuery) -> None:
        self.ctx = ctx
        self.query = query
        self.cut = 0

    async def __call__(self, text: str, limit: int) -> tuple[str, str | None]:
        if len(text) <= limit:
            return text, None
        self.cut += 1
        handle = await self.ctx.mint_handle(text, self.query, local=False)
        return text[:limit], handle


async def _issues(remote: _Remote, pull: PullRef, cutter: _Cutter) -> list[IssueRef]:
    """The issues ``pull`` closes (the host's word, then its body's keywords) or
    references, each read (title, state, the start of its body); pull requests named like
    issues are left out."""
    home = pull.repository or f"{remote.owner}/{remote.repo}"
    listed = (await remote.host.closing_issues(remote.owner, remote.repo, pull.number)).value
    known = {(i.repository.lower(), i.number) for i in listed}
    named = [
        i for i in references(pull.body, home) if (i.repository.lower(), i.number) not in known
    ]
    wanted = [*listed, *named]

    async def read(issue: IssueRef) -> IssueRef | None:
        if issue.title is None:
            owner, _, repo = issue.repository.rpartition("/")
            try:
                page = (await remote.host.issue(owner, repo, issue.number)).value
            except OctoError:
                return issue
            if page.pull_request or not page.issues:
                return None
            found = page.issues[0]
            issue = issue.model_copy(
                update={
                    "title": found.title,
                    "state": found.state,
                    "url": found.html_url,
                    "body": found.body or "",
                }
            )
        body, handle = await cutter(issue.body or "", BODY_CHARS)
        return issue.model_copy(update={"body": body or None, "bodyHandle": handle})

    read_all = await map_ordered(read, wanted[:MAX_ISSUES])
    return [issue for issue in read_all if issue is not None]


async def _pulls(
    remote: _Remote, link: TracedCommit, depth: str, cutter: _Cutter
) -> tuple[list[TracedPull] | None, str | None]:
    """The pull requests of ``link``'s commit with their issues, or why there are none."""
    try:
        pulls = (await remote.host.commit_pulls(remote.owner, remote.repo, link.sha)).value
    except OctoError as exc:
        return None, f"{remote.host.name} did not list the commit's {remote.host.pulls_noun}: {exc}"
    if not pulls:
        return (
            [],
            f"No {remote.host.pulls_noun[:-1]} lists this commit (pushed directly, or it is gone).",
        )

    async def traced(pull: PullRef) -> TracedPull:
        body, handle = await cutter(pull.body, BODY_CHARS)
        issues: list[IssueRef] | None = None
        if depth == "issue":
            try:
                issues = await _issues(remote, pull, cutter)
            except OctoError:
                issues = None
        return TracedPull(
            number=pull.number,
            title=pull.title,
            state=pull.state,
            url=pull.url,
            body=body or None,
            bodyHandle=handle,
            issues=issues,
        )

    return await map_ordered(traced, pulls[:MAX_PULLS]), None


async def trace_line(ctx: QueryContext, query: TraceLineQuery) -> Answer[TraceLineResult]:
    """The chain of the query's lines: blame, commit, pull requests, issues."""
    remote: _Remote | None = None
    stopped: str | None = None
    if query.owner and query.repo:
        remote = _Remote(choose_host(ctx, query), query.owner, query.repo)
        links = await _remote_links(remote, query)
    else:
        _, links, origin = await _local_links(ctx, query)
        if query.depth != "commit":
            remote = origin_place(ctx, origin) if origin else None
            if remote is None:
                stopped = (
                    "The checkout has no origin remote."
                    if origin is None
                    else f"origin ({origin}) is not on the GitHub or GitLab host octo is configured for."
                )
    budget = ctx.config.max_tokens * ctx.config.chars_per_token
    share = max(400, budget // max(1, len(links)) // 3)
    cutter = _Cutter(ctx, query)

    async def traced(link: TracedCommit) -> TracedCommit:
        pulls: list[TracedPull] | None = None
        why = stopped

        async def chain(on: _Remote) -> None:
            nonlocal pulls, why
            pulls, why = await _pulls(on, link, query.depth, cutter)

        # The commit and its pull requests do not depend on each other: asked at once.
        async with anyio.create_task_group() as group:
            if remote is not None and query.owner:
                group.start_soon(_read_commit, remote, link, query.path)
            if remote is not None and query.depth != "commit":
                group.start_soon(chain, remote)
        patch, patch_handle = await cutter(link.patch or "", share)
        return link.model_copy(
            update={
                "patch": patch or None,
                "patchHandle": patch_handle,
                "pullRequests": pulls,
                "stoppedBecause": why,
            }
        )

    commits = await map_ordered(traced, links)
    repository = f"{remote.owner}/{remote.repo}" if remote else None
    result = with_tokens(
        TraceLineResult(path=query.path, repository=repository, commits=commits), ctx.config
    )
    answer = Answer(result)
    if cutter.cut:
        answer.hint(
            f'{cutter.cut} text(s) cut to fit: getCachedContent {{"handle": ...}} reads one whole.'
        )
    if remote is not None:
        answer.hint(*_next_calls(remote.host, commits))
    if remote is not None:
        answer.hint(*follow_up_hints(remote.host))
    return answer


def _next_calls(host: CodeHost, commits: list[TracedCommit]) -> list[str]:
    """The reads that go on from the first pull request and the first issue found."""
    pulls = [p for c in commits for p in c.pullRequests or ()]
    issues = [i for p in pulls for i in p.issues or ()]
    hints: list[str] = []
    if pulls:
        owner, _, repo = _repository_of(pulls[0].url)
        if owner and repo:
            hints.append(
                "A pull request's diff and discussion: "
                + call(
                    host,
                    "githubSearchPullRequests",
                    owner=owner,
                    repo=repo,
                    prNumber=pulls[0].number,
                    withComments=True,
                )
            )
    if issues:
        owner, _, repo = issues[0].repository.rpartition("/")
        hints.append(
            "An issue's discussion: "
            + call(host, "githubSearchIssues", owner=owner, repo=repo, issueNumber=issues[0].number)
        )
    return hints


def _repository_of(url: str) -> tuple[str, str, str]:
    """``(owner, "/", repo)`` of a pull request's web URL (``.../o/r/pull/7``,
    ``.../g/p/-/merge_requests/4``)."""
    path = urlparse(url).path.strip("/")
    for marker in ("/-/merge_requests/", "/pull/"):
        if marker in path:
            return path.partition(marker)[0].rpartition("/")
    return "", "", ""
