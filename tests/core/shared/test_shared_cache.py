"""Two gateways on one Redis behave as one octo: what one fetched is a cache hit on the
other, for every kind of answer GitHub and GitLab give, and never across credentials.

The hosts are the recordings, replayed with respx; the Redis is real.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from typing import Any

import pytest
import respx

import octo
from octo.core.config import Config
from tests.codehosts.hosts.github.conftest import TOKEN as GITHUB_TOKEN
from tests.codehosts.hosts.github.conftest import load_cassette
from tests.codehosts.hosts.github.conftest import make_env
from tests.codehosts.hosts.gitlab.conftest import TOKEN as GITLAB_TOKEN
from tests.codehosts.hosts.gitlab.conftest import gitlab_env
from tests.codehosts.hosts.gitlab.conftest import load_recording
from tests.core.shared.conftest import stored

Call = Callable[[octo.Gateway], Awaitable[octo.BulkResponse[Any]]]
Loader = Callable[[respx.MockRouter, str], dict[str, respx.Route]]

PULLS = {"owner": "octocat", "repo": "Hello-World"}
GITHUB_CALLS: list[Call] = [
    lambda gw: gw.github_search_code(
        [
            {
                "keywordsToSearch": ["addClass"],
                "owner": "jquery",
                "repo": "jquery",
                "extension": "js",
                "limit": 2,
            }
        ]
    ),
    lambda gw: gw.github_get_file_content(
        [{"owner": "octokit", "repo": "octokit.rb", "path": "README.md", "fullContent": True}]
    ),
    lambda gw: gw.github_view_repo_structure([{**PULLS, "branch": "main", "depth": 2}]),
    lambda gw: gw.github_search_repositories(
        [{"keywordsToSearch": ["tetris"], "stars": ">0", "sort": "stars", "limit": 1}]
    ),
    lambda gw: gw.github_search_pull_requests(
        [{**PULLS, "state": "closed", "merged": True, "label": "bug"}]
    ),
    lambda gw: gw.github_search_pull_requests(
        [
            {
                **PULLS,
                "prNumber": 1347,
                "type": "fullContent",
                "withComments": True,
                "withCommits": True,
            }
        ]
    ),
]
HELLO = {"owner": "octocat", "repo": "Hello-World"}
GITHUB_SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
GITHUB_CALLS += [
    lambda gw: gw.github_search_issues(
        [{**HELLO, "query": "crash", "state": "open", "labels": ["bug"]}]
    ),
    lambda gw: gw.github_search_issues([{**HELLO, "issueNumber": 1347}]),
    lambda gw: gw.github_search_commits([{**HELLO, "path": "README", "limit": 5}]),
    lambda gw: gw.github_search_commits([{**HELLO, "query": "Fix all the bugs"}]),
    lambda gw: gw.github_get_commit([{**HELLO, "sha": GITHUB_SHA, "includePatch": True}]),
    lambda gw: gw.github_get_commit([{**HELLO, "base": "v1.0", "head": "v1.1"}]),
]
GITHUB_CASSETTES: tuple[str, ...] = (
    "code_search",
    "file_content",
    "tree",
    "repo_search",
    "pr_search",
    "pr_detail",
    "history",
)

OWNER = {"provider": "gitlab", "owner": "group/sub", "repo": "project"}
GITLAB_CALLS: list[Call] = [
    lambda gw: gw.github_search_code([{**OWNER, "keywordsToSearch": ["addClass"], "limit": 2}]),
    lambda gw: gw.github_get_file_content([{**OWNER, "path": "src/dom.js", "fullContent": True}]),
    lambda gw: gw.github_view_repo_structure([{**OWNER, "branch": "main", "depth": 2}]),
    lambda gw: gw.github_search_repositories(
        [
            {
                "provider": "gitlab",
                "keywordsToSearch": ["dom", "helpers"],
                "topicsToSearch": ["javascript"],
                "sort": "stars",
                "limit": 2,
            }
        ]
    ),
    lambda gw: gw.github_search_pull_requests(
        [{**OWNER, "prNumber": 1, "type": "fullContent", "withComments": True, "withCommits": True}]
    ),
]
GITLAB_SHA = "ed899a2f4b50b4370feeea94676502b42383c746"
GITLAB_CALLS += [
    lambda gw: gw.github_search_issues(
        [{**OWNER, "query": "crash", "state": "open", "labels": ["bug"]}]
    ),
    lambda gw: gw.github_search_issues([{**OWNER, "issueNumber": 3}]),
    lambda gw: gw.github_search_commits(
        [{**OWNER, "ref": "main", "path": "app/helpers.rb", "since": "2024-01-01"}]
    ),
    lambda gw: gw.github_get_commit([{**OWNER, "sha": GITLAB_SHA, "includePatch": True}]),
    lambda gw: gw.github_get_commit([{**OWNER, "base": "v1.0", "head": "v1.1"}]),
]
GITLAB_RECORDINGS: tuple[str, ...] = (
    "code_search",
    "file",
    "tree",
    "projects",
    "merge_requests",
    "history",
)
#: Per host: its recordings, how they are loaded, its environment, the calls, its token.
HOSTS: dict[str, tuple[tuple[str, ...], Loader, Callable[[], dict[str, str]], list[Call], str]] = {
    "github": (GITHUB_CASSETTES, load_cassette, make_env, GITHUB_CALLS, GITHUB_TOKEN),
    "gitlab": (GITLAB_RECORDINGS, load_recording, gitlab_env, GITLAB_CALLS, GITLAB_TOKEN),
}


def team(env: dict[str, str], redis_url: str, prefix: str) -> Config:
    return Config.from_env({**env, "OCTO_REDIS_URL": redis_url, "OCTO_REDIS_PREFIX": prefix})


def answers(response: octo.BulkResponse[Any]) -> list[tuple[str, Any]]:
    return [(row["status"], row.get("data")) for row in response.to_wire()["results"]]


async def replay_on_two_replicas(
    router: respx.MockRouter, config: Config, calls: list[Call]
) -> list[bool | None]:
    """Every call on gateway A, then on gateway B: B's answers equal A's and cost no request.
    B's ``cached`` flags are returned."""
    async with octo.Gateway(config) as first:
        before = [await call(first) for call in calls]
    sent = router.calls.call_count
    cached: list[bool | None] = []
    async with octo.Gateway(config) as second:
        for call, earlier in zip(calls, before, strict=True):
            again = await call(second)
            assert answers(again) == answers(earlier)
            cached.extend(row.cached for row in again.results)
    assert router.calls.call_count == sent
    return cached


