"""git stopped at its time limit answers what it read, marked, and leaves no process; a
cancelled query kills git too."""

from __future__ import annotations

from pathlib import Path

import anyio

from octo.transports.git import Checkout
from octo.transports.git import find_checkout
from octo.transports.git import locate_and_run
from octo.transports.processes import running
from tests.git_repos import Repo


def _checkout(tmp_path: Path) -> Checkout:
    repo = Repo(tmp_path / "r")
    for number in range(30):
        repo.commit(f"c{number}", a_py="".join(f"{i} {number}\n" for i in range(200)))
    return find_checkout(repo.path / "a.py", lambda p: p.is_relative_to(tmp_path))


async def test_time_limit_stops_git_and_marks_the_output(tmp_path: Path) -> None:
    checkout = _checkout(tmp_path)
    blamed, skipped = await locate_and_run(
        lambda: checkout,
        lambda c: [["log", "-p", "HEAD"], ["blame", "--incremental", "HEAD", "--", c.path]],
        lambda _, outputs: outputs,
        {},
        max_bytes=1 << 20,
        time_limit=0.001,
    )
    assert blamed.timed_out and blamed.cut
    assert skipped.timed_out and skipped.stdout == b""
    assert running().get("git", 0) == 0


async def test_cancelled_query_kills_git(tmp_path: Path) -> None:
    checkout = _checkout(tmp_path)
    for delay in (0.0, 0.001, 0.005, 0.02):
        with anyio.move_on_after(delay):
            await locate_and_run(
                lambda: checkout,
                lambda _: [["log", "-p", "HEAD"]] * 20,
                lambda _, outputs: outputs,
                {},
                max_bytes=1 << 30,
            )
    await anyio.sleep(0.05)
    assert running().get("git", 0) == 0
