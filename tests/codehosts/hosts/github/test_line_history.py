"""githubGetFileBlame on recorded GitHub answers (recordings/line_history.json): GraphQL blame
with a token, a clear error naming GITHUB_TOKEN without one, the token on GitHub's host only."""

from __future__ import annotations

import json
from typing import Any

import respx

import octo
from tests.codehosts.hosts.conftest import GatewayFactory
from tests.codehosts.hosts.conftest import one
from tests.codehosts.hosts.github.conftest import Recorded
from tests.codehosts.hosts.github.conftest import graphql_replay
from tests.codehosts.hosts.github.conftest import make_env

A = "a1" * 20
HEAD = "d4" * 20


async def test_blame_of_lines_through_graphql(
    gateway: octo.Gateway, recorded: Recorded, router: respx.MockRouter, token: str
) -> None:
    recorded("line_history")
    graphql = graphql_replay(router, "line_history_graphql")
    row = await one(
        gateway,
        "githubGetFileBlame",
        owner="o",
        repo="r",
        path="src/upload.py",
        ref="main",
        startLine=5,
        endLine=12,
    )
    assert row["status"] == "success", row
    data = row["data"]
    assert data["sha"] == HEAD
    assert [(r["startLine"], r["endLine"], r["sha"]) for r in data["ranges"]] == [
        (5, 9, A),
        (10, 12, "b2" * 20),
    ]
    assert data["ranges"][0]["summary"] == "Retry failed uploads"
    sent = graphql.calls.last.request
    assert sent.headers["authorization"] == f"Bearer {token}"
    assert json.loads(sent.content)["variables"] == {
        "owner": "o",
        "repo": "r",
        "sha": HEAD,
        "path": "src/upload.py",
    }
    again = await one(
        gateway, "githubGetFileBlame", owner="o", repo="r", path="src/upload.py", ref="main"
    )
    assert again["cached"] is True and graphql.call_count == 1


async def test_blame_without_a_token_names_github_token(
    gateway_factory: GatewayFactory, recorded: Recorded, router: respx.MockRouter
) -> None:
    recorded("line_history")
    graphql = graphql_replay(router, "line_history_graphql")
    env = {k: v for k, v in make_env().items() if k != "GITHUB_TOKEN"}
    gateway = gateway_factory({**env, "PATH": "/nonexistent"})
    row = await one(gateway, "githubGetFileBlame", owner="o", repo="r", path="src/upload.py")
    assert row["error"]["code"] == "AUTHENTICATION_ERROR"
    assert "GITHUB_TOKEN" in row["error"]["message"]
    assert graphql.call_count == 0 and not router.calls


async def test_graphql_errors_are_typed(gateway: octo.Gateway, router: Any) -> None:
    router.get("https://gh.test/api/v3/repos/o/r/commits/main").respond(text=HEAD)
    router.post("https://gh.test/api/graphql").respond(
        json={"data": None, "errors": [{"type": "NOT_FOUND", "message": "Could not resolve"}]}
    )
    row = await one(gateway, "githubGetFileBlame", owner="o", repo="r", path="nope.py", ref="main")
    assert row["error"]["code"] == "NOT_FOUND"


async def test_graphql_quota_is_its_own(gateway: octo.Gateway, router: respx.MockRouter) -> None:
    """An exhausted GraphQL quota holds back GraphQL only: REST calls still go out."""
    router.get("https://gh.test/api/v3/repos/o/r/commits/main").respond(text=HEAD)
    router.post("https://gh.test/api/graphql").respond(
        json={"data": None, "errors": [{"type": "NOT_FOUND", "message": "no file"}]},
        headers={
            "x-ratelimit-remaining": "0",
            "x-ratelimit-limit": "5000",
            "x-ratelimit-reset": "9999999999",
            "x-ratelimit-resource": "graphql",
        },
    )
    blamed = await one(gateway, "githubGetFileBlame", owner="o", repo="r", path="a.py", ref="main")
    assert blamed["error"]["code"] == "NOT_FOUND"
    rest = router.get("https://gh.test/api/v3/repos/o/r/commits/other").respond(text=A)
    again = await one(gateway, "githubGetFileBlame", owner="o", repo="r", path="a.py", ref="other")
    assert rest.call_count == 1  # REST went out
    assert again["error"]["code"] == "RATE_LIMIT_EXCEEDED"  # GraphQL waits for its reset
