"""A hostile archive costs a clone its own child process and nothing else: other queries
answer while it is extracted, cancelling it kills it and leaves nothing behind, and at most
OCTO_CLONE_MAX_CONCURRENT clones download or extract at once."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from octo import Gateway
from octo.core.config import Config
from octo.transports.processes import running
from tests.codehosts.clone.archive_server import Host
from tests.codehosts.clone.archive_server import github_with_archive
from tests.codehosts.clone.archives import SHA
from tests.codehosts.clone.archives import grinding
from tests.codehosts.clone.test_clone_repo import clone_env
from tests.codehosts.clone.test_clone_repo import names
from tests.codehosts.clone.test_clone_repo import no_clone_nor_work
from tests.codehosts.clone.test_clone_repo import one

#: Another commit of the same repository, whose archive is the same grinding one.
OTHER = "fedcba9876543210fedcba9876543210fedcba98"


@pytest.fixture
def servers() -> Iterator[tuple[Host, Host]]:
    """GitHub's stand-ins serving an archive that keeps an extractor busy for minutes, at
    two commits (``main`` and ``other``)."""
    with github_with_archive(grinding(3_000)) as (api, files):
        api.routes["/api/v3/repos/o/r/commits/other"] = (200, {}, OTHER.encode())
        location = api.routes[f"/api/v3/repos/o/r/tarball/{SHA}"][1]["location"]
        api.routes[f"/api/v3/repos/o/r/tarball/{OTHER}"] = (
            302,
            {"location": location.replace(SHA, OTHER)},
            b"",
        )
        files.routes[f"/o/r/legacy.tar.gz/{OTHER}"] = files.routes[f"/o/r/legacy.tar.gz/{SHA}"]
        yield api, files


async def until(condition: Callable[[], bool]) -> None:
    """Wait (in small steps, no deadline of its own) until ``condition`` holds."""
    while True:
        if condition():
            return
        await anyio.sleep(0.01)


def extracting(clones: Path) -> bool:
    """True once an extraction's work folder is there (its child is running)."""
    return any(name.startswith("partial-") for name in names(clones / ".work"))


async def test_other_queries_answer_while_an_archive_is_extracted(
    servers: tuple[Host, Host], tmp_path: Path
) -> None:
    """Then the clone is cancelled (as its deadline does): its child is killed, and neither
    its download nor its work folder is left."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.md").write_text("mine\n")
    clones = tmp_path / "clones"
    done: list[str] = []

    async def clone(gw: Gateway) -> None:
        await one(gw, "githubCloneRepo", owner="o", repo="r", ref="main")
        done.append("clone")

    env = clone_env(servers[0], tmp_path)
    async with (
        Gateway(Config.from_env(env), roots=[work]) as gw,
        anyio.create_task_group() as tasks,
    ):
        tasks.start_soon(clone, gw)
        await until(lambda: extracting(clones))
        for _ in range(3):
            listed = await one(gw, "localViewStructure", path=str(work))
            assert listed["status"] == "success", listed
            done.append("listing")
        assert done == ["listing"] * 3  # the clone is still being extracted
        tasks.cancel_scope.cancel()
    await until(lambda: not running().get("extract") and no_clone_nor_work(clones))


@pytest.mark.slow
async def test_concurrent_clones_are_limited_by_a_setting(
    servers: tuple[Host, Host], tmp_path: Path
) -> None:
    api, files = servers
    env = clone_env(api, tmp_path, OCTO_CLONE_MAX_CONCURRENT="1")
    clones = tmp_path / "clones"
    async with (
        Gateway(Config.from_env(env), roots=[tmp_path]) as gw,
        anyio.create_task_group() as tasks,
    ):
        for ref in ("main", "other"):
            tasks.start_soon(_clone, gw, ref)
        await until(lambda: extracting(clones))
        # The second clone waits its turn: it resolved its commit, downloads nothing.
        await until(lambda: len(api.requests) >= 3)
        await anyio.sleep(0.5)
        assert len(api.requests) == 3 and len(files.requests) == 1
        assert running()["extract"] == 1
        tasks.cancel_scope.cancel()
    await until(lambda: not running().get("extract") and no_clone_nor_work(clones))


async def _clone(gw: Gateway, ref: str) -> None:
    await one(gw, "githubCloneRepo", owner="o", repo="r", ref=ref)
