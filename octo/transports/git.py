"""git, read-only, on a checkout treated as hostile input.

octo reads history with the git binary (benchmarks/bench_history.py: libgit2's blame took
0.6x to 1.2x as long, but libgit2 has no ``log -L``, pickaxe nor ignore-revs) under a locked-down
environment: no system or global configuration, no hooks, no fsmonitor, no external diff, textconv or
pager, no credential helper, no transport, no mailmap or attributes file from elsewhere, and
never the working tree (blame and log read committed objects only, so no filter driver
runs). The repository's own ``.git`` is found here, and a ``.git`` file, ``commondir`` or
alternates naming a folder outside the allowed roots is refused before git starts.
docs/security.md has the table of what octo never runs from a repository.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TypeVar

import anyio

from octo.core.errors import InvalidQueryError
from octo.core.errors import NotFoundError
from octo.core.errors import PathNotAllowedError
from octo.core.errors import QueryTimeoutError
from octo.core.errors import ToolNotAvailableError
from octo.transports.processes import child_environment
from octo.transports.processes import track

#: Settings given on git's command line: they win over the repository's own config.
_LOCKED_SETTINGS = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.attributesFile=/dev/null",
    "core.quotePath=false",
    "core.untrackedCache=false",
    "core.sshCommand=false",
    "core.alternateRefsCommand=",
    "diff.external=",
    "diff.submodule=short",
    "credential.helper=",
    "protocol.allow=never",
    "log.showSignature=false",
    "log.mailmap=false",
    "mailmap.file=",
    "mailmap.blob=",
    "blame.ignoreRevsFile=",
    "gc.auto=0",
    "maintenance.auto=false",
    "color.ui=never",
)

#: The only git variables a child sees: none of the caller's ``GIT_*`` reaches it.
_LOCKED_ENVIRONMENT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_ALLOW_PROTOCOL": "",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",
}


@cache
def git_binary() -> str:
    """The git executable; ToolNotAvailableError when there is none."""
    found = shutil.which("git")
    if found is None:
        raise ToolNotAvailableError(
            "git is not installed", hints=["Install git to read a checkout's history."]
        )
    return found


@dataclass(frozen=True)
class Checkout:
    """A git checkout below the allowed roots: its work tree and git folder, and the path
    the query named, relative to the work tree (posix, ``""`` for the tree itself)."""

    work_tree: Path
    git_dir: Path
    path: str


def _pointed(text: str, base: Path) -> Path:
    target = Path(text.strip())
    return (target if target.is_absolute() else base / target).resolve()


def find_checkout(real: Path, inside: Callable[[Path], bool]) -> Checkout:
    """The checkout holding the resolved path ``real``; nothing outside ``inside`` is read.

    Raises NotFoundError when no ``.git`` is found below the allowed roots, and
    PathNotAllowedError when the repository's git folder, its common folder or an
    alternate object store lies outside them (a ``.git`` file pointing elsewhere).
    """
    folder = real if real.is_dir() else real.parent
    while inside(folder):
        dot_git = folder / ".git"
        if dot_git.is_dir() and not dot_git.is_symlink():
            _check_git_dir(dot_git, inside)
            return Checkout(folder, dot_git, _relative(real, folder))
        if dot_git.is_file() and not dot_git.is_symlink():
            text = dot_git.read_text("utf-8", "replace")
            if not text.startswith("gitdir:"):
                break
            git_dir = _pointed(text.removeprefix("gitdir:"), folder)
            _check_git_dir(git_dir, inside)
            return Checkout(folder, git_dir, _relative(real, folder))
        if folder.parent == folder:
            break
        folder = folder.parent
    raise NotFoundError(
        f"'{real}' is not in a git checkout below the allowed roots",
        hints=[
            "Give a path inside a git work tree; a clone made by githubCloneRepo is an "
            "archive without history."
        ],
    )


def _check_git_dir(git_dir: Path, inside: Callable[[Path], bool]) -> None:
    """Refuse a git folder (or its common folder, or an alternate object store) that lies
    outside the allowed roots: git would read it."""
    folders = [git_dir]
    if inside(git_dir) and (git_dir / "commondir").is_file():
        folders.append(_pointed((git_dir / "commondir").read_text("utf-8", "replace"), git_dir))
    for folder in list(folders):
        if not inside(folder):
            continue
        alternates = folder / "objects" / "info" / "alternates"
        if alternates.is_file():
            lines = alternates.read_text("utf-8", "replace").splitlines()
            folders += [_pointed(line, folder / "objects") for line in lines if line.strip()]
    for folder in folders:
        if not inside(folder):
            raise PathNotAllowedError(
                f"the repository's git data is at '{folder}', outside the allowed roots",
                hints=["octo reads a repository only when all its git data is below the roots."],
            )


def _relative(real: Path, work_tree: Path) -> str:
    rel = real.relative_to(work_tree).as_posix()
    return "" if rel == "." else rel


def git_environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without credentials nor any ``GIT_*`` variable, plus the locked settings."""
    kept = {k: v for k, v in child_environment(env).items() if not k.startswith("GIT_")}
    return {**kept, **_LOCKED_ENVIRONMENT}


