"""A clone is visible only to the credential identity that fetched it, as content handles
are: another token, no token, or another gateway on the same clone folder reads none of
it; the clone folder is owner-only, and its records are read through no tool."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from octo import Gateway
from octo.core.config import Config
from tests.codehosts.clone.archive_server import Host
from tests.codehosts.clone.archive_server import github_with_archive
from tests.codehosts.clone.archives import build
from tests.codehosts.clone.test_clone_repo import clone_env
from tests.codehosts.clone.test_clone_repo import one

QUERY: dict[str, Any] = {"owner": "o", "repo": "r", "ref": "main"}


@pytest.fixture
def api() -> Iterator[Host]:
    with github_with_archive(build()) as (api, _):
        yield api


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def modes_below(folder: Path) -> set[int]:
    return {mode(p) for p in folder.rglob("*")}


def records(clones: Path) -> list[Path]:
    """Every record file in the clone folder."""
    return sorted(p for p in clones.rglob("*.json") if ".records" in p.parts)


async def refused(gw: Gateway, tool: str, roots: list[Path] | None = None, **query: str) -> None:
    result = await one(gw, tool, roots=roots, **query)
    assert result["error"]["code"] == "PATH_NOT_ALLOWED", result


async def test_another_identity_reads_nothing_of_a_clone(api: Host, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    clones = tmp_path / "clones"
    mine = clone_env(api, tmp_path)
    others = [
        {k: v for k, v in mine.items() if k != "GITHUB_TOKEN"},
        {**mine, "GITHUB_TOKEN": "another-token-not-real"},
    ]
    async with Gateway(Config.from_env(mine), roots=[work]) as gw:
        local = Path((await one(gw, "githubCloneRepo", **QUERY))["data"]["localPath"])
        [record] = records(clones)
        # Not even its own identity reads the records or the clone folder itself.
        await refused(gw, "localGetFileContent", path=str(record))
        await refused(gw, "localViewStructure", path=str(clones))
    for env in others:
        async with Gateway(Config.from_env(env), roots=[work]) as gw:
            await refused(gw, "localGetFileContent", path=str(local / "pkg" / "shapes.py"))
            await refused(gw, "localViewStructure", path=str(local))
            await refused(gw, "localSearchCode", path=str(local), pattern="area_of_square")
            await refused(gw, "localFindFiles", path=str(local.parent), name="*.py")
            await refused(gw, "localViewStructure", path=str(clones / ".records"))
            await refused(gw, "localGetFileContent", path=str(record))
            theirs = await one(gw, "githubCloneRepo", **QUERY)
            assert theirs["data"]["reused"] is False
            assert Path(theirs["data"]["localPath"]) != local
    assert len(records(clones)) == 3


async def test_a_root_holding_the_clone_folder_reaches_only_its_own_clones(
    api: Host, tmp_path: Path
) -> None:
    """Roots are the ceiling, but the clone folder is fenced inside them: a root above it
    reaches this identity's clones and nothing else of it."""
    env = clone_env(api, tmp_path)
    async with Gateway(Config.from_env(env), roots=[tmp_path]) as gw:
        local = Path((await one(gw, "githubCloneRepo", **QUERY))["data"]["localPath"])
        [record] = records(tmp_path / "clones")
        await refused(gw, "localGetFileContent", path=str(record))
        await refused(gw, "localViewStructure", path=str(tmp_path / "clones"))
        await refused(gw, "localViewStructure", path="clones/.records")
        read = await one(gw, "localGetFileContent", path=str(local / "README.md"))
        assert read["status"] == "success", read
    async with Gateway(Config.from_env({**env, "GITHUB_TOKEN": "another"}), roots=[tmp_path]) as gw:
        await refused(gw, "localGetFileContent", path=str(local / "README.md"))


async def test_the_clone_folder_is_owner_only(api: Host, tmp_path: Path) -> None:
    clones = tmp_path / "clones"
    clones.mkdir(mode=0o755)
    async with Gateway(Config.from_env(clone_env(api, tmp_path)), roots=[tmp_path]) as gw:
        local = Path((await one(gw, "githubCloneRepo", **QUERY))["data"]["localPath"])
    folders = [clones, clones / ".records", clones / ".work", local.parent, local]
    assert {mode(f) for f in folders} == {0o700}
    assert modes_below(local) | {mode(r) for r in records(clones)} <= {0o700, 0o600, 0o400}
