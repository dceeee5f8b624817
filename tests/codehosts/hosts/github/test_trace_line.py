"""traceLine on recorded GitHub answers (recordings/line_history.json) and on a checkout
built here whose origin is the recorded host: the chain ending at each step (depth, no pull
request, a pull request without an issue, an issue in another repository, a deleted fork, no
origin), and credentials sent to GitHub's host only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import respx

import octo
from octo.codehosts.history.trace_line import references
from octo.core.config import Config
from tests.codehosts.hosts.github.conftest import Recorded
from tests.codehosts.hosts.github.conftest import graphql_replay
from tests.codehosts.hosts.github.conftest import make_env
from tests.git_repos import Repo
from tests.git_repos import history_repo

A = "a1" * 20
B = "b2" * 20
C = "c3" * 20


async def one(gateway: octo.Gateway, **query: Any) -> dict[str, Any]:
    row: dict[str, Any] = (await gateway.call("traceLine", [query])).to_wire()["results"][0]
    assert row.get("error", {}).get("code") != "INTERNAL_ERROR", row
    return row


def _unhandled(data: Any) -> Any:
    """``data`` without its content handles (each answer mints its own)."""
    if isinstance(data, dict):
        return {k: _unhandled(v) for k, v in data.items() if not k.endswith("Handle")}
    if isinstance(data, list):
        return [_unhandled(v) for v in data]
    return data


async def test_remote_chain_to_issues(
    gateway: octo.Gateway, recorded: Recorded, router: respx.MockRouter, token: str
) -> None:
    recorded("line_history")
    graphql_replay(router, "line_history_graphql")
    row = await one(
        gateway, owner="o", repo="r", path="src/upload.py", ref="main", startLine=8, endLine=22
    )
    assert row["status"] == "success", row
    first, second, third = row["data"]["commits"]
    assert (first["sha"], first["lines"]) == (A, [8, 9])
    assert first["message"].startswith("Retry failed uploads")
    assert "retry(send)" in first["patch"] and "retries" not in first["patch"]
    [pull] = first["pullRequests"]
    assert (pull["number"], pull["state"]) == (7, "merged")
    issues = {(i["repository"], i["number"]): i for i in pull["issues"]}
    assert issues[("o/r", 12)]["closes"] is True
    assert issues[("o/r", 12)]["title"] == "Uploads fail on flaky networks"
    assert issues[("o/r", 12)]["bodyHandle"]  # a long body: cut, the whole behind a handle
    assert issues[("other/lib", 3)]["closes"] is False  # another repository, referenced
    # GitHub's own word (GraphQL closingIssuesReferences): an issue linked in the sidebar.
    assert issues[("o/r", 15)]["closes"] is True and issues[("o/r", 15)]["title"] == "Retry budget"
    assert list(issues) == [("o/r", 12), ("o/r", 15), ("other/lib", 3)]
    assert second["sha"] == B and second["pullRequests"] == []
    assert "No pull request" in second["stoppedBecause"]
    assert third["pullRequests"][0]["number"] == 8 and third["pullRequests"][0]["issues"] == []
    assert any('"issueNumber":12' in hint for hint in row["hints"])
    # Every request went to GitHub's configured host, each with its token.
    assert {call.request.url.host for call in router.calls} == {"gh.test"}
    assert all(call.request.headers["authorization"] == f"Bearer {token}" for call in router.calls)
    sent = len(router.calls)
    again = await one(
        gateway, owner="o", repo="r", path="src/upload.py", ref="main", startLine=8, endLine=22
    )
    assert _unhandled(again["data"]) == _unhandled(row["data"])
    assert len(router.calls) == sent  # a warm cache: no request at all


async def test_depth_stops_the_chain(
    gateway: octo.Gateway, recorded: Recorded, router: respx.MockRouter
) -> None:
    routes = recorded("line_history")
    graphql_replay(router, "line_history_graphql")
    at_commit = await one(
        gateway, owner="o", repo="r", path="src/upload.py", ref="main", startLine=1, depth="commit"
    )
    [commit] = at_commit["data"]["commits"]
    assert commit["sha"] == A and "pullRequests" not in commit
    assert routes[f"/repos/o/r/commits/{A}/pulls"].call_count == 0
    at_pull = await one(
        gateway,
        owner="o",
        repo="r",
        path="src/upload.py",
        ref="main",
        startLine=1,
        depth="pullRequest",
    )
    [pull] = at_pull["data"]["commits"][0]["pullRequests"]
    assert pull["number"] == 7 and "issues" not in pull
    assert routes["/repos/o/r/issues/12"].call_count == 0


async def test_local_chain_through_origin(
    tmp_path: Path, router: respx.MockRouter, token: str
) -> None:
    root = tmp_path / "root"
    repo, shas = history_repo(root / "project")
    repo.git("remote", "add", "origin", "git@gh.test:o/r.git")
    router.get(f"https://gh.test/api/v3/repos/o/r/commits/{shas['spaces']}/pulls").respond(
        json=[
            {
                "number": 9,
                "title": "Indent",
                "state": "closed",
                "merged_at": None,
                "html_url": "https://gh.test/o/r/pull/9",
                "body": "Resolves #4",
                "base": {"repo": {"full_name": "o/r"}},
            }
        ]
    )
    router.get("https://gh.test/api/v3/repos/o/r/issues/4").respond(
        json={
            "number": 4,
            "title": "Wrong indent",
            "state": "open",
            "html_url": "https://gh.test/o/r/issues/4",
            "body": "Four spaces.",
            "user": {"login": "bob"},
            "created_at": "",
            "updated_at": "",
            "repository_url": "https://gh.test/api/v3/repos/o/r",
        }
    )
    graphql_replay(router, "line_history_graphql")
    config = Config.from_env({**make_env(), "PATH": "/usr/bin:/bin"})
    async with octo.Gateway(config, roots=[root]) as gateway:
        row = await one(gateway, path="project/b.py", startLine=2)
        [commit] = row["data"]["commits"]
        assert commit["sha"] == shas["spaces"] and commit["message"] == "indent f"
        assert "+        return 1" in commit["patch"]
        [pull] = commit["pullRequests"]
        assert pull["number"] == 9 and pull["issues"][0]["title"] == "Wrong indent"
        assert pull["issues"][0]["closes"] is True
        assert row["data"]["repository"] == "o/r"


async def test_local_chain_stops_at_the_commit_without_a_known_origin(tmp_path: Path) -> None:
    root = tmp_path / "root"
    repo, shas = history_repo(root / "project")
    async with octo.Gateway(Config(), roots=[root]) as gateway:
        row = await one(gateway, path="project/b.py", startLine=1, endLine=2)
        commits = row["data"]["commits"]
        assert [c["sha"] for c in commits] == [shas["first"], shas["spaces"]]
        assert all("no origin remote" in c["stoppedBecause"] for c in commits)
        assert all(c["lines"][0] == c["lines"][1] for c in commits)
        at_merge = await one(gateway, path="project/b.py", startLine=2, ref=shas["merge"])
        assert at_merge["data"]["commits"][0]["sha"] == shas["first"]  # before the indent
        option = await one(gateway, path="project/b.py", startLine=2, ref="--output=/tmp/x")
        assert option["error"]["code"] == "VALIDATION_ERROR"
        Repo.git(repo, "remote", "add", "origin", "https://elsewhere.test/o/r.git")
        row = await one(gateway, path="project/b.py", startLine=1)
        assert "not on the GitHub or GitLab host" in row["data"]["commits"][0]["stoppedBecause"]


def test_references_of_a_body() -> None:
    body = (
        "Fixes #12, closes other/lib#3; see https://gh.test/o/r/issues/9, (#1,#2) and "
        "g/sub/p#7. Not x#3. Fixes #12 again."
    )
    found = [(i.repository, i.number, i.closes) for i in references(body, "o/r")]
    assert found == [
        ("o/r", 12, True),
        ("other/lib", 3, True),
        ("o/r", 9, False),
        ("o/r", 1, False),
        ("o/r", 2, False),
        ("g/sub/p", 7, False),
    ]
