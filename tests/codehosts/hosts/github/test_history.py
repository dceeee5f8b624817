"""githubSearchIssues, githubSearchCommits and githubGetCommit on recorded GitHub answers
(recordings/history.json: bodies from GitHub's published examples, headers added)."""

from __future__ import annotations

from typing import Any

import octo
from tests.codehosts.hosts.conftest import GatewayFactory
from tests.codehosts.hosts.github.conftest import Recorded

CONTEXT = {"mainResearchGoal": "m", "researchGoal": "r", "reasoning": "why"}
SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"


async def one(gateway: octo.Gateway, tool: str, **query: Any) -> dict[str, Any]:
    row: dict[str, Any] = (await gateway.call(tool, [{**CONTEXT, **query}])).to_wire()["results"][0]
    assert row.get("error", {}).get("code") != "INTERNAL_ERROR", row
    return row


async def test_issue_search_finds_issues_only_and_names_the_next_read(
    gateway: octo.Gateway, recorded: Recorded, token: str
) -> None:
    routes = recorded("history")
    row = await one(
        gateway,
        "githubSearchIssues",
        owner="octocat",
        repo="Hello-World",
        query="crash",
        state="open",
        labels=["bug"],
    )
    assert row["status"] == "success" and row["researchGoal"] == "r"
    [issue] = row["data"]["issues"]
    assert issue["number"] == 1347 and issue["repository"] == "octocat/Hello-World"
    assert issue["labels"] == ["bug"]
    q = routes["/search/issues"].calls.last.request.url.params["q"]
    assert q.startswith("is:issue ") and "label:bug" in q
    assert any('"issueNumber":1347' in hint for hint in row["hints"])


async def test_one_issue_cuts_its_body_to_the_budget_with_a_handle(
    gateway_factory: GatewayFactory, env: Any, recorded: Recorded
) -> None:
    recorded("history")
    gateway = gateway_factory(env(OCTO_MAX_TOKENS="400"))
    row = await one(
        gateway, "githubSearchIssues", owner="octocat", repo="Hello-World", issueNumber=1347
    )
    assert row["status"] == "success", row
    data = row["data"]
    [issue] = data["issues"]
    assert issue["bodyTruncated"] is True and len(issue["body"]) == 400 * 4 // 2
    assert issue["comments"] and data["commentPagination"]["hasMore"] is True
    whole = await one(gateway, "getCachedContent", handle=data["contentHandle"])
    assert "Stack frame line" in str(whole["data"])
    hints = " ".join(row["hints"])
    assert (
        'githubSearchPullRequests {"owner":"octocat","repo":"Hello-World","query":"#1347"}' in hints
    )
    assert "githubSearchCommits" in hints


async def test_a_pull_request_number_is_pointed_to_the_pull_request_tool(
    gateway: octo.Gateway, router: Any
) -> None:
    router.get("https://gh.test/api/v3/repos/o/r/issues/7").respond(
        json={"number": 7, "title": "t", "state": "open", "pull_request": {"url": "x"}}
    )
    row = await one(gateway, "githubSearchIssues", owner="o", repo="r", issueNumber=7)
    assert row["error"]["code"] == "INVALID_QUERY"
    assert any('"prNumber":7' in hint for hint in row["hints"])


async def test_history_of_a_path_and_message_search(
    gateway: octo.Gateway, recorded: Recorded
) -> None:
    routes = recorded("history")
    history = await one(
        gateway, "githubSearchCommits", owner="octocat", repo="Hello-World", path="README", limit=5
    )
    assert history["status"] == "success", history
    [commit] = history["data"]["commits"]
    assert commit["sha"] == SHA and commit["message"] == "Fix all the bugs"
    assert history["data"]["pagination"]["hasMore"] is True
    hints = " ".join(history["hints"])
    assert f'githubGetCommit {{"owner":"octocat","repo":"Hello-World","sha":"{SHA}"' in hints
    assert f'"path":"README","branch":"{SHA}"' in hints
    found = await one(
        gateway,
        "githubSearchCommits",
        owner="octocat",
        repo="Hello-World",
        query="Fix all the bugs",
    )
    assert found["data"]["totalCount"] == 1
    assert found["data"]["commits"][0]["repository"] == "octocat/Hello-World"
    assert routes["/search/commits"].called


async def test_with_files_reads_each_commit(gateway: octo.Gateway, recorded: Recorded) -> None:
    recorded("history")
    row = await one(
        gateway,
        "githubSearchCommits",
        owner="octocat",
        repo="Hello-World",
        path="README",
        limit=5,
        withFiles=True,
    )
    [commit] = row["data"]["commits"]
    assert commit["files"] == [
        {"filename": "file1.txt", "status": "added", "additions": 103, "deletions": 21}
    ]


async def test_a_commit_with_patches_and_one_without(
    gateway: octo.Gateway, recorded: Recorded
) -> None:
    routes = recorded("history")
    bare = await one(gateway, "githubGetCommit", owner="octocat", repo="Hello-World", sha=SHA)
    assert bare["status"] == "success", bare
    assert bare["data"]["stats"] == {"additions": 104, "deletions": 4, "total": 108}
    assert "patch" not in bare["data"]["files"][0]
    assert any("includePatch=true" in hint for hint in bare["hints"])
    patched = await one(
        gateway, "githubGetCommit", owner="octocat", repo="Hello-World", sha=SHA, includePatch=True
    )
    assert patched["data"]["files"][0]["patch"].startswith("@@")
    assert patched["cached"] is True  # the commit is cached once, whatever the query shows
    assert routes[f"/repos/octocat/Hello-World/commits/{SHA}"].call_count == 1


async def test_a_patch_over_the_budget_is_cut_with_a_handle(
    gateway_factory: GatewayFactory, env: Any, recorded: Recorded
) -> None:
    recorded("history")
    gateway = gateway_factory(env(OCTO_MAX_TOKENS="10"))
    row = await one(
        gateway, "githubGetCommit", owner="octocat", repo="Hello-World", sha=SHA, includePatch=True
    )
    [changed] = row["data"]["files"]
    assert changed["patchTruncated"] is True and len(changed["patch"]) == 40
    whole = await one(gateway, "getCachedContent", handle=changed["contentHandle"])
    assert "@@ -132,7 +132,7 @@" in str(whole["data"])


async def test_a_comparison_of_two_tags(gateway: octo.Gateway, recorded: Recorded) -> None:
    recorded("history")
    row = await one(
        gateway,
        "githubGetCommit",
        owner="octocat",
        repo="Hello-World",
        base="v1.0",
        head="v1.1",
        filePaths=["file1.txt"],
    )
    data = row["data"]
    assert data["status"] == "ahead" and data["aheadBy"] == 1
    assert [c["sha"] for c in data["commits"]] == [SHA]
    assert [f["filename"] for f in data["files"]] == ["file1.txt"]


async def test_bad_refs_fail_alone(gateway: octo.Gateway, recorded: Recorded) -> None:
    recorded("history")
    rows = (
        await gateway.call(
            "githubGetCommit",
            [
                {"owner": "octocat", "repo": "Hello-World", "sha": "a..b"},
                {"owner": "octocat", "repo": "Hello-World", "base": "v1.0"},
                {"owner": "octocat", "repo": "Hello-World", "sha": SHA},
            ],
        )
    ).to_wire()["results"]
    assert [r["status"] for r in rows] == ["error", "error", "success"]
    assert {r["error"]["code"] for r in rows[:2]} == {"VALIDATION_ERROR"}
