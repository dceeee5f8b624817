"""The history tools with provider "gitlab": project issues and notes, repository commits,
a commit with its diff, and a comparison (recordings/history.json)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import respx

import octo

SHA = "ed899a2f4b50b4370feeea94676502b42383c746"
PROJECT = {"provider": "gitlab", "owner": "group/sub", "repo": "project"}
Recorded = Callable[[str], dict[str, respx.Route]]


async def one(gateway: octo.Gateway, tool: str, **query: Any) -> dict[str, Any]:
    row: dict[str, Any] = (await gateway.call(tool, [{**PROJECT, **query}])).to_wire()["results"][0]
    assert row["status"] == "success", row
    return row


async def test_project_issues_and_one_issue_with_its_notes(
    gateway: octo.Gateway, recorded: Recorded
) -> None:
    recorded("history")
    found = await one(
        gateway, "githubSearchIssues", query="crash", state="open", labels=["bug"], comments=">1"
    )
    [issue] = found["data"]["issues"]  # the comments range is applied here: 4 notes kept
    assert issue["number"] == 3 and issue["repository"] == "group/sub/project"
    assert any("no comments filter" in hint for hint in found["hints"])
    assert any('{"provider":"gitlab","owner":"group/sub"' in hint for hint in found["hints"])
    read = await one(gateway, "githubSearchIssues", issueNumber=3)
    [issue] = read["data"]["issues"]
    assert [c["author"] for c in issue["comments"]] == ["bob"]  # system notes dropped


async def test_history_commit_and_comparison(gateway: octo.Gateway, recorded: Recorded) -> None:
    recorded("history")
    history = await one(
        gateway, "githubSearchCommits", ref="main", path="app/helpers.rb", since="2024-01-01"
    )
    [commit] = history["data"]["commits"]
    assert commit["sha"] == SHA and commit["message"] == "Replace sanitize with escape once"
    assert history["data"]["pagination"]["hasMore"] is False
    found = await one(gateway, "githubSearchCommits", query="sanitize")
    assert found["data"]["totalCount"] == 1
    assert found["data"]["commits"][0]["repository"] == "group/sub/project"
    detail = await one(gateway, "githubGetCommit", sha=SHA, includePatch=True)
    data = detail["data"]
    assert data["stats"]["total"] == 25 and data["author"] == "Alice"
    [changed] = data["files"]
    assert changed["filename"] == "app/helpers.rb" and "escape_once" in changed["patch"]
    compared = await one(gateway, "githubGetCommit", base="v1.0", head="v1.1")
    assert [c["sha"] for c in compared["data"]["commits"]] == [SHA]
    assert compared["data"]["files"][0]["additions"] == 1