def git_argv(checkout: Checkout, args: Sequence[str]) -> list[str]:
    """The full command line of ``git args`` on ``checkout``, locked down."""
    settings = [*_LOCKED_SETTINGS, f"safe.directory={checkout.work_tree}"]
    return [
        git_binary(),
        "--no-pager",
        "--literal-pathspecs",
        f"--git-dir={checkout.git_dir}",
        f"--work-tree={checkout.work_tree}",
        *(arg for setting in settings for arg in ("-c", setting)),
        *args,
    ]


@dataclass
class GitOutput:
    """What a git command printed: its stdout, ``cut`` at the caller's byte limit or time
    limit (``timed_out``)."""

    stdout: bytes
    cut: bool = False
    timed_out: bool = False


T = TypeVar("T")

#: The start of git's stderr kept for the error message; the rest is read and dropped.
_STDERR_KEPT = 8192
_NOT_FOUND = re.compile(r"no such path|bad revision|unknown revision|no such ref|bad object")

#: Seconds past its time limit a command may still take to print its first whole record
#: (:attr:`GitCommand.answered`): the hard limit.
GRACE = 1.0


def _at_once(output: bytearray, start: int) -> bool:
    return True


@dataclass(frozen=True)
class GitCommand:
    """One git command: its arguments, and when the time limit stops it. ``answered(output,
    start)`` (``start``: where the bytes read last begin) says whether its output so far
    holds enough to go on from (a whole first commit or hunk); past the time limit git is
    stopped as soon as it does, else at the hard limit (:data:`GRACE` later). By default
    it is stopped at the time limit. ``buffered``: git writes its output in blocks
    (``GIT_FLUSH=0``) rather than a write per record, as it does into a pipe otherwise: a
    plain log of 100 commits takes a fifth less time, but what it found waits for a block to
    fill (the pickaxe and blame, whose records come far apart, keep a write each)."""

    args: Sequence[str]
    answered: Callable[[bytearray, int], bool] = _at_once
    buffered: bool = False


#: What builds the git commands to run once the checkout is found (in the worker thread: it
#: may stat), run in turn.
Commands = Callable[[Checkout], Sequence[GitCommand]]


#: The shell that holds the git processes' group: when its stdin ends (octo died, the kernel
#: closing the pipe whatever killed it, or the runtime closed it) it kills the whole group,
#: every git in it and itself.
_HOLDER = "read _ignored; kill -KILL 0"