@pytest.fixture
def router() -> Any:
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        yield mock


@pytest.mark.slow
@pytest.mark.parametrize("host", sorted(HOSTS))
async def test_every_answer_fetched_by_one_replica_is_a_hit_on_another(
    router: respx.MockRouter, redis_url: str, prefix: str, host: str
) -> None:
    names, load, make_host_env, calls, token = HOSTS[host]
    for name in names:
        load(router, name)
    cached = await replay_on_two_replicas(router, team(make_host_env(), redis_url, prefix), calls)
    assert cached == [True] * len(calls)
    # Nothing in Redis carries the token, in a key or a value.
    kept = stored(redis_url, prefix)
    assert kept and not any(token.encode() in k + v for k, v in kept.items())


async def test_replicas_with_different_tokens_never_share_an_answer(
    router: respx.MockRouter, redis_url: str, prefix: str
) -> None:
    routes = load_cassette(router, "file_content")
    route = routes["/repos/octokit/octokit.rb/contents/README.md"]
    call = GITHUB_CALLS[1]
    async with octo.Gateway(team(make_env(), redis_url, prefix)) as first:
        await call(first)
    other = make_env(GITHUB_TOKEN="another-team-token-not-real")
    async with octo.Gateway(team(other, redis_url, prefix)) as second:
        [row] = (await call(second)).results
    assert route.call_count == 2 and not row.cached
    assert route.calls[1].request.headers["authorization"] == "Bearer another-team-token-not-real"
