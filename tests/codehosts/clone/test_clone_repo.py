"""githubCloneRepo end to end: the archive comes through GitHub's cross-host redirect
(octo's token never reaches the archive host), lands in the clone folder, is reused, and
the local tools of the same gateway read it while other paths stay PATH_NOT_ALLOWED."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from collections.abc import Iterator
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from octo import Gateway
from octo.codehosts.clone.extract import FOLDER_BYTES
from octo.core.config import Config
from tests.codehosts.clone.archive_server import URL_TOKEN
from tests.codehosts.clone.archive_server import Host
from tests.codehosts.clone.archive_server import github_with_archive
from tests.codehosts.clone.archives import PROJECT
from tests.codehosts.clone.archives import SHA
from tests.codehosts.clone.archives import build
from tests.codehosts.clone.archives import special

TOKEN = "test-token-not-real-clone"


@pytest.fixture
def servers() -> Iterator[tuple[Host, Host]]:
    with github_with_archive(build()) as both:
        yield both


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The gateway's one configured root."""
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.md").write_text("mine\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "secret.txt").write_text("not yours\n")
    return tmp_path / "work"


def clone_env(api: Host, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path / "home"),
        "GITHUB_API_URL": f"{api.origin}/api/v3",
        "GITHUB_TOKEN": TOKEN,
        "OCTO_CLONE_DIR": str(tmp_path / "clones"),
        **extra,
    }


@pytest.fixture
async def gateway(servers: tuple[Host, Host], tmp_path: Path, work: Path) -> AsyncIterator[Gateway]:
    async with Gateway(Config.from_env(clone_env(servers[0], tmp_path)), roots=[work]) as gw:
        yield gw


def names(folder: Path) -> list[str]:
    """What ``folder`` holds (nothing when it does not exist)."""
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def clones_of(folder: Path) -> list[str]:
    """The clones in the clone folder ``folder``, of every credential identity."""
    return sorted(c.name for i in folder.iterdir() if i.name[0] != "." for c in i.iterdir())


def no_clone_nor_work(folder: Path) -> bool:
    """True when the clone folder holds no clone and no work in progress (nor left over)."""
    return clones_of(folder) == [] and names(folder / ".work") == []


async def one(
    gw: Gateway, tool: str, roots: list[Path] | None = None, **query: Any
) -> Mapping[str, Any]:
    wire: Mapping[str, Any] = (await gw.call(tool, [query], roots=roots)).to_wire()
    result: Mapping[str, Any] = wire["results"][0]
    assert result.get("error", {}).get("code") != "INTERNAL_ERROR", result
    return result


async def test_the_archive_host_never_sees_octos_token(
    gateway: Gateway, servers: tuple[Host, Host], tmp_path: Path
) -> None:
    api, files = servers
    result = await one(gateway, "githubCloneRepo", owner="o", repo="r", ref="main")
    assert result["status"] == "success", result
    data = result["data"]
    assert data["commit"] == SHA
    assert data["fileCount"] == 5 and data["reused"] is False
    assert Path(data["localPath"]).parent.parent == tmp_path / "clones"
    assert (Path(data["localPath"]) / "pkg" / "shapes.py").is_file()
    assert all(h.get("authorization") == f"Bearer {TOKEN}" for _, h in api.requests)
    [(path, headers)] = files.requests
    assert f"token={URL_TOKEN}" in path
    assert "authorization" not in headers and TOKEN not in str(headers)
    assert any("localSearchCode" in hint for hint in result["hints"])


async def test_a_second_clone_of_the_commit_is_reused(
    gateway: Gateway, servers: tuple[Host, Host]
) -> None:
    first = await one(gateway, "githubCloneRepo", owner="o", repo="r", ref="main")
    again = await one(gateway, "githubCloneRepo", owner="o", repo="r", ref="main")
    assert again["data"]["reused"] is True
    assert again["data"]["localPath"] == first["data"]["localPath"]
    assert len(servers[1].requests) == 1  # one download
    fresh = await one(gateway, "githubCloneRepo", owner="o", repo="r", ref=SHA, forceRefresh=True)
    assert fresh["data"]["reused"] is False and len(servers[1].requests) == 2


async def test_local_tools_read_the_clone_and_nothing_else(
    gateway: Gateway, work: Path, tmp_path: Path
) -> None:
    local = Path(
        (await one(gateway, "githubCloneRepo", owner="o", repo="r", ref="main"))["data"][
            "localPath"
        ]
    )
    found = await one(gateway, "localSearchCode", path=str(local), pattern="area_of_square")
    assert found["status"] == "success", found
    assert "pkg/use.py" in str(found["data"])
    read = await one(gateway, "localGetFileContent", path=str(local / "pkg" / "shapes.py"))
    assert "def area_of_square" in read["data"]["content"]
    # A client's narrower roots still reach the clone, never a folder outside both.
    narrowed = await one(
        gateway, "localGetFileContent", roots=[work], path=str(local / "README.md")
    )
    assert narrowed["status"] == "success", narrowed
    for roots in (None, [work], [tmp_path]):
        refused = await one(
            gateway,
            "localGetFileContent",
            roots=roots,
            path=str(tmp_path / "elsewhere" / "secret.txt"),
        )
        assert refused["error"]["code"] == "PATH_NOT_ALLOWED", refused


