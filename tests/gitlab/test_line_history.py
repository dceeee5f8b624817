"""githubGetFileBlame with provider gitlab on recorded GitLab answers (recordings/
line_history.json, shapes from GitLab's API docs): the blame API, lines counted from 1."""

from __future__ import annotations

from typing import Any

import octo
from tests.gitlab.conftest import TOKEN

A = "a1" * 20
HEAD = "d4" * 20


async def one(gateway: octo.Gateway, tool: str, **query: Any) -> dict[str, Any]:
    row: dict[str, Any] = (await gateway.call(tool, [query])).to_wire()["results"][0]
    assert row.get("error", {}).get("code") != "INTERNAL_ERROR", row
    return row


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
