"""githubSearchCode and githubSearchPullRequests over several repositories (``repos``), on
recorded GitHub answers: one request where GitHub's syntax allows, else one per repository."""

from __future__ import annotations

from typing import Any

import respx

import octo

REPOS = ["facebook/react", "preactjs/preact"]


def calls_to(router: respx.MockRouter, path: str) -> int:
    return sum(1 for call in router.calls if call.request.url.path.endswith(path))


def row(response: octo.BulkResponse[Any]) -> dict[str, Any]:
    [first] = response.to_wire()["results"]
    result: dict[str, Any] = first
    return result


async def test_global_search_of_several_repositories_is_one_request(
    gateway: octo.Gateway, recorded: Any, router: respx.MockRouter
) -> None:
    recorded("multi_repo")
    answer = row(
        await gateway.github_search_code([{"keywordsToSearch": ["useState"], "repos": REPOS}])
    )
    assert answer["status"] == "success"
    data = answer["data"]
    assert data["places"] == REPOS
    assert [(hit["place"], hit["file"]) for hit in data["results"]] == [
        ("facebook/react", "packages/react/src/ReactHooks.js"),
        ("preactjs/preact", "hooks/src/index.js"),
        ("facebook/react", "packages/react-reconciler/src/ReactFiberHooks.js"),
    ]
    assert data["totalCount"] == 3
    assert calls_to(router, "/search/code") == 1


