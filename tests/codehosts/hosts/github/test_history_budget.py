"""A commit's, an issue's and a page of pull requests' answers fit maxTokensPerRequest as a
whole (facts, message, bodies, file list and comments too): what does not fit goes behind a
content handle the answer names."""

from __future__ import annotations

from typing import Any

import pytest

from tests.codehosts.hosts.conftest import GatewayFactory
from tests.codehosts.hosts.github.conftest import Recorded

CONTEXT = {"mainResearchGoal": "m", "researchGoal": "r", "reasoning": "why"}
SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
REPO = {"owner": "octocat", "repo": "Hello-World"}


@pytest.mark.parametrize(
    ("cassette", "tool", "query", "budget"),
    [
        ("history", "githubSearchIssues", {**REPO, "issueNumber": 1347}, 300),
        (
            "pr_search",
            "githubSearchPullRequests",
            {**REPO, "state": "closed", "merged": True, "label": "bug"},
            200,
        ),
        ("history", "githubGetCommit", {**REPO, "sha": SHA}, 300),
        ("history", "githubGetCommit", {**REPO, "sha": SHA, "includePatch": True}, 300),
    ],
)
async def test_the_whole_answer_fits_the_budget(
    gateway_factory: GatewayFactory,
    env: Any,
    recorded: Recorded,
    cassette: str,
    tool: str,
    query: dict[str, Any],
    budget: int,
) -> None:
    recorded(cassette)
    gateway = gateway_factory(env(OCTO_MAX_TOKENS=str(budget)))
    row: dict[str, Any] = (await gateway.call(tool, [{**CONTEXT, **query}])).to_wire()["results"][0]
    assert row["status"] != "error", row
    tokens = row["data"]["tokens"]
    assert tokens["estimatedTokens"] <= tokens["maxTokensPerRequest"] == budget, tokens
    if tokens["truncated"]:
        assert "getCachedContent" in " ".join(row["hints"])
