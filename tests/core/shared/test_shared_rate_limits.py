"""A replica that sees a resource exhausted (or told to back off) stops the others from
sending to it until the reset; other resources stay open."""

from __future__ import annotations

import time
from typing import Any

import pytest
import respx

import octo
from octo.core.config import Config
from tests.codehosts.hosts.github.conftest import API
from tests.codehosts.hosts.github.conftest import make_env

SEARCH = f"{API}/search/repositories"
CONTENTS = f"{API}/repos/octokit/octokit.rb/contents/README.md"
QUERY = {"keywordsToSearch": ["tetris"]}
EMPTY = {"total_count": 0, "incomplete_results": False, "items": []}


def exhausted(reset: float) -> dict[str, str]:
    return {
        "x-ratelimit-limit": "30",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": str(int(reset)),
        "x-ratelimit-resource": "search",
    }


@pytest.fixture
def router() -> Any:
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        yield mock


def team(redis_url: str, prefix: str) -> Config:
    return Config.from_env(make_env(OCTO_REDIS_URL=redis_url, OCTO_REDIS_PREFIX=prefix))


async def first_error(gateway: octo.Gateway, query: dict[str, Any]) -> str | None:
    [row] = (await gateway.github_search_repositories([query])).results
    return row.error.code if row.error else None


async def test_an_exhausted_resource_on_one_replica_stops_the_others(
    router: respx.MockRouter, redis_url: str, prefix: str
) -> None:
    search = router.get(SEARCH).respond(
        403, headers=exhausted(time.time() + 3600), json={"message": "API rate limit exceeded"}
    )
    contents = router.get(CONTENTS).respond(404, json={"message": "Not Found"})
    config = team(redis_url, prefix)
    async with octo.Gateway(config) as one, octo.Gateway(config) as two:
        assert await first_error(one, QUERY) == "RATE_LIMIT_EXCEEDED"
        assert search.call_count == 1
        # The other replica sends nothing to the exhausted resource, whatever the query.
        assert await first_error(two, {"keywordsToSearch": ["snake"]}) == "RATE_LIMIT_EXCEEDED"
        assert search.call_count == 1
        # Another resource (core) is not paused.
        [row] = (
            await two.github_get_file_content(
                [{"owner": "octokit", "repo": "octokit.rb", "path": "README.md"}]
            )
        ).results
    assert row.error is not None and row.error.code == "NOT_FOUND"
    assert contents.call_count == 1


async def test_a_secondary_limit_backs_every_replica_off(
    router: respx.MockRouter, redis_url: str, prefix: str
) -> None:
    search = router.get(SEARCH).respond(
        403, json={"message": "You have exceeded a secondary rate limit. Please wait."}
    )
    config = team(redis_url, prefix)
    async with octo.Gateway(config) as one, octo.Gateway(config) as two:
        # GitHub's back-off (a minute) is beyond the query's budget: one request, no retry.
        assert await first_error(one, QUERY) == "RATE_LIMIT_EXCEEDED"
        assert await first_error(two, QUERY) == "RATE_LIMIT_EXCEEDED"
    assert search.call_count == 1


async def test_without_redis_the_other_process_finds_out_by_itself(
    router: respx.MockRouter,
) -> None:
    search = router.get(SEARCH).respond(
        403, headers=exhausted(time.time() + 3600), json={"message": "API rate limit exceeded"}
    )
    config = Config.from_env(make_env())
    async with octo.Gateway(config) as one, octo.Gateway(config) as two:
        await first_error(one, QUERY)
        await first_error(two, QUERY)
    assert search.call_count == 2
