"""githubGetFileBlame with provider gitlab on recorded GitLab answers (recordings/
line_history.json, shapes from GitLab's API docs): the blame API, lines counted from 1."""

from __future__ import annotations

from typing import Any

import octo
from tests.codehosts.hosts.conftest import one
from tests.codehosts.hosts.gitlab.conftest import TOKEN

A = "a1" * 20
HEAD = "d4" * 20


async def test_blame_through_the_blame_api(gateway: octo.Gateway, recorded: Any) -> None:
    routes = recorded("line_history")
    row = await one(
        gateway, "githubGetFileBlame", owner="g", repo="p", path="src/app.py", ref="main"
    )
    assert row["status"] == "success", row
    ranges = row["data"]["ranges"]
    assert [(r["startLine"], r["endLine"], r["sha"]) for r in ranges] == [
        (1, 2, A),
        (3, 3, "b2" * 20),
    ]
    assert ranges[0]["summary"] == "Cache the settings"
    blame = routes[
        f"https://gl.test/api/v4/projects/g%2Fp/repository/files/src%2Fapp.py/blame?ref={HEAD}"
    ]
    assert blame.calls.last.request.headers["private-token"] == TOKEN


async def test_trace_line_through_merge_requests_and_closed_issues(
    gateway: octo.Gateway, recorded: Any, router: Any
) -> None:
    recorded("line_history")
    row = await one(
        gateway,
        "traceLine",
        owner="g",
        repo="p",
        path="src/app.py",
        ref="main",
        startLine=2,
        endLine=3,
    )
    assert row["status"] == "success", row
    first, second = row["data"]["commits"]
    assert (first["sha"], first["lines"]) == (A, [2, 2])
    assert "return CACHE" in first["patch"]
    [merge_request] = first["pullRequests"]
    assert merge_request["number"] == 4
    [issue] = merge_request["issues"]
    assert (issue["repository"], issue["number"], issue["closes"]) == ("g/p", 5, True)
    assert issue["title"] == "Settings are slow"
    assert second["pullRequests"] == [] and "merge request" in second["stoppedBecause"]
    assert {call.request.url.host for call in router.calls} == {"gl.test"}
    assert all(call.request.headers["private-token"] == TOKEN for call in router.calls)
