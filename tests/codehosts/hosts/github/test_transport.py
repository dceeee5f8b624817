"""The shared remote transport under GitHub: rate limits, retries, coalescing, ETags, caching.

Waits go to an injected sleep (``sleeps``), so every test asserts how many requests
were sent and which waits were chosen, without waiting.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest
import respx

import octo
from octo.codehosts.hosts.github.backend import GitHubBackend

SEARCH = "https://gh.test/api/v3/search/repositories"
REPO_QUERY = {"keywordsToSearch": ["tetris"]}
EMPTY = {"total_count": 0, "incomplete_results": False, "items": []}
NOW = 1_800_000_000.0
SECONDARY = {
    "message": "You have exceeded a secondary rate limit. Please wait a few minutes.",
    "documentation_url": "https://docs.gh.test/rest/overview/rate-limits#secondary-rate-limits",
}


def limit_headers(remaining: int, reset: float, resource: str = "search") -> dict[str, str]:
    return {
        "x-ratelimit-limit": "30",
        "x-ratelimit-remaining": str(remaining),
        "x-ratelimit-reset": str(int(reset)),
        "x-ratelimit-resource": resource,
    }


def first_row(response: octo.BulkResponse[Any]) -> dict[str, Any]:
    row: dict[str, Any] = response.to_wire()["results"][0]
    return row


async def test_retry_after_is_waited_exactly(
    gateway: octo.Gateway, router: respx.MockRouter, sleeps: list[float]
) -> None:
    route = router.get(SEARCH).mock(
        side_effect=[
            httpx.Response(429, headers={"retry-after": "7"}),
            httpx.Response(200, json=EMPTY),
        ]
    )
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["status"] == "empty"
    assert route.call_count == 2 and sleeps == [7.0]


async def test_exhausted_quota_403_waits_for_the_reset_within_budget(
    gateway_factory: Any, router: respx.MockRouter, sleeps: list[float]
) -> None:
    gateway = gateway_factory(clock=NOW)
    route = router.get(SEARCH).mock(
        side_effect=[
            httpx.Response(
                403, headers=limit_headers(0, NOW + 20), json={"message": "API rate limit exceeded"}
            ),
            httpx.Response(200, json=EMPTY, headers=limit_headers(29, NOW + 60)),
        ]
    )
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["status"] == "empty"
    assert route.call_count == 2 and sleeps == [21.0]


async def test_exhausted_quota_beyond_the_budget_fails_fast_with_the_reset_time(
    gateway_factory: Any, router: respx.MockRouter, sleeps: list[float]
) -> None:
    gateway = gateway_factory(clock=NOW)
    route = router.get(SEARCH).respond(
        403, headers=limit_headers(0, NOW + 3600), json={"message": "API rate limit exceeded"}
    )
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["error"]["code"] == "RATE_LIMIT_EXCEEDED"
    assert row["error"]["resetAt"] == "2027-01-15T09:00:01Z"
    assert any("localSearchCode" in hint for hint in row["hints"])
    assert any("Narrow the query" in hint for hint in row["hints"])
    assert route.call_count == 1 and sleeps == []


async def test_nothing_is_sent_to_an_exhausted_resource(
    gateway_factory: Any, router: respx.MockRouter, sleeps: list[float]
) -> None:
    gateway = gateway_factory(clock=NOW)
    route = router.get(SEARCH).respond(json=EMPTY, headers=limit_headers(0, NOW + 600))
    other = router.get("https://gh.test/api/v3/repos/o/r/git/trees/main").respond(
        json={"tree": [], "truncated": False}
    )
    first = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    second = first_row(await gateway.github_search_repositories([{"keywordsToSearch": ["other"]}]))
    assert first["status"] == "empty"
    assert any("quota running low: 0/30" in hint for hint in first["hints"])
    assert second["error"]["code"] == "RATE_LIMIT_EXCEEDED"
    assert route.call_count == 1 and sleeps == []
    # Only the exhausted resource is held back: core requests still go out.
    third = first_row(
        await gateway.github_view_repo_structure([{"owner": "o", "repo": "r", "branch": "main"}])
    )
    assert third["status"] == "empty" and other.call_count == 1


async def test_an_exhausted_resource_resetting_soon_is_waited_for(
    gateway_factory: Any, router: respx.MockRouter, sleeps: list[float]
) -> None:
    gateway = gateway_factory(clock=NOW)
    route = router.get(SEARCH).respond(json=EMPTY, headers=limit_headers(0, NOW + 5))
    await gateway.github_search_repositories([REPO_QUERY])
    await gateway.github_search_repositories([{"keywordsToSearch": ["other"]}])
    assert route.call_count == 2 and sleeps == [6.0]


@pytest.mark.parametrize(
    "limited",
    [
        httpx.Response(403, json=SECONDARY),
        httpx.Response(403, json={"message": "You have triggered an abuse detection mechanism."}),
        httpx.Response(429, text="Too Many Requests"),
    ],
    ids=["secondary", "abuse", "bare-429"],
)
async def test_secondary_limits_back_off_exponentially(
    gateway_factory: Any,
    env: Any,
    router: respx.MockRouter,
    sleeps: list[float],
    limited: httpx.Response,
) -> None:
    gateway = gateway_factory(env(OCTO_QUERY_TIMEOUT="1000"))
    route = router.get(SEARCH).mock(
        side_effect=[limited, limited, limited, httpx.Response(200, json=EMPTY)]
    )
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["status"] == "empty" and route.call_count == 4
    assert [round(s // 60) for s in sleeps] == [1, 2, 4]
    assert all(0 <= s - base <= 5 for s, base in zip(sleeps, (60, 120, 240), strict=True))


async def test_secondary_limits_give_up_after_four_tries(
    gateway_factory: Any, env: Any, router: respx.MockRouter, sleeps: list[float]
) -> None:
    gateway = gateway_factory(env(OCTO_QUERY_TIMEOUT="1000"))
    route = router.get(SEARCH).respond(403, json=SECONDARY)
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["error"]["code"] == "RATE_LIMIT_EXCEEDED"
    assert "secondary rate limit" in row["error"]["message"]
    assert route.call_count == 4 and len(sleeps) == 3


async def test_secondary_limit_waits_beyond_the_query_budget_fail_fast(
    gateway: octo.Gateway, router: respx.MockRouter, sleeps: list[float]
) -> None:
    # The default query timeout (60 s) cannot hold the first 60 s backoff plus a request.
    route = router.get(SEARCH).respond(403, json=SECONDARY)
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["error"]["code"] == "RATE_LIMIT_EXCEEDED" and "resetAt" in row["error"]
    assert route.call_count == 1 and sleeps == []


async def test_a_plain_403_is_never_retried(
    gateway: octo.Gateway, router: respx.MockRouter, sleeps: list[float]
) -> None:
    route = router.get(SEARCH).respond(
        403, json={"message": "Resource not accessible by integration"}
    )
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["error"] == {
        "code": "AUTHENTICATION_ERROR",
        "message": "GitHub answered 403: Resource not accessible by integration",
    }
    assert route.call_count == 1 and sleeps == []


async def test_server_errors_are_retried_a_few_times(
    gateway: octo.Gateway, router: respx.MockRouter, sleeps: list[float]
) -> None:
    route = router.get(SEARCH).mock(
        side_effect=[httpx.Response(502), httpx.Response(503), httpx.Response(200, json=EMPTY)]
    )
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["status"] == "empty" and route.call_count == 3
    assert len(sleeps) == 2 and all(s <= 1.5 for s in sleeps)


async def test_server_errors_give_up_after_three_tries(
    gateway: octo.Gateway, router: respx.MockRouter, sleeps: list[float]
) -> None:
    route = router.get(SEARCH).mock(side_effect=httpx.ReadTimeout("slow"))
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["error"]["code"] == "TOOL_NOT_AVAILABLE"
    assert "gave up after 3 tries" in row["error"]["message"]
    assert route.call_count == 3 and len(sleeps) == 2


async def test_an_unreachable_host_fails_fast(
    gateway: octo.Gateway, router: respx.MockRouter, sleeps: list[float]
) -> None:
    route = router.get(SEARCH).mock(side_effect=httpx.ConnectError("refused"))
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["error"]["code"] == "TOOL_NOT_AVAILABLE"
    assert route.call_count == 1 and sleeps == []


async def test_responses_without_rate_limit_headers_work(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get(SEARCH).respond(json=EMPTY)
    row = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert row["status"] == "empty" and row["hints"][0].startswith("Nothing found")
    assert gateway.runtime.backend(GitHubBackend).remote.rate_limits == {}


class SlowTransport(httpx.AsyncBaseTransport):
    """A real transport stand-in for the network: answers after a pause, counting requests."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        await anyio.sleep(0.05)
        return httpx.Response(200, json=self.body, headers={"etag": '"v1"'})


