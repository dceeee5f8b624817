"""git stopped at its time limit answers what it read, marked, and leaves no process; a
cancelled query kills git too; no git outlives its runtime, nor octo killed outright."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from octo.transports.git import Checkout
from octo.transports.git import GitCommand
from octo.transports.git import GitProcesses
from octo.transports.git import find_checkout
from octo.transports.git import locate_and_run
from octo.transports.processes import running
from tests.git_repos import Built
from tests.git_repos import Repo
from tests.git_repos import built_once
from tests.lsp.conftest import alive
from tests.lsp.conftest import command_line
from tests.lsp.conftest import descendants_of

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
async def processes() -> AsyncIterator[GitProcesses]:
    group = GitProcesses()
    yield group
    await group.aclose()


@built_once
def _thirty_commits(path: Path) -> Built:
    repo = Repo(path)
    for number in range(30):
        repo.commit(f"c{number}", a_py="".join(f"{i} {number}\n" for i in range(200)))
    return repo, {}


def _checkout(tmp_path: Path) -> Checkout:
    repo, _ = _thirty_commits(tmp_path / "r")
    return find_checkout(repo.path / "a.py", lambda p: p.is_relative_to(tmp_path))


async def test_time_limit_stops_git_and_marks_the_output(
    tmp_path: Path, processes: GitProcesses
) -> None:
    checkout = _checkout(tmp_path)
    blamed, skipped = await locate_and_run(
        lambda: checkout,
        lambda c: [
            GitCommand(["log", "-p", "HEAD"]),
            GitCommand(["blame", "--incremental", "HEAD", "--", c.path]),
        ],
        lambda _, outputs: outputs,
        {},
        processes,
        max_bytes=1 << 20,
        time_limit=0.001,
    )
    assert blamed.timed_out and blamed.cut
    assert skipped.timed_out and skipped.stdout == b""
    assert running().get("git", 0) == 0


async def test_cancelled_query_kills_git(tmp_path: Path, processes: GitProcesses) -> None:
    checkout = _checkout(tmp_path)
    for delay in (0.0, 0.001, 0.005, 0.02):
        with anyio.move_on_after(delay):
            await locate_and_run(
                lambda: checkout,
                lambda _: [GitCommand(["log", "-p", "HEAD"])] * 20,
                lambda _, outputs: outputs,
                {},
                processes,
                max_bytes=1 << 30,
            )
    await anyio.sleep(0.05)
    assert running().get("git", 0) == 0


async def _log_one(checkout: Checkout, processes: GitProcesses) -> None:
    """``git log -1`` in ``checkout``, run in ``processes``' group."""
    await locate_and_run(
        lambda: checkout,
        lambda _: [GitCommand(["log", "-1"])],
        lambda _, o: o,
        {},
        processes,
        max_bytes=4096,
    )


async def test_git_runs_in_the_group_its_runtime_holds_and_ends_with_it(tmp_path: Path) -> None:
    checkout = _checkout(tmp_path)
    processes = GitProcesses()
    await _log_one(checkout, processes)
    holder = processes.group()
    assert alive(holder) and os.getpgid(holder) == holder
    await processes.aclose()
    assert not alive(holder)
    # A group whose holder was killed is held anew on the next start.
    renewed = processes.group()
    os.kill(renewed, signal.SIGKILL)
    await _log_one(checkout, processes)
    assert processes.group() != renewed
    await processes.aclose()


#: octo's side of the next test, run as its own process: a gateway asked for a checkout's
#: history, whose git (a stand-in that sleeps, first on PATH) never ends by itself.
_SERVER = """
import sys, anyio, octo
from octo.core.config import Config

async def main() -> None:
    async with octo.Gateway(Config(), roots=[sys.argv[1]]) as gateway:
        await gateway.call("localGitHistory", [{"path": sys.argv[1]}])

anyio.run(main)
"""


# An octo process started and killed per signal: about a second each.
@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
async def test_no_git_outlives_octo_killed(tmp_path: Path, signum: signal.Signals) -> None:
    checkout = _checkout(tmp_path)
    stand_in = tmp_path / "bin" / "git"
    stand_in.parent.mkdir()
    stand_in.write_text("#!/bin/sh\nexec sleep 60\n")
    stand_in.chmod(0o755)
    env = {**os.environ, "PATH": f"{stand_in.parent}:{os.environ['PATH']}"}
    env["PYTHONPATH"] = str(REPO)
    argv = [sys.executable, "-c", _SERVER, str(checkout.work_tree)]
    octo = await anyio.open_process(argv, env=env, stdin=subprocess.DEVNULL, stdout=None)
    below: list[int] = []
    try:
        with anyio.fail_after(60):
            while not any(command_line(pid)[:1] == ["sleep"] for pid in below):
                assert octo.returncode is None, "octo exited"
                await anyio.sleep(0.05)
                below = descendants_of(octo.pid)
        octo.send_signal(signum)
        await octo.wait()
        with anyio.move_on_after(3):
            while any(alive(pid) for pid in below):  # noqa: ASYNC110 - /proc has no event
                await anyio.sleep(0.05)
        left = [" ".join(command_line(pid)) for pid in below if alive(pid)]
    finally:
        for pid in [octo.pid, *below]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        await octo.aclose()
    assert left == []


def test_gits_environment_is_made_once_per_environment() -> None:
    processes = GitProcesses()
    env = {"PATH": "/usr/bin", "GITHUB_TOKEN": "ghp_" + "a" * 36, "GIT_DIR": "/elsewhere"}
    made = processes.environment(env)
    assert "GITHUB_TOKEN" not in made and "GIT_DIR" not in made and made["PATH"] == "/usr/bin"
    assert processes.environment(dict(env)) is made
    other = processes.environment({**env, "PATH": "/bin"})
    assert other is not made and other["PATH"] == "/bin"
