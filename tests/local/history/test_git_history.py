"""localGitHistory and localGitBlame answer what git itself answers for the same inputs, on
repositories built here (renames, a merge, a line moved between files, whitespace-only
changes, a removed function found by the pickaxe)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config
from tests.git_repos import Repo
from tests.git_repos import blamed_lines
from tests.git_repos import history_repo
from tests.local.conftest import Call


@pytest.fixture
def built(root: Path) -> tuple[Repo, dict[str, str]]:
    return history_repo(root / "project")


def _line_shas(envelope: dict[str, Any]) -> list[str]:
    return [
        hunk["sha"]
        for hunk in envelope["data"]["hunks"]
        for _ in range(hunk["endLine"] - hunk["startLine"] + 1)
    ]


async def test_blame_equals_git_blame(call: Call, built: tuple[Repo, dict[str, str]]) -> None:
    repo, shas = built
    (whole,) = await call("localGitBlame", {"path": "project/b.py"})
    assert whole["status"] == "success"
    assert _line_shas(whole) == blamed_lines(repo, "HEAD", "--", "b.py")
    assert shas["side"] in _line_shas(whole) and shas["main"] in _line_shas(whole)
    first = whole["data"]["hunks"][0]
    assert first["originalPath"] == "a.py" and first["author"] == "Ada"  # before the rename
    (part,) = await call("localGitBlame", {"path": "project/b.py", "startLine": 2, "endLine": 4})
    assert _line_shas(part) == blamed_lines(repo, "-L2,4", "HEAD", "--", "b.py")
    assert part["data"]["hunks"][0]["startLine"] == 2


async def test_blame_ignores_whitespace_and_listed_revisions(
    call: Call, built: tuple[Repo, dict[str, str]]
) -> None:
    repo, shas = built
    (plain,) = await call("localGitBlame", {"path": "project/b.py", "startLine": 2})
    assert plain["data"]["hunks"][0]["sha"] == shas["spaces"]
    (spaces,) = await call(
        "localGitBlame", {"path": "project/b.py", "startLine": 2, "ignoreWhitespace": True}
    )
    assert _line_shas(spaces) == blamed_lines(repo, "-w", "-L2,2", "HEAD", "--", "b.py")
    assert spaces["data"]["hunks"][0]["sha"] == shas["first"]
    (skipped,) = await call(
        "localGitBlame", {"path": "project/b.py", "startLine": 2, "ignoreRevs": [shas["spaces"]]}
    )
    assert skipped["data"]["hunks"][0]["sha"] == shas["first"]
    repo.write(".git-blame-ignore-revs", f"{shas['spaces']}\n")
    repo.commit("ignore the indent")
    (from_file,) = await call("localGitBlame", {"path": "project/b.py", "startLine": 2})
    assert from_file["data"]["hunks"][0]["sha"] == shas["first"]


async def test_history_of_a_path_follows_renames(
    call: Call, built: tuple[Repo, dict[str, str]]
) -> None:
    repo, shas = built
    (found,) = await call("localGitHistory", {"path": "project/b.py", "limit": 100})
    got = [c["sha"] for c in found["data"]["commits"]]
    assert got == repo.git("log", "--format=%H", "--follow", "--", "b.py").split()
    assert shas["first"] in got
    renamed = next(c for c in found["data"]["commits"] if c["sha"] == shas["rename"])
    assert renamed["files"] == ["R100 a.py b.py"]
    (page,) = await call("localGitHistory", {"path": "project/b.py", "limit": 2, "page": 2})
    assert [c["sha"] for c in page["data"]["commits"]] == got[2:4]
    assert page["data"]["pagination"]["hasMore"] is True


async def test_history_of_a_line_range_is_log_L(
    call: Call, built: tuple[Repo, dict[str, str]]
) -> None:
    repo, _ = built
    (found,) = await call("localGitHistory", {"path": "project/b.py", "startLine": 1, "endLine": 2})
    expected = repo.git("log", "--format=%x1e%H", "-L1,2:b.py").split("\x1e")[1:]
    got = [c["sha"] for c in found["data"]["commits"]]
    assert got == [e.split("\n")[0] for e in expected]
    assert "return 1" in found["data"]["commits"][0]["patch"]


async def test_pickaxe_finds_the_commit_that_removed_a_function(
    call: Call, built: tuple[Repo, dict[str, str]]
) -> None:
    repo, shas = built
    (removed,) = await call("localGitHistory", {"path": "project", "removed": "def g("})
    assert [c["sha"] for c in removed["data"]["commits"]] == [shas["remove_g"]]
    (added,) = await call("localGitHistory", {"path": "project", "added": "def g("})
    assert [c["sha"] for c in added["data"]["commits"]] == [shas["first"]]
    assert set(repo.git("log", "--format=%H", "-Sdef g(").split()) == {
        shas["first"],
        shas["remove_g"],
    }
    (regex,) = await call(
        "localGitHistory", {"path": "project", "removed": r"def g\(\)", "regex": True}
    )
    assert [c["sha"] for c in regex["data"]["commits"]] == [shas["remove_g"]]


async def test_history_filters_by_author_dates_and_range(
    call: Call, built: tuple[Repo, dict[str, str]]
) -> None:
    repo, shas = built
    (ranged,) = await call(
        "localGitHistory", {"path": "project", "ref": f"{shas['merge']}..HEAD", "limit": 100}
    )
    assert [c["sha"] for c in ranged["data"]["commits"]] == repo.git(
        "log", "--format=%H", f"{shas['merge']}..HEAD"
    ).split()
    (nobody,) = await call("localGitHistory", {"path": "project", "author": "Grace"})
    assert nobody["status"] == "empty"
    (moved,) = await call("localGitBlame", {"path": "project/c.py"})
    assert moved["data"]["hunks"][0]["sha"] == shas["move"]


async def test_refusals_are_clear(
    call: Call, built: tuple[Repo, dict[str, str]], root: Path
) -> None:
    (option,) = await call("localGitHistory", {"path": "project", "ref": "--output=/tmp/x"})
    assert option["error"]["code"] == "VALIDATION_ERROR"
    (bad_regex,) = await call("localGitHistory", {"path": "project", "added": "(a", "regex": True})
    assert bad_regex["error"]["code"] == "VALIDATION_ERROR"
    (revs,) = await call("localGitBlame", {"path": "project/b.py", "ignoreRevs": ["--contents=x"]})
    assert revs["error"]["code"] == "VALIDATION_ERROR"
    (missing,) = await call("localGitBlame", {"path": "project/b.py", "startLine": 900})
    assert missing["status"] == "error" and missing["error"]["code"] != "INTERNAL_ERROR"
    (folder,) = await call("localGitBlame", {"path": "project"})
    assert folder["error"]["code"] == "INVALID_QUERY"
    (bad_ref,) = await call("localGitHistory", {"path": "project", "ref": "no-such-branch"})
    assert bad_ref["error"]["code"] == "NOT_FOUND"
    (root / "plain").mkdir()
    (no_history,) = await call("localGitHistory", {"path": "plain"})
    assert no_history["error"]["code"] == "NOT_FOUND"
    assert "githubCloneRepo" in " ".join(no_history["hints"])


async def test_messages_summaries_and_patches_are_redacted(call: Call, root: Path) -> None:
    repo = Repo(root / "secrets")
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    repo.commit(f"deploy with {token}", conf_py=f'GITHUB_TOKEN = "{token}"\n')
    (history,) = await call("localGitHistory", {"path": "secrets", "includePatch": True})
    (blame,) = await call("localGitBlame", {"path": "secrets/conf.py"})
    for envelope in (history, blame):
        assert envelope["status"] == "success", envelope
        assert token not in str(envelope) and "[REDACTED" in str(envelope)


async def test_a_long_patch_is_cut_to_its_share_with_a_handle_to_all_of_it(root: Path) -> None:
    repo = Repo(root / "long")
    repo.commit("long", a_py="".join(f"value_{i} = {i}\n" for i in range(300)))
    async with octo.Gateway(Config(max_tokens=300), roots=[root]) as gateway:
        response = await gateway.call("localGitHistory", [{"path": "long", "includePatch": True}])
        (commit,) = response.to_wire()["results"][0]["data"]["commits"]
        assert len(commit["patch"]) == 300 * 4 // 2
        page = await gateway.call("getCachedContent", [{"handle": commit["patchHandle"]}])
    whole = page.to_wire()["results"][0]["data"]
    assert whole["content"].startswith(commit["patch"])
    assert len(whole["content"]) > len(commit["patch"]) and whole["totalPages"] > 1