async def test_identical_concurrent_queries_share_one_request(gateway_factory: Any) -> None:
    transport = SlowTransport(EMPTY)
    gateway = gateway_factory(transport=transport)
    statuses: list[str] = []

    async def ask() -> None:
        statuses.append(first_row(await gateway.github_search_repositories([REPO_QUERY]))["status"])

    async with anyio.create_task_group() as tg:
        for _ in range(10):
            tg.start_soon(ask)
    assert statuses == ["empty"] * 10 and len(transport.requests) == 1


async def test_a_repeat_is_served_from_the_cache(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    route = router.get(SEARCH).respond(json=EMPTY)
    first = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    again = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert "cached" not in first and again["cached"] is True
    assert route.call_count == 1


async def test_stale_entries_are_revalidated_with_their_etag(
    gateway_factory: Any, env: Any, router: respx.MockRouter
) -> None:
    gateway = gateway_factory(env(OCTO_GITHUB_TTL_REPO_SEARCH="0"))
    route = router.get(SEARCH).mock(
        side_effect=[
            httpx.Response(200, json=EMPTY, headers={"etag": 'W/"abc"'}),
            httpx.Response(304, headers={"etag": 'W/"abc"'}),
        ]
    )
    first = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    again = first_row(await gateway.github_search_repositories([REPO_QUERY]))
    assert route.call_count == 2
    assert "if-none-match" not in route.calls[0].request.headers
    assert route.calls[1].request.headers["if-none-match"] == 'W/"abc"'
    assert again["data"] == first["data"] and again["cached"] is True


async def test_incomplete_search_results_are_not_cached(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    route = router.get("https://gh.test/api/v3/search/code").respond(
        json={**EMPTY, "incomplete_results": True}
    )
    query = {"keywordsToSearch": ["x"], "owner": "o"}
    row = first_row(await gateway.github_search_code([query]))
    await gateway.github_search_code([query])
    assert row["data"]["incompleteResults"] is True
    assert any("partial results" in hint for hint in row["hints"])
    assert route.call_count == 2


class CountingTransport(httpx.AsyncBaseTransport):
    """Answers after a pause and records the most requests it ever had in flight."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.most = 0
        self.requests = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        await anyio.sleep(0.05)
        self.in_flight -= 1
        return httpx.Response(200, json=EMPTY)


async def test_code_search_requests_in_flight_are_limited(gateway_factory: Any) -> None:
    transport = CountingTransport()
    gateway = gateway_factory(transport=transport)

    async def bulk(words: list[str]) -> None:
        await gateway.github_search_code([{"keywordsToSearch": [w]} for w in words])

    # Two bulks at once: six different code searches, never more than three in flight.
    async with anyio.create_task_group() as tg:
        tg.start_soon(bulk, ["a", "b", "c"])
        tg.start_soon(bulk, ["d", "e", "f"])
    assert transport.requests == 6 and transport.most == 3