async def test_grouped_answer_keeps_the_repositories_order(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("multi_repo")
    query = {"keywordsToSearch": ["useState"], "repos": REPOS, "responseFormat": "grouped"}
    data = row(await gateway.github_search_code([query]))["data"]
    assert data["results"] == []
    groups = data["groups"]
    assert [g["place"] for g in groups] == REPOS
    assert [len(g["results"]) for g in groups] == [2, 1]
    assert all("place" not in hit for g in groups for hit in g["results"])


async def test_a_repository_github_cannot_search_fails_alone(
    gateway: octo.Gateway, recorded: Any, router: respx.MockRouter
) -> None:
    recorded("multi_repo")
    query = {"keywordsToSearch": ["useState"], "repos": ["facebook/react", "octocat/invisible"]}
    answer = row(await gateway.github_search_code([query]))
    assert answer["status"] == "success"
    assert answer["partial"] is True
    data = answer["data"]
    assert {hit["place"] for hit in data["results"]} == {"facebook/react"}
    [error] = data["errors"]
    assert error["place"] == "octocat/invisible"
    assert error["code"] == "INVALID_QUERY"
    assert any("octocat/invisible" in hint for hint in error["hints"])
    # The one request, then one per repository to find which failed.
    assert calls_to(router, "/search/code") == 3


async def test_per_place_splits_the_limit_over_the_repositories(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("multi_repo")
    query = {
        "keywordsToSearch": ["useState"],
        "repos": REPOS,
        "limit": 3,
        "aggregationMode": "perPlace",
    }
    data = row(await gateway.github_search_code([query]))["data"]
    assert [hit["place"] for hit in data["results"]] == [
        "facebook/react",
        "facebook/react",
        "preactjs/preact",
    ]
    assert data["totalCount"] == 18
    assert data["pagination"] == {"currentPage": 1, "hasMore": True}


async def test_pull_requests_of_several_repositories_in_one_request(
    gateway: octo.Gateway, recorded: Any, router: respx.MockRouter
) -> None:
    recorded("multi_repo")
    query = {"query": "useState", "repos": REPOS, "state": "closed", "merged": True}
    data = row(await gateway.github_search_pull_requests([query]))["data"]
    assert [(pull["place"], pull["number"]) for pull in data["pullRequests"]] == [
        ("facebook/react", 28001),
        ("preactjs/preact", 4301),
        ("facebook/react", 27950),
    ]
    assert data["tokens"]["requiresPagination"] is False
    assert calls_to(router, "/search/issues") == 1


async def test_repos_is_validated(gateway: octo.Gateway) -> None:
    queries = [
        {"keywordsToSearch": ["x"], "repos": ["a/b"], "owner": "a"},
        {"keywordsToSearch": ["x"], "repos": ["not-a-repo"]},
        {"keywordsToSearch": ["x"], "repos": ["a/b", "A/B"]},
        {"keywordsToSearch": ["x"], "repos": [f"o/r{i}" for i in range(11)]},
    ]
    rows = [row(await gateway.github_search_code([query])) for query in queries]
    assert [r["error"]["code"] for r in rows] == ["VALIDATION_ERROR"] * 4
    assert "exclusive" in rows[0]["error"]["message"]
    assert "owner/repo" in rows[1]["error"]["message"]
    assert "twice" in rows[2]["error"]["message"]
    pulls = await gateway.github_search_pull_requests([{"repos": ["a/b"], "prNumber": 3}])
    assert pulls.results[0].error is not None
    assert "prNumber needs owner and repo" in pulls.results[0].error.message


async def test_an_owner_wildcard_searches_the_repositories_it_matches(
    gateway: octo.Gateway, recorded: Any, router: respx.MockRouter
) -> None:
    recorded("owner_wildcard")
    query = {"keywordsToSearch": ["useState"], "repos": ["preactjs/preact*"]}
    answer = row(await gateway.github_search_code([query]))
    assert answer["status"] == "success"
    data = answer["data"]
    # Both pages of the organisation's list read; "signals" does not match the prefix.
    assert data["places"] == [
        "preactjs/preact",
        "preactjs/preact-cli",
        "preactjs/preact-render-to-string",
    ]
    assert [hit["place"] for hit in data["results"]] == [
        "preactjs/preact",
        "preactjs/preact-render-to-string",
    ]
    assert answer["hints"][0] == "preactjs/preact* matched 3 repositories; all are searched."
    assert calls_to(router, "/orgs/preactjs/repos") == 2
    assert calls_to(router, "/search/code") == 1


async def test_a_user_wildcard_lists_the_users_repositories(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("owner_wildcard")
    query = {"keywordsToSearch": ["useState"], "repos": ["octocat/*"]}
    data = row(await gateway.github_search_code([query]))["data"]
    assert data["places"] == ["octocat/Hello-World", "octocat/Spoon-Knife"]
    assert [hit["place"] for hit in data["results"]] == ["octocat/Spoon-Knife"]


async def test_a_wildcard_is_capped_at_twenty_and_says_how_many_matched(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("owner_wildcard")
    query = {"keywordsToSearch": ["useState"], "repos": ["bigorg/*"]}
    answer = row(await gateway.github_search_code([query]))
    assert answer["data"]["places"] == [f"bigorg/svc-{n:02d}" for n in range(20)]
    assert answer["hints"][0].startswith("bigorg/* matched 25 repositories; 20 are searched")


async def test_a_wildcard_matching_nothing_fails_alone(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("owner_wildcard")
    query = {"keywordsToSearch": ["useState"], "repos": ["octocat/nothing-*", "octocat/Spoon-*"]}
    answer = row(await gateway.github_search_code([query]))
    data = answer["data"]
    assert [hit["place"] for hit in data["results"]] == ["octocat/Spoon-Knife"]
    [error] = data["errors"]
    assert error["place"] == "octocat/nothing-*" and error["code"] == "NOT_FOUND"
    assert "Hello-World" in error["message"]


async def test_a_misplaced_wildcard_is_a_validation_error(gateway: octo.Gateway) -> None:
    for bad in ("pre*/preact", "preactjs/*-cli", "*"):
        query = {"keywordsToSearch": ["useState"], "repos": [bad]}
        answer = row(await gateway.github_search_code([query]))
        assert answer["error"]["code"] == "VALIDATION_ERROR", bad


async def test_pull_requests_take_wildcards_too(
    gateway: octo.Gateway, recorded: Any, router: respx.MockRouter
) -> None:
    recorded("owner_wildcard")
    query = {"query": "useState", "repos": ["preactjs/preact*"], "state": "closed", "merged": True}
    answer = row(await gateway.github_search_pull_requests([query]))
    assert [(p["place"], p["number"]) for p in answer["data"]["pullRequests"]] == [
        ("preactjs/preact", 4301)
    ]
    assert answer["hints"][0] == "preactjs/preact* matched 3 repositories; all are searched."
    assert calls_to(router, "/search/issues") == 1