class GitProcesses:
    """The git processes of one runtime (a backend), all in one process group held by a
    small shell (:data:`_HOLDER`) whose stdin is a pipe from octo: when octo dies, SIGKILL
    included, or the runtime closes, the pipe ends and the shell kills the group, so no git
    outlives octo. Each git then starts by Python's vfork path straight into that group,
    with no ``setpriv`` exec before it (benchmarks/bench_history.py: a third of a quick
    log's time), nor a ``preexec_fn`` (a fork of the whole server, unsafe once threads run).
    """

    def __init__(self, runtime: object = None) -> None:
        self._lock = threading.Lock()
        self._holder: subprocess.Popen[bytes] | None = None
        self._environment: tuple[frozenset[tuple[str, str]], dict[str, str]] | None = None

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """git's environment made of ``env`` (:func:`git_environment`), kept for the next
        git of the same ``env``: each variable's value is checked for a secret's shape."""
        key = frozenset(env.items())
        kept = self._environment
        if kept is None or kept[0] != key:
            kept = self._environment = (key, git_environment(env))
        return kept[1]

    def group(self, failed: int | None = None) -> int:
        """The group's id (its holder's pid), the holder started when none runs or its
        group is the one a start ``failed`` to join; called from worker threads."""
        with self._lock:
            holder = self._holder
            if holder is not None and (holder.pid == failed or holder.poll() is not None):
                _ended(holder)
                holder = None
            if holder is None:
                holder = self._holder = subprocess.Popen(
                    ["/bin/sh", "-c", _HOLDER],
                    env={},
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    process_group=0,
                )
            return holder.pid

    async def aclose(self) -> None:
        """End the group: its holder kills every git still in it, then itself."""
        with self._lock:
            holder, self._holder = self._holder, None
        if holder is not None:
            await anyio.to_thread.run_sync(_ended, holder)


def _ended(holder: subprocess.Popen[bytes]) -> None:
    """The group ended: its holder's stdin closed, so it kills the group, and waited for."""
    assert holder.stdin is not None  # (a pipe)
    holder.stdin.close()
    holder.wait()


async def run_git(
    checkout: Checkout,
    args: Sequence[str],
    env: Mapping[str, str],
    processes: GitProcesses,
    *,
    max_bytes: int,
) -> GitOutput:
    """Run ``git args`` on ``checkout``: see :func:`locate_and_run`."""
    return await locate_and_run(
        lambda: checkout,
        lambda _: [GitCommand(args)],
        lambda _, outputs: outputs[0],
        env,
        processes,
        max_bytes=max_bytes,
    )


async def locate_and_run(
    locate: Callable[[], Checkout],
    commands: Commands,
    read: Callable[[Checkout, list[GitOutput]], T],
    env: Mapping[str, str],
    processes: GitProcesses,
    *,
    max_bytes: int,
    time_limit: float | None = None,
) -> T:
    """Find the checkout (``locate``), run the git ``commands(checkout)`` in turn, reading
    each one's stdout up to ``max_bytes`` (then it is killed and its output says ``cut``),
    and ``read`` what they printed, git started in the group of ``processes``: one
    worker-thread hop for all of it (git waited for there, no child watcher per process;
    its output parsed off the event loop). Past ``time_limit`` seconds the command running
    is killed once it has answered (:class:`GitCommand`; its output so far, ``timed_out``),
    and the rest start only before the hard limit. Cancelled (the caller's deadline), git
    is killed.

    Raises NotFoundError for a path or revision git does not know, InvalidQueryError for
    any other refusal.
    """
    deadline = None if time_limit is None else time.monotonic() + time_limit
    run = _GitRun(processes.environment(env), processes, max_bytes, deadline)

    def blocking() -> T:
        checkout = locate()
        return read(checkout, run.outputs(checkout, commands(checkout)))

    try:
        return await anyio.to_thread.run_sync(blocking, abandon_on_cancel=True)
    finally:
        run.stop()


