"""The five remote tools answering for GitLab (provider "gitlab"), over hand-written recordings."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import respx

import octo

API = "https://gl.test/api/v4"
PROJECT = "group%2Fsub%2Fproject"
Recorded = Callable[[str], dict[str, respx.Route]]


def rows(response: Any) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = response.to_wire()["results"]
    return results


def gl(**query: Any) -> dict[str, Any]:
    return {"provider": "gitlab", **query}


OWNER = {"owner": "group/sub", "repo": "project"}


# code search


async def test_project_blob_search_and_paging(gateway: octo.Gateway, recorded: Recorded) -> None:
    routes = recorded("code_search")
    first, second = rows(
        await gateway.github_search_code(
            [
                gl(keywordsToSearch=["addClass"], limit=2, **OWNER),
                gl(keywordsToSearch=["addClass"], limit=2, page=2, **OWNER),
            ]
        )
    )
    data = first["data"]
    assert data["totalCount"] == 3
    assert data["pagination"] == {"currentPage": 1, "hasMore": True}
    hit = data["results"][0]
    assert hit["file"] == "src/dom.js" and hit["repository"] == "group/sub/project"
    assert hit["url"] == "https://gl.test/group/sub/project/-/blob/main/src/dom.js#L12"
    span = hit["text_matches"][0]["matches"][0]
    fragment = hit["text_matches"][0]["fragment"]
    assert fragment[span["indices"][0] : span["indices"][1]] == "addClass"
    assert any('"startLine":12' in h and '"provider":"gitlab"' in h for h in first["hints"])
    assert any("page=2" in h for h in first["hints"])
    assert second["data"]["pagination"]["hasMore"] is False
    assert [r["file"] for r in second["data"]["results"]] == ["test/dom.test.js"]
    request = routes[next(iter(routes))].calls.last.request
    assert request.headers["private-token"] == "test-token-not-real-gl"


async def test_path_filters_are_applied_and_said(gateway: octo.Gateway, recorded: Recorded) -> None:
    recorded("code_search")
    [row] = rows(
        await gateway.github_search_code(
            [gl(keywordsToSearch=["addClass"], limit=2, extension="js", **OWNER)]
        )
    )
    assert [r["file"] for r in row["data"]["results"]] == ["src/dom.js"]
    assert any("1 of 2 results kept" in h for h in row["hints"])


async def test_group_code_search_needs_advanced_search(
    gateway: octo.Gateway, recorded: Recorded
) -> None:
    recorded("code_search")
    [row] = rows(
        await gateway.github_search_code([gl(keywordsToSearch=["addClass"], owner="group")])
    )
    assert row["error"]["code"] == "INVALID_QUERY"
    assert "across group group" in row["error"]["message"]
    assert "advanced search" in row["hints"][0]


async def test_match_path_walks_the_tree(gateway: octo.Gateway, router: respx.MockRouter) -> None:
    router.get(f"{API}/projects/{PROJECT}/repository/tree").mock(
        return_value=httpx.Response(
            200,
            json=[
                {"path": "src/dom.js", "type": "blob"},
                {"path": "src/dom", "type": "tree"},
                {"path": "test/dom.test.js", "type": "blob"},
                {"path": "README.md", "type": "blob"},
            ],
        )
    )
    [row] = rows(
        await gateway.github_search_code([gl(keywordsToSearch=["dom"], match="path", **OWNER)])
    )
    assert [r["file"] for r in row["data"]["results"]] == ["src/dom.js", "test/dom.test.js"]
    [refused] = rows(await gateway.github_search_code([gl(keywordsToSearch=["dom"], match="path")]))
    assert refused["error"]["code"] == "INVALID_QUERY"


# file content


async def test_raw_file_with_line_range(gateway: octo.Gateway, recorded: Recorded) -> None:
    routes = recorded("file")
    [row] = rows(
        await gateway.github_get_file_content(
            [gl(path="src/dom.js", startLine=12, endLine=14, **OWNER)]
        )
    )
    data = row["data"]
    assert data["content"].startswith("export function addClass")
    assert (data["startLine"], data["endLine"], data["totalLines"]) == (12, 14, 14)
    assert len(data["sha"]) == 40 and data["size"] > 0
    assert routes[f"{API}/projects/{PROJECT}/repository/files/src%2Fdom.js/raw?ref=HEAD"].called


async def test_match_string_and_missing_file(gateway: octo.Gateway, recorded: Recorded) -> None:
    recorded("file")
    found, missing = rows(
        await gateway.github_get_file_content(
            [
                gl(path="src/dom.js", matchString="hasClass", matchStringContextLines=1, **OWNER),
                gl(path="missing.txt", **OWNER),
            ]
        )
    )
    assert found["data"]["matchCount"] == 1
    assert "return el.classList.contains" in found["data"]["content"]
    assert missing["error"]["code"] == "NOT_FOUND"
    assert any("group path" in h for h in missing["hints"])


async def test_git_blob_id_is_computed_without_the_header(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get(f"{API}/projects/{PROJECT}/repository/files/a.txt/raw").mock(
        return_value=httpx.Response(200, text="hello\n")
    )
    [row] = rows(await gateway.github_get_file_content([gl(path="a.txt", **OWNER)]))
    # `git hash-object` of "hello\n"
    assert row["data"]["sha"] == "ce013625030ba8dba906f756967f9e9ca394464a"


async def test_large_file_is_refused_with_paging_hint(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get(f"{API}/projects/{PROJECT}/repository/files/big.txt/raw").mock(
        return_value=httpx.Response(200, text="x" * 400_000)
    )
    [row] = rows(await gateway.github_get_file_content([gl(path="big.txt", **OWNER)]))
    assert row["error"]["code"] == "FILE_TOO_LARGE"
    assert row["error"]["message"] == (
        "big.txt is 400000 bytes; one answer holds at most 307200 bytes"
    )
    # Refused from its Content-Length, before it is downloaded: its characters are unknown.
    assert row["hints"] == [
        "Read it in pages: charOffset=0, charLength=50000.",
        "Or read part of it: matchString, or startLine/endLine.",
    ]


async def test_binary_file_is_refused(gateway: octo.Gateway, router: respx.MockRouter) -> None:
    router.get(f"{API}/projects/{PROJECT}/repository/files/logo.png/raw").mock(
        return_value=httpx.Response(200, content=base64.b64decode("iVBORw0KGgoAAAANSUhEUgAA/w=="))
    )
    [row] = rows(await gateway.github_get_file_content([gl(path="logo.png", **OWNER)]))
    assert row["error"]["code"] == "INVALID_QUERY" and "binary" in row["error"]["message"]


# repository structure


async def test_recursive_tree_with_keyset_pages(gateway: octo.Gateway, recorded: Recorded) -> None:
    routes = recorded("tree")
    [row] = rows(await gateway.github_view_repo_structure([gl(branch="main", depth=2, **OWNER)]))
    # GitLab's id of each entry is its git object sha.
    structure = {path: entry.pop("sha") for path, entry in row["data"]["structure"].items()}
    assert structure["src"] == "a1e8f8d745cc87e3a9248358d9352bb7f9a0aeba"
    assert structure["src/dom.js"] == "b2e8f8d745cc87e3a9248358d9352bb7f9a0aeba"
    structure = row["data"]["structure"]
    assert structure["src"] == {"type": "dir"}
    assert structure["src/dom.js"] == {"type": "file"}
    assert structure["README.md"] == {"type": "file"}
    assert structure["vendor"] == {"type": "dir"}  # a submodule
    assert "src/util/deep.js" not in structure  # depth 2 from the root
    assert row["data"]["summary"] == {"totalFiles": 2, "totalFolders": 3, "truncated": False}
    keyset = [r for url, r in routes.items() if "page_token" in url]
    assert keyset[0].call_count == 1
    assert any('provider="gitlab"' in h for h in row["hints"])


async def test_tree_with_page_numbers_and_a_path(gateway: octo.Gateway, recorded: Recorded) -> None:
    recorded("tree")
    [row] = rows(await gateway.github_view_repo_structure([gl(branch="v1", path="src", **OWNER)]))
    assert {path: entry["type"] for path, entry in row["data"]["structure"].items()} == {
        "dom.js": "file",
        "util": "dir",
    }
    assert row["data"]["structure"]["dom.js"]["sha"] == "b2e8f8d745cc87e3a9248358d9352bb7f9a0aeba"
    assert row["data"]["path"] == "src"


async def test_missing_tree_path(gateway: octo.Gateway, recorded: Recorded) -> None:
    recorded("tree")
    [row] = rows(
        await gateway.github_view_repo_structure([gl(branch="main", path="nope", **OWNER)])
    )
    assert row["error"]["code"] == "NOT_FOUND"


async def test_overlong_tree_is_cut_and_says_so(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    pages = iter(range(10_000))

    def endless(request: httpx.Request) -> httpx.Response:
        n = next(pages)
        return httpx.Response(
            200, json=[{"path": f"f{n}.txt", "type": "blob"}], headers={"x-next-page": str(n + 2)}
        )

    router.get(f"{API}/projects/{PROJECT}/repository/tree").mock(side_effect=endless)
    [row] = rows(await gateway.github_view_repo_structure([gl(branch="main", **OWNER)]))
    assert row["data"]["summary"]["truncated"] is True
    assert "stopped after" in row["hints"][0]


# projects


async def test_project_search_by_keywords_topics_and_stars(
    gateway: octo.Gateway, recorded: Recorded
) -> None:
    recorded("projects")
    [row] = rows(
        await gateway.github_search_repositories(
            [
                gl(
                    keywordsToSearch=["dom", "helpers"],
                    topicsToSearch=["javascript"],
                    sort="stars",
                    stars=">1000",
                    limit=2,
                )
            ]
        )
    )
    data = row["data"]
    assert [r["full_name"] for r in data["repositories"]] == ["group/sub/project"]
    top = data["repositories"][0]
    assert (top["stars"], top["forks"], top["default_branch"]) == (1500, 40, "main")
    assert data["totalCount"] == 7 and data["pagination"]["hasMore"] is True
    assert any("1 of 2 kept" in h for h in row["hints"])
    assert any('"owner":"group/sub","repo":"project"' in h for h in row["hints"])


async def test_owner_that_is_a_user(gateway: octo.Gateway, recorded: Recorded) -> None:
    routes = recorded("projects")
    [row] = rows(
        await gateway.github_search_repositories([gl(keywordsToSearch=["dom"], owner="someone")])
    )
    assert [r["full_name"] for r in row["data"]["repositories"]] == ["someone/tiny-dom"]
    assert all(route.call_count == 1 for url, route in routes.items() if "someone" in url)


async def test_unsupported_project_filters_are_said(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    route = router.get(f"{API}/projects").mock(return_value=httpx.Response(200, json=[]))
    [row] = rows(
        await gateway.github_search_repositories(
            [gl(keywordsToSearch=["x"], sort="forks", size="<100", updated=">2024-01-01")]
        )
    )
    params = route.calls.last.request.url.params
    assert params["order_by"] == "star_count" and params["last_activity_after"] == "2024-01-01"
    text = " ".join(row["hints"])
    assert "by forks" in text and "size" in text


# merge requests


async def test_merge_request_search_filters(gateway: octo.Gateway, recorded: Recorded) -> None:
    recorded("merge_requests")
    [row] = rows(
        await gateway.github_search_pull_requests(
            [
                gl(
                    query="dom",
                    merged=True,
                    author="alice",
                    label=["bug", "ui"],
                    created=">2024-01-01",
                    **OWNER,
                )
            ]
        )
    )
    [pull] = row["data"]["pullRequests"]
    assert (pull["number"], pull["state"], pull["merged"]) == (1, "closed", True)
    assert pull["repository"] == "group/sub/project"
    assert (pull["head"], pull["base"], pull["labels"]) == ("fix-svg", "main", ["bug", "ui"])
    assert row["data"]["totalCount"] == 6 and row["data"]["pagination"]["hasMore"] is True


async def test_merge_request_in_full(gateway: octo.Gateway, recorded: Recorded) -> None:
    routes = recorded("merge_requests")
    [row] = rows(
        await gateway.github_search_pull_requests(
            [gl(prNumber=1, type="fullContent", withComments=True, withCommits=True, **OWNER)]
        )
    )
    [pull] = row["data"]["pullRequests"]
    assert [c["author"] for c in pull["comments"]] == ["bob"]  # the system note is dropped
    assert pull["commits"][0]["message"].startswith("Fix addClass on SVG")
    files = {f["filename"]: f for f in pull["files"]}
    assert files["src/dom.js"]["status"] == "modified"
    assert (files["src/dom.js"]["additions"], files["src/dom.js"]["deletions"]) == (5, 1)
    assert files["test/dom.test.js"]["previous_filename"] == "test/old.test.js"
    assert files["docs/svg.md"]["status"] == "added"
    diff_pages = [r for url, r in routes.items() if "/diffs" in url]
    assert all(r.call_count == 1 for r in diff_pages)


async def test_partial_content_and_missing_merge_request(
    gateway: octo.Gateway, recorded: Recorded
) -> None:
    recorded("merge_requests")
    partial, missing = rows(
        await gateway.github_search_pull_requests(
            [
                gl(
                    prNumber=1,
                    type="partialContent",
                    partialContentMetadata=[{"file": "docs/svg.md"}],
                    **OWNER,
                ),
                gl(prNumber=99, **OWNER),
            ]
        )
    )
    assert [f["filename"] for f in partial["data"]["pullRequests"][0]["files"]] == ["docs/svg.md"]
    assert missing["error"]["code"] == "NOT_FOUND"
    assert any("IID" in h for h in missing["hints"])


async def test_old_instance_without_paged_diffs_uses_changes(
    gateway: octo.Gateway, recorded: Recorded, router: respx.MockRouter
) -> None:
    router.get(f"{API}/projects/6/merge_requests/1/diffs").mock(return_value=httpx.Response(404))
    changes = router.get(f"{API}/projects/6/merge_requests/1/changes").mock(
        return_value=httpx.Response(
            200, json={"changes": [{"old_path": "a", "new_path": "a", "diff": "+x\n"}]}
        )
    )
    recorded("merge_requests")
    [row] = rows(
        await gateway.github_search_pull_requests([gl(prNumber=1, type="fullContent", **OWNER)])
    )
    assert changes.call_count == 1
    assert row["data"]["pullRequests"][0]["files"][0]["additions"] == 1


async def test_merge_request_state_mapping(gateway: octo.Gateway, router: respx.MockRouter) -> None:
    route = router.get(f"{API}/projects/{PROJECT}/merge_requests").mock(
        return_value=httpx.Response(200, json=[])
    )
    closed, open_drafts = rows(
        await gateway.github_search_pull_requests(
            [
                gl(state="closed", updated="2024-01-01..2024-02-01", **OWNER),
                gl(state="open", draft=True, assignee="bob", **OWNER),
            ]
        )
    )
    sent = [call.request.url.params for call in route.calls]
    by_state = {p["state"]: p for p in sent}
    assert by_state["closed"]["updated_after"] == "2024-01-01"
    assert by_state["closed"]["updated_before"] == "2024-02-01T23:59:59Z"
    assert by_state["opened"]["wip"] == "yes" and by_state["opened"]["assignee_username"] == "bob"
    assert any("merged=true" in h for h in closed["hints"])
    assert open_drafts["status"] == "empty"


# errors and rate limits


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (401, {"message": "401 Unauthorized"}, "AUTHENTICATION_ERROR"),
        (403, {"message": "403 Forbidden"}, "AUTHENTICATION_ERROR"),
        (404, {"message": "404 Project Not Found"}, "NOT_FOUND"),
        (400, {"message": {"search": ["is too short"]}}, "INVALID_QUERY"),
    ],
)
async def test_errors_map_to_the_same_codes_as_github(
    gateway: octo.Gateway, router: respx.MockRouter, status: int, body: Any, code: str
) -> None:
    route = router.get(f"{API}/projects/{PROJECT}/search").mock(
        return_value=httpx.Response(status, json=body)
    )
    [row] = rows(await gateway.github_search_code([gl(keywordsToSearch=["a"], **OWNER)]))
    assert row["error"]["code"] == code
    assert route.call_count == 1  # never retried
    assert "test-token-not-real-gl" not in str(row)
    if status == 400:
        assert "search: ['is too short']" in row["error"]["message"]
    if status == 401:
        assert any("GITLAB_TOKEN" in h for h in row["hints"])


async def test_retry_after_is_honoured(
    gateway: octo.Gateway, router: respx.MockRouter, sleeps: list[float]
) -> None:
    route = router.get(f"{API}/projects/{PROJECT}/search").mock(
        side_effect=[
            httpx.Response(429, headers={"retry-after": "7"}, text="Retry later"),
            httpx.Response(200, json=[]),
        ]
    )
    [row] = rows(await gateway.github_search_code([gl(keywordsToSearch=["a"], **OWNER)]))
    assert row["status"] == "empty"
    assert route.call_count == 2 and sleeps == [7.0]


async def test_bare_429_backs_off_exponentially(
    gateway: octo.Gateway, router: respx.MockRouter, sleeps: list[float]
) -> None:
    route = router.get(f"{API}/projects/{PROJECT}/search").mock(
        side_effect=[
            httpx.Response(429, text="Retry later"),
            httpx.Response(429, text="Retry later"),
            httpx.Response(200, json=[]),
        ]
    )
    await gateway.github_search_code([gl(keywordsToSearch=["a"], **OWNER)])
    assert route.call_count == 3
    assert len(sleeps) == 2 and 5 <= sleeps[0] <= 6 and 10 <= sleeps[1] <= 11


async def test_exhausted_ratelimit_headers_wait_or_fail_fast(
    gateway_factory: Any, router: respx.MockRouter, sleeps: list[float]
) -> None:
    now = 1_700_000_000.0
    gateway = gateway_factory(clock=now)
    route = router.get(f"{API}/projects/{PROJECT}/search").mock(
        side_effect=[
            httpx.Response(
                200,
                json=[],
                headers={
                    "ratelimit-limit": "30",
                    "ratelimit-remaining": "0",
                    "ratelimit-reset": str(int(now + 20)),
                },
            ),
            httpx.Response(200, json=[]),
        ]
    )
    first = rows(await gateway.github_search_code([gl(keywordsToSearch=["a"], **OWNER)]))[0]
    assert any("quota running low" in h for h in first["hints"])
    await gateway.github_search_code([gl(keywordsToSearch=["b"], **OWNER)])
    assert sleeps == [21.0] and route.call_count == 2  # waited for the reset before sending

    far = gateway_factory(clock=now)
    router.get(f"{API}/projects/{PROJECT}/repository/tree").mock(
        return_value=httpx.Response(
            200,
            json=[],
            headers={"ratelimit-remaining": "0", "ratelimit-reset": str(int(now + 3600))},
        )
    )
    await far.github_view_repo_structure([gl(branch="main", **OWNER)])
    [row] = rows(await far.github_view_repo_structure([gl(branch="dev", **OWNER)]))
    assert row["error"]["code"] == "RATE_LIMIT_EXCEEDED" and row["error"]["resetAt"]


async def test_server_errors_are_retried(
    gateway: octo.Gateway, router: respx.MockRouter, sleeps: list[float]
) -> None:
    route = router.get(f"{API}/projects/{PROJECT}/search").mock(
        side_effect=[httpx.Response(502), httpx.Response(200, json=[])]
    )
    [row] = rows(await gateway.github_search_code([gl(keywordsToSearch=["a"], **OWNER)]))
    assert row["status"] == "empty" and route.call_count == 2 and len(sleeps) == 1


async def test_concurrent_identical_queries_share_one_request(
    gateway: octo.Gateway, recorded: Recorded
) -> None:
    routes = recorded("file")
    route = routes[f"{API}/projects/{PROJECT}/repository/files/src%2Fdom.js/raw?ref=HEAD"]
    query = gl(path="src/dom.js", fullContent=True, **OWNER)
    async with anyio.create_task_group() as tg:
        for _ in range(10):
            tg.start_soon(gateway.github_get_file_content, [query])
    assert route.call_count == 1
    [again] = rows(await gateway.github_get_file_content([query]))
    assert again["cached"] is True and route.call_count == 1


async def test_bulk_with_one_failure(gateway: octo.Gateway, recorded: Recorded) -> None:
    recorded("file")
    response = await gateway.github_get_file_content(
        [
            gl(path="src/dom.js", **OWNER),
            gl(path="missing.txt", **OWNER),
            gl(path="src/dom.js", startLine=1, endLine=2, **OWNER),
        ]
    )
    assert [r["status"] for r in rows(response)] == ["success", "error", "success"]


# routing and configuration


async def test_default_provider_is_gitlab_only_when_github_is_not_configured(
    gateway_factory: Any, router: respx.MockRouter
) -> None:
    gitlab = router.get(f"{API}/projects").mock(return_value=httpx.Response(200, json=[]))
    github = router.get("https://gh.test/api/v3/search/repositories").mock(
        return_value=httpx.Response(200, json={"total_count": 0, "items": []})
    )
    only_gitlab = gateway_factory(
        {"GITLAB_HOST": "https://gl.test", "GL_TOKEN": "test-token-not-real-gl"}
    )
    await only_gitlab.github_search_repositories([{"keywordsToSearch": ["x"]}])
    assert gitlab.call_count == 1
    assert gitlab.calls.last.request.headers["private-token"] == "test-token-not-real-gl"

    both = gateway_factory(
        {"GITLAB_HOST": "https://gl.test", "GITHUB_API_URL": "https://gh.test/api/v3"}
    )
    await both.github_search_repositories([{"keywordsToSearch": ["x"]}])
    assert github.call_count == 1 and gitlab.call_count == 1
    await both.github_search_repositories([gl(keywordsToSearch=["x"])])
    assert gitlab.call_count == 2


async def test_relative_root_and_no_token(gateway_factory: Any, router: respx.MockRouter) -> None:
    route = router.get(f"https://gl.test/gitlab/api/v4/projects/{PROJECT}/repository/tree").mock(
        return_value=httpx.Response(200, json=[{"path": "a.py", "type": "blob"}])
    )
    gateway = gateway_factory({"GITLAB_HOST": "https://gl.test/gitlab/"})
    [row] = rows(await gateway.github_view_repo_structure([gl(branch="main", **OWNER)]))
    assert row["data"]["structure"] == {"a.py": {"type": "file"}}
    assert "private-token" not in route.calls.last.request.headers


async def test_gitlab_com_is_the_default_host(
    gateway_factory: Any, router: respx.MockRouter
) -> None:
    route = router.get(f"https://gitlab.com/api/v4/projects/{PROJECT}/repository/tree").mock(
        return_value=httpx.Response(200, json=[])
    )
    gateway = gateway_factory({})
    [row] = rows(await gateway.github_view_repo_structure([gl(branch="main", **OWNER)]))
    assert route.call_count == 1 and row["status"] == "empty"


# hygiene


async def test_errors_never_carry_the_token(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get(f"{API}/projects/{PROJECT}/search").respond(
        401, json={"message": "token test-token-not-real-gl is revoked"}
    )
    text = (
        await gateway.github_search_code([gl(keywordsToSearch=["a"], **OWNER)])
    ).to_compact_json()
    assert "test-token-not-real-gl" not in text and "[REDACTED]" in text


def test_recordings_name_only_placeholder_hosts_and_no_token() -> None:
    for path in (Path(__file__).parent / "recordings").glob("*.json"):
        text = path.read_text(encoding="utf-8")
        hosts = set(re.findall(r"https?://([^/\s\"]+)", text))
        hosts |= set(re.findall(r"@([\w-]+(?:\.[\w-]+)+)", text))
        assert hosts <= {"gl.test", "example.test"}, (path.name, hosts)
        assert not re.search(r"glpat-|gh[pousr]_|private-token", text, re.IGNORECASE), path.name


async def test_diff_pages_are_followed_and_unread_pages_are_said(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get(f"{API}/projects/{PROJECT}/merge_requests/5").mock(
        return_value=httpx.Response(
            200,
            json={
                "iid": 5,
                "project_id": 6,
                "title": "big",
                "state": "opened",
                "author": {"username": "alice"},
                "references": {"full": "group/sub/project!5"},
                "web_url": "https://gl.test/group/sub/project/-/merge_requests/5",
            },
        )
    )

    def diff_page(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        diffs = [
            {"old_path": f"f{n}", "new_path": f"f{n}", "diff": "+x\n"}
            for n in range((page - 1) * 50, page * 50)
        ]
        return httpx.Response(200, json=diffs, headers={"x-next-page": str(page + 1)})

    route = router.get(f"{API}/projects/6/merge_requests/5/diffs").mock(side_effect=diff_page)
    full, partial = rows(
        await gateway.github_search_pull_requests(
            [
                gl(prNumber=5, type="fullContent", **OWNER),
                gl(
                    prNumber=5,
                    type="partialContent",
                    partialContentMetadata=[{"file": "f420"}],
                    **OWNER,
                ),
            ]
        )
    )
    assert len(full["data"]["pullRequests"][0]["files"]) == 150
    assert any("#5: more than 150 changed files" in h for h in full["hints"])
    [found] = partial["data"]["pullRequests"][0]["files"]
    assert found["filename"] == "f420"
    # partialContent reads up to its page limit; the endless listing is said, never hidden.
    assert any("more than" in h for h in partial["hints"])
    assert route.call_count == 60


async def test_several_keywords_are_searched_as_one_phrase_and_said(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    route = router.get(f"{API}/projects/{PROJECT}/search").mock(
        return_value=httpx.Response(200, json=[])
    )
    [row] = rows(await gateway.github_search_code([gl(keywordsToSearch=["add", "Class"], **OWNER)]))
    assert route.calls.last.request.url.params["search"] == "add Class"
    assert any('"add Class" as one phrase' in h for h in row["hints"])


# partial answers and shared failures


async def test_a_failing_part_of_a_merge_request_is_left_out_and_said(
    gateway: octo.Gateway, recorded: Recorded, router: respx.MockRouter
) -> None:
    notes = router.get(f"{API}/projects/6/merge_requests/1/notes").mock(
        return_value=httpx.Response(404, json={"message": "404 Not found"})
    )
    recorded("merge_requests")
    [row] = rows(
        await gateway.github_search_pull_requests(
            [gl(prNumber=1, withComments=True, withCommits=True, **OWNER)]
        )
    )
    assert row["status"] == "success" and row["partial"] is True
    [pull] = row["data"]["pullRequests"]
    assert pull["commits"] and "comments" not in pull
    assert any("#1 comments: NOT_FOUND" in h for h in row["hints"])
    assert any('provider="gitlab"' in h for h in row["hints"])
    assert notes.call_count == 1


async def test_identical_failing_queries_keep_their_hints_once(
    gateway: octo.Gateway, recorded: Recorded
) -> None:
    routes = recorded("file")
    query = gl(path="missing.txt", **OWNER)
    first, second = rows(await gateway.github_get_file_content([query, query]))
    assert first["error"]["code"] == second["error"]["code"] == "NOT_FOUND"
    assert first["hints"] == second["hints"]
    assert len(set(second["hints"])) == len(second["hints"])
    assert sum(route.call_count for url, route in routes.items() if "missing" in url) == 1