async def test_an_unsafe_archive_is_refused_and_leaves_nothing(
    servers: tuple[Host, Host], tmp_path: Path, work: Path
) -> None:
    api, files = servers
    evil = build(extra=[special("o-r-0123456/up", b"2", "../../../outside")])
    status, headers, _ = files.routes[f"/o/r/legacy.tar.gz/{SHA}"]
    files.routes[f"/o/r/legacy.tar.gz/{SHA}"] = (status, headers, evil)
    async with Gateway(Config.from_env(clone_env(api, tmp_path)), roots=[work]) as gw:
        result = await one(gw, "githubCloneRepo", owner="o", repo="r", ref="main")
    assert result["error"]["code"] == "INVALID_RESPONSE", result
    assert "links outside" in result["error"]["message"]
    assert no_clone_nor_work(tmp_path / "clones")


async def test_the_byte_cap_is_a_setting(
    servers: tuple[Host, Host], tmp_path: Path, work: Path
) -> None:
    env = clone_env(servers[0], tmp_path, OCTO_CLONE_MAX_BYTES="64")
    async with Gateway(Config.from_env(env), roots=[work]) as gw:
        result = await one(gw, "githubCloneRepo", owner="o", repo="r", ref="main")
    assert result["error"]["code"] == "FILE_TOO_LARGE", result
    assert "OCTO_CLONE_MAX_BYTES" in result["error"]["message"]


async def test_gitlab_clones_from_its_archive_endpoint(tmp_path: Path, work: Path) -> None:
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "GITLAB_HOST": "https://gl.test",
        "OCTO_CLONE_DIR": str(tmp_path / "clones"),
    }
    project = "https://gl.test/api/v4/projects/group%2Fsub%2Fr/repository"
    with respx.mock(assert_all_mocked=True) as router:
        router.get(f"{project}/commits/v1.0").respond(json={"id": SHA, "title": "Release"})
        archive = router.get(f"{project}/archive.tar.gz", params={"sha": SHA, "path": "pkg"}).mock(
            return_value=httpx.Response(200, content=build())
        )
        async with Gateway(Config.from_env(env), roots=[work]) as gw:
            result = await one(
                gw,
                "githubCloneRepo",
                provider="gitlab",
                owner="group/sub",
                repo="r",
                ref="v1.0",
                sparsePath="pkg",
            )
    assert result["status"] == "success", result
    assert archive.called
    local = Path(result["data"]["localPath"])
    assert names(local) == ["pkg"]
    assert result["data"]["fileCount"] == 3


@pytest.mark.slow
async def test_clones_expire_by_age_and_the_least_recently_used_go_first(
    tmp_path: Path, work: Path
) -> None:
    """Over OCTO_CLONE_MAX_TOTAL the least recently used clone goes; past OCTO_CLONE_MAX_AGE a
    clone is downloaded again."""
    project = "https://gl.test/api/v4/projects/o%2Fr/repository"
    shas = {"v1": "1" * 40, "v2": "2" * 40, "v3": "3" * 40}
    # Each clone: its files, two folders and the archive's header: two fit, three do not.
    size = (sum(len(v) for v in PROJECT.values()) + 2 * FOLDER_BYTES) * 5 // 4
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "GITLAB_HOST": "https://gl.test",
        "OCTO_CLONE_DIR": str(tmp_path / "clones"),
        "OCTO_CLONE_MAX_TOTAL": str(size * 2),
    }
    with respx.mock(assert_all_mocked=True) as router:
        for ref, sha in shas.items():
            router.get(f"{project}/commits/{ref}").respond(json={"id": sha})
        archive = router.get(f"{project}/archive.tar.gz").mock(
            return_value=httpx.Response(200, content=build())
        )
        async with Gateway(Config.from_env(env), roots=[work]) as gw:

            async def clone(ref: str) -> Mapping[str, Any]:
                answer = await one(
                    gw, "githubCloneRepo", provider="gitlab", owner="o", repo="r", ref=ref
                )
                data: Mapping[str, Any] = answer["data"]
                return data

            first = await clone("v1")
            await clone("v2")
            assert (await clone("v1"))["reused"] is True  # v1 used last: v2 is older now
            await clone("v3")
            kept = clones_of(tmp_path / "clones")
            assert Path(first["localPath"]).name in kept
            assert not any(name.endswith(shas["v2"][:12]) for name in kept)
            assert archive.call_count == 3
        aged = {**env, "OCTO_CLONE_MAX_AGE": "0.001"}
        async with Gateway(Config.from_env(aged), roots=[work]) as gw:
            again = await one(
                gw, "githubCloneRepo", provider="gitlab", owner="o", repo="r", ref="v1"
            )
            assert again["data"]["reused"] is False and archive.call_count == 4


async def test_a_dead_process_leftovers_are_swept_by_the_next_clone(
    gateway: Gateway, tmp_path: Path
) -> None:
    """Work folders an extraction left when its process died go with the next clone; a
    recent one (another process may be extracting) stays."""
    work = tmp_path / "clones" / ".work"
    work.mkdir(parents=True)
    for name in ("partial-0001", "stale-0003", "partial-busy"):
        (work / name / "pkg").mkdir(parents=True)
        (work / name / "pkg" / "a.py").write_text("x = 1\n")
    (work / "download-0002").write_bytes(b"half an archive")
    for name in ("partial-0001", "download-0002", "stale-0003"):
        os.utime(work / name, (1.0, 1.0))
    result = await one(gateway, "githubCloneRepo", owner="o", repo="r", ref="main")
    assert result["status"] == "success", result
    assert names(work) == ["partial-busy"]