class _GitRun:
    """git processes run in turn from a worker thread, which the event loop can stop."""

    def __init__(
        self, env: dict[str, str], processes: GitProcesses, max_bytes: int, deadline: float | None
    ) -> None:
        self.env = env
        self.processes = processes
        self.max_bytes = max_bytes
        self.deadline = deadline
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None
        self.stopped = False

    def stop(self) -> None:
        """Kill git if it still runs; a process not started yet never starts."""
        with self.lock:
            self.stopped = True
            if self.process is not None and self.process.poll() is None:
                _kill(self.process)

    def outputs(self, checkout: Checkout, commands: Sequence[GitCommand]) -> list[GitOutput]:
        """What each command printed, run in turn; those the time limit leaves out are
        empty, ``timed_out``."""
        outputs: list[GitOutput] = []
        for command in commands:
            if self.deadline is not None and time.monotonic() >= self.deadline + GRACE:
                outputs.append(GitOutput(b"", cut=True, timed_out=True))
                continue
            outputs.append(self._one(checkout, command))
        return outputs

    def _one(self, checkout: Checkout, command: GitCommand) -> GitOutput:
        with self.lock:
            if self.stopped:
                raise QueryTimeoutError("the query ended before git started")
            argv = git_argv(checkout, command.args)
            group = self.processes.group()
            try:
                process = self._start(argv, checkout, group, command.buffered)
            except PermissionError:  # the group ended (its holder killed) as git started
                failed = self.processes.group(failed=group)
                process = self._start(argv, checkout, failed, command.buffered)
            self.process = process
        track("git", process)
        with process:
            output, errors, cut, late = self._read(process, command.answered)
            process.wait()
        if process.returncode != 0 and not cut:
            _refused(bytes(errors).decode("utf-8", "replace").strip(), process.returncode)
        return GitOutput(bytes(output[: self.max_bytes]), cut, late)

    def _start(
        self, argv: list[str], checkout: Checkout, group: int, buffered: bool
    ) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv,
            env={**self.env, "GIT_FLUSH": "0"} if buffered else self.env,
            cwd=checkout.work_tree,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # A process group, not a session: Python starts it by vfork then (setsid forces a
            # fork of the whole server), half the cost of a start.
            process_group=group,
        )

    def _read(
        self, process: subprocess.Popen[bytes], answered: Callable[[bytearray, int], bool]
    ) -> tuple[bytearray, bytearray, bool, bool]:
        """stdout up to the limits (past them git is killed: cut, and late when it was the
        time) and the start of stderr, both pipes read as they fill so neither blocks git."""
        assert process.stdout is not None and process.stderr is not None  # (pipes)
        output, errors = bytearray(), bytearray()
        soft = hard = None
        if self.deadline is not None:
            soft, hard = self.deadline, self.deadline + GRACE
        start = 0
        # poll, not epoll: two pipes, and no kernel object to make and close per git.
        with selectors.PollSelector() as pipes:
            pipes.register(process.stdout, selectors.EVENT_READ, output)
            pipes.register(process.stderr, selectors.EVENT_READ, errors)
            while pipes.get_map():
                left = None
                if soft is not None and hard is not None:
                    now = time.monotonic()
                    if now >= hard or (now >= soft and answered(output, start)):
                        _kill(process)
                        return output, errors, True, True
                    if now >= soft:
                        start = len(output)  # read up to here: none of it answered
                    left = (soft if now < soft else hard) - now
                for key, _ in pipes.select(left):
                    chunk = os.read(key.fd, 1 << 16)
                    if not chunk:
                        pipes.unregister(key.fileobj)
                    elif key.data is output:
                        output += chunk
                        if len(output) > self.max_bytes:
                            _kill(process)
                            return output, errors, True, False
                    elif len(errors) < _STDERR_KEPT:
                        errors += chunk
        return output, errors, False, False


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill git (only git: it starts nothing, and its group holds the runtime's others)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGKILL)


def _refused(message: str, code: int) -> None:
    """Raise git's refusal as the query's error."""
    first = message.splitlines()[0] if message else f"git exited {code}"
    first = first.removeprefix("fatal: ")
    if _NOT_FOUND.search(first):
        raise NotFoundError(first, hints=["Check the path and the ref (a branch, tag or sha)."])
    raise InvalidQueryError(first, hints=["Check the query's ref, dates and line range."])
