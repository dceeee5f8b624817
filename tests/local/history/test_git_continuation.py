"""Stopped by git's time limit (made tiny through OCTO_GIT_TIME_LIMIT), localGitHistory and
localGitBlame answer what git found by then, partial, with the next calls that go on: the
partial answers and their continuations together equal the unlimited answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config
from tests.git_repos import Built
from tests.git_repos import Repo
from tests.git_repos import blamed_lines
from tests.git_repos import built_once
from tests.git_repos import history_repo
from tests.local.conftest import Call
from tests.local.conftest import hinted_query

#: Past this limit git is stopped as soon as it has printed a first whole commit or hunk.
TINY = 1e-6


@built_once
def _renamed_in_one_second(path: Path) -> Built:
    """The history repository, then commits made within one second (git's walk orders by
    the second: a cursor must tell them apart) and a rename of the file they change."""
    repo, shas = history_repo(path)
    for number in range(4):
        repo.tick -= 60
        text = (repo.path / "b.py").read_text() + f"same_second_{number} = {number}\n"
        shas[f"same{number}"] = repo.commit(f"same second {number}", b_py=text)
    repo.git("mv", "b.py", "d.py")
    shas["rename_again"] = repo.commit("rename b to d")
    return repo, shas


@pytest.fixture
def built(root: Path) -> Built:
    return _renamed_in_one_second(root / "project")


@pytest.fixture
async def stopped(root: Path) -> AsyncIterator[Call]:
    """Calls through a gateway whose git time limit is tiny."""
    async with octo.Gateway(Config(git_time_limit=TINY), roots=[root]) as gateway:

        async def run(tool: str, *queries: dict[str, Any]) -> list[dict[str, Any]]:
            results: list[dict[str, Any]] = (await gateway.call(tool, list(queries))).to_wire()[
                "results"
            ]
            return results

        yield run


async def _history(call: Call, query: dict[str, Any]) -> tuple[list[str], int]:
    """The shas of the query's commits, following each partial answer's next call; and how
    many answers were partial."""
    shas: list[str] = []
    for partial in range(100):
        (answer,) = await call("localGitHistory", query)
        assert answer["status"] in ("success", "empty"), answer
        shas += [commit["sha"] for commit in answer["data"]["commits"]]
        if not answer.get("partial"):
            return shas, partial
        query = hinted_query(answer, "git was stopped")
    raise AssertionError("the continuation did not end")


@pytest.mark.parametrize(
    "query",
    [
        {"path": "project/d.py"},
        {"path": "project"},
        {"path": "project", "author": "Ada", "since": "2023-01-01"},
        {"path": "project", "removed": "def g"},
        {"path": "project", "added": "same_second_[0-9]", "regex": True},
        {"path": "project/d.py", "startLine": 1, "endLine": 3},
        {"path": "project/d.py", "includePatch": True},
    ],
    ids=["renamed-file", "folder", "author", "pickaxe", "regex", "line-range", "patches"],
)
async def test_a_stopped_log_and_its_continuations_equal_the_whole_log(
    call: Call, stopped: Call, built: tuple[Repo, dict[str, str]], query: dict[str, Any]
) -> None:
    query = {**query, "limit": 100}
    whole, cut = await _history(call, query)
    assert cut == 0 and whole
    pieces, cut = await _history(stopped, query)
    assert pieces == whole
    if len(whole) > 1:
        assert cut >= 1


async def test_the_renamed_file_is_followed_across_continuations(
    stopped: Call, built: tuple[Repo, dict[str, str]]
) -> None:
    _, shas = built
    found, _ = await _history(stopped, {"path": "project/d.py"})
    assert found[0] == shas["rename_again"] and found[-1] == shas["first"]
    assert [shas[f"same{n}"] for n in (3, 2, 1, 0)] == found[1:5]


async def test_a_range_of_a_revision_goes_on_within_it(
    call: Call, stopped: Call, built: tuple[Repo, dict[str, str]]
) -> None:
    _, shas = built
    query = {"path": "project", "ref": f"{shas['rename']}..{shas['same2']}"}
    whole, _ = await _history(call, query)
    assert shas["rename"] not in whole and shas["same2"] in whole and shas["same3"] not in whole
    assert (await _history(stopped, query))[0] == whole


async def test_a_stopped_blame_and_the_calls_for_the_lines_left_equal_the_whole_blame(
    stopped: Call, built: tuple[Repo, dict[str, str]]
) -> None:
    repo, _ = built
    by_line: dict[int, str] = {}
    todo = [{"path": "project/d.py"}]
    partial = 0
    while todo:
        (answer,) = await stopped("localGitBlame", todo.pop())
        assert answer["status"] == "success", answer
        for hunk in answer["data"]["hunks"]:
            for line in range(hunk["startLine"], hunk["endLine"] + 1):
                assert line not in by_line
                by_line[line] = hunk["sha"]
        if answer.get("partial"):
            partial += 1
            todo += [
                hinted_query({"hints": [hint]}, "localGitBlame")
                for hint in answer["hints"]
                if hint.startswith("localGitBlame {")
            ]
    assert partial >= 1
    assert [by_line[n] for n in sorted(by_line)] == blamed_lines(repo, "HEAD", "--", "d.py")
    assert sorted(by_line) == list(range(1, len(by_line) + 1))


async def test_a_resume_that_is_no_cursor_is_refused(
    call: Call, built: tuple[Repo, dict[str, str]]
) -> None:
    (answer,) = await call("localGitHistory", {"path": "project", "resume": "HEAD~3"})
    assert answer["error"]["code"] == "VALIDATION_ERROR"
    assert "cursor" in answer["error"]["message"]
