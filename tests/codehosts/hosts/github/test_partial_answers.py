"""A pull request's part that fails leaves only that part out; a failed search keeps its own
error; identical failing queries of one call (one shared upstream failure) keep their hints once."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

import octo

PULLS = "https://gh.test/api/v3/repos/octocat/Hello-World"
#: The recorded search (pr_search) that finds pull requests 1347 and 1296.
SEARCH: dict[str, object] = {
    "owner": "octocat",
    "repo": "Hello-World",
    "state": "closed",
    "merged": True,
    "label": "bug",
}
#: Each part: the query fields that ask for it, its field in a pull request, its URL below PULLS.
PARTS: dict[str, tuple[dict[str, object], str, str]] = {
    "comments": ({"withComments": True}, "comments", "issues/{n}/comments"),
    "commits": ({"withCommits": True}, "commits", "pulls/{n}/commits"),
    "changed files": ({"type": "fullContent"}, "files", "pulls/{n}/files"),
}
FAILURES = {
    "NOT_FOUND": httpx.Response(404, json={"message": "Not Found"}),
    "TOOL_NOT_AVAILABLE": httpx.Response(502, text="Bad Gateway"),
    "RATE_LIMIT_EXCEEDED": httpx.Response(429, headers={"retry-after": "3600"}),
}


def rows(response: octo.BulkResponse[Any]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = response.to_wire()["results"]
    return result


@pytest.mark.parametrize("code", list(FAILURES))
@pytest.mark.parametrize("part", list(PARTS))
async def test_a_failing_part_of_one_pull_request_is_left_out_and_said(
    gateway: octo.Gateway, recorded: Any, router: respx.MockRouter, part: str, code: str
) -> None:
    recorded("pr_search")
    recorded("pr_detail")  # the parts of pull request 1347
    fields, key, path = PARTS[part]
    failing = router.get(f"{PULLS}/{path.format(n=1296)}").mock(return_value=FAILURES[code])
    [row] = rows(await gateway.github_search_pull_requests([{**SEARCH, **fields}]))
    assert row["status"] == "success" and row["partial"] is True
    good, failed = row["data"]["pullRequests"]
    assert (good["number"], failed["number"]) == (1347, 1296)
    assert good[key] and key not in failed
    [hint] = [h for h in row["hints"] if "could not be read" in h]
    assert f"#1296 {part}: {code}" in hint
    assert failing.call_count >= 1


async def test_every_failing_part_is_said_once_and_the_rest_is_kept(
    gateway: octo.Gateway, recorded: Any, router: respx.MockRouter
) -> None:
    recorded("pr_search")
    recorded("pr_detail")
    router.get(f"{PULLS}/issues/1296/comments").respond(404, json={"message": "Not Found"})
    router.get(f"{PULLS}/pulls/1296/commits").respond(json=[])
    router.get(f"{PULLS}/pulls/1296/files").respond(404, json={"message": "Not Found"})
    [row] = rows(
        await gateway.github_search_pull_requests(
            [{**SEARCH, "type": "fullContent", "withComments": True, "withCommits": True}]
        )
    )
    good, failed = row["data"]["pullRequests"]
    assert {"comments", "commits", "files"} <= good.keys()
    assert failed["commits"] == [] and "comments" not in failed and "files" not in failed
    [hint] = [h for h in row["hints"] if "could not be read" in h]
    assert "#1296 comments: NOT_FOUND" in hint and "#1296 changed files: NOT_FOUND" in hint
    assert row["partial"] is True and "cached" not in row


async def test_a_failed_search_keeps_its_own_error_and_hints(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get("https://gh.test/api/v3/search/issues").mock(
        return_value=FAILURES["RATE_LIMIT_EXCEEDED"]
    )
    [row] = rows(await gateway.github_search_pull_requests([{**SEARCH, "withComments": True}]))
    assert row["error"]["code"] == "RATE_LIMIT_EXCEEDED"
    assert any(h.startswith("Limit resets at") for h in row["hints"])


async def test_a_missing_pull_request_keeps_not_found_and_its_hints(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get(f"{PULLS}/pulls/9").respond(404, json={"message": "Not Found"})
    query = {"owner": "octocat", "repo": "Hello-World", "prNumber": 9, "withComments": True}
    first, second = rows(await gateway.github_search_pull_requests([query, query]))
    assert (
        first["error"]
        == second["error"]
        == {
            "code": "NOT_FOUND",
            "message": "GitHub answered 404: Not Found",
        }
    )
    assert first["hints"] == second["hints"]
    assert len(set(first["hints"])) == len(first["hints"]) >= 1
    assert any("prNumber" in h for h in first["hints"])


async def test_identical_failing_queries_of_one_call_keep_their_hints_once(
    gateway: octo.Gateway, recorded: Any
) -> None:
    routes = recorded("errors")
    query = {"owner": "octocat", "repo": "missing", "path": "README.md"}
    first, second = rows(await gateway.github_get_file_content([query, query, query]))[:2]
    assert first["error"]["code"] == second["error"]["code"] == "NOT_FOUND"
    assert first["hints"] == second["hints"]
    assert len(set(second["hints"])) == len(second["hints"]) == 2
    # One upstream request served all three: the failure was shared, its hints were not.
    assert routes["/repos/octocat/missing/contents/README.md"].call_count == 1
