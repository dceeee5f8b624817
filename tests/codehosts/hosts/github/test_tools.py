"""The five GitHub tools against recorded API answers: shapes, paging, validation, errors."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest
import respx

import octo
from octo.codehosts.hosts.github.query import code_search_terms
from octo.codehosts.models.code import SearchCodeQuery
from octo.core.errors import CallError
from tests.codehosts.hosts.github.conftest import pull_seven

CONTEXT = {"mainResearchGoal": "m", "researchGoal": "r", "reasoning": "why"}


def rows(response: octo.BulkResponse[Any]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = response.to_wire()["results"]
    return result


def file_body(text: str, sha: str = "f" * 40, **extra: Any) -> dict[str, Any]:
    encoded = base64.b64encode(text.encode()).decode()
    wrapped = "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60))
    return {
        "type": "file",
        "encoding": "base64",
        "size": len(text.encode()),
        "sha": sha,
        "content": wrapped,
        **extra,
    }


# githubSearchCode


async def test_search_code_returns_paths_fragments_and_a_read_hint(
    gateway: octo.Gateway, recorded: Any, token: str
) -> None:
    routes = recorded("code_search")
    response = await gateway.github_search_code(
        [
            {
                **CONTEXT,
                "keywordsToSearch": ["addClass"],
                "owner": "jquery",
                "repo": "jquery",
                "extension": "js",
                "limit": 2,
            }
        ]
    )
    [row] = rows(response)
    assert row["status"] == "success" and row["researchGoal"] == "r"
    data = row["data"]
    assert [hit["file"] for hit in data["results"]] == [
        "src/attributes/classes.js",
        "test/unit/attributes/classes.js",
    ]
    first = data["results"][0]
    assert first["repository"] == "jquery/jquery" and first["matches"] == 2
    assert first["url"].startswith("https://gh.test/jquery/jquery/blob/")
    fragment = first["text_matches"][0]
    start, end = fragment["matches"][0]["indices"]
    assert fragment["fragment"][start:end] == "addClass"
    # Path matches are noise for a content search: only content fragments are kept.
    assert len(data["results"][1]["text_matches"]) == 1
    assert data["totalCount"] == 7 and data["pagination"] == {"currentPage": 1, "hasMore": True}
    assert any('"matchString":"addClass"' in hint for hint in row["hints"])
    assert any("page=2" in hint for hint in row["hints"])
    sent = routes["/search/code"].calls.last.request
    assert sent.url.params["q"] == "addClass repo:jquery/jquery extension:js"
    assert sent.headers["accept"] == "application/vnd.github.text-match+json"
    assert sent.headers["authorization"] == f"Bearer {token}"
    assert sent.headers["x-github-api-version"] == "2022-11-28"


@pytest.mark.parametrize(
    ("fields", "q", "note"),
    [
        ({"path": "src/*.go"}, "x extension:go path:src", "globs are not supported in path"),
        ({"path": "src/Foo.cs"}, "x filename:Foo.cs path:src", "filename:Foo.cs"),
        ({"filename": "*.md"}, "x extension:md", "extension:md"),
        ({"extension": ".ts", "match": "path"}, "x extension:ts in:path", None),
        ({"owner": "octo"}, "x user:octo", None),
    ],
)
def test_code_search_syntax_is_rewritten_and_explained(
    fields: dict[str, str], q: str, note: str | None
) -> None:
    built, notes = code_search_terms(
        SearchCodeQuery.model_validate({"keywordsToSearch": ["x"], **fields})
    )
    assert built == q
    assert any(note in n for n in notes) if note else notes == []


def test_code_search_keywords_lose_regex_and_symbol_syntax() -> None:
    built, notes = code_search_terms(
        SearchCodeQuery(
            keywordsToSearch=["/use[A-Z]+/", "symbol:render", "two words"],
            extension="ts",
            filename="a.ts",
            path="src",
        )
    )
    assert built.startswith('use[A-Z]+ render "two words" ')
    assert len(notes) == 3 and "at most" not in notes[0]
    assert any("more than 2" in n for n in notes)


async def test_search_code_without_a_token_says_how_to_set_one(
    gateway_factory: Any, env: Any, router: respx.MockRouter
) -> None:
    settings = env()
    del settings["GITHUB_TOKEN"]
    gateway = gateway_factory(settings)
    [row] = rows(await gateway.github_search_code([{"keywordsToSearch": ["x"]}]))
    assert row["error"]["code"] == "AUTHENTICATION_ERROR"
    assert any("GITHUB_TOKEN" in hint for hint in row["hints"])
    assert router.calls.call_count == 0


async def test_search_code_rejects_bad_queries_per_query(gateway: octo.Gateway) -> None:
    response = await gateway.github_search_code(
        [
            {"keywordsToSearch": []},
            {"keywordsToSearch": ["a"] * 6},
            {"keywordsToSearch": ["a"], "repo": "r"},
        ]
    )
    assert [row["error"]["code"] for row in rows(response)] == ["VALIDATION_ERROR"] * 3
    assert "repo needs owner" in rows(response)[2]["error"]["message"]


async def test_github_tools_take_at_most_three_queries(gateway: octo.Gateway) -> None:
    with pytest.raises(CallError, match="1-3 queries"):
        await gateway.github_search_code([{"keywordsToSearch": ["a"]}] * 4)


# githubGetFileContent

README = {"owner": "octokit", "repo": "octokit.rb", "path": "README.md"}


async def test_file_content_is_decoded_and_secrets_redacted(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("file_content")
    [row] = rows(await gateway.github_get_file_content([{**README, "fullContent": True}]))
    data = row["data"]
    assert data["content"].startswith("# Octokit\n\nRuby toolkit")
    assert 'api_key = "[REDACTED:secret]"' in data["content"]
    assert data["sha"] == "3d21ec53a331a6f037a91c368710b99387d012c1"
    assert data["encoding"] == "utf-8" and data["startLine"] == 1
    assert data["endLine"] == data["totalLines"] == 37
    assert "pagination" not in data


async def test_file_content_line_range_match_windows_and_char_pages(
    gateway: octo.Gateway, recorded: Any
) -> None:
    routes = recorded("file_content")
    response = await gateway.github_get_file_content(
        [
            {**README, "startLine": 3, "endLine": 5},
            {**README, "matchString": "auto_paginate", "matchStringContextLines": 1},
            {**README, "charOffset": 11, "charLength": 50},
        ]
    )
    lines, matched, paged = (row["data"] for row in rows(response))
    assert lines["content"] == "Ruby toolkit for the GitHub API.\n\n## Quick start\n"
    assert (lines["startLine"], lines["endLine"]) == (3, 5)
    assert matched["matchCount"] == 2
    assert matched["content"].startswith("--- lines 29-33 ---\n")
    assert "client.auto_paginate = true" in matched["content"]
    assert paged["content"] == "Ruby toolkit for the GitHub API.\n\n## Quick start\n\n"
    # Pages are cut from the redacted file: its api_key value became a marker.
    redacted_size = paged["size"] - len("sk_config_value_123456") + len("[REDACTED:secret]")
    assert paged["pagination"] == {
        "charOffset": 11,
        "charLength": 50,
        "totalChars": redacted_size,
        "hasMore": True,
        "nextCharOffset": 61,
    }
    # One upstream request: the file is cached once and every slice is served from it.
    assert routes["/repos/octokit/octokit.rb/contents/README.md"].call_count == 1


async def test_file_content_no_match_is_empty_with_a_hint(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("file_content")
    [row] = rows(await gateway.github_get_file_content([{**README, "matchString": "zebra"}]))
    assert row["status"] == "empty" and row["data"]["matchCount"] == 0
    assert any("does not occur" in hint for hint in row["hints"])


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"fullContent": True, "matchString": "x"}, "mutually exclusive"),
        ({"startLine": 3}, "must be used together"),
        ({"startLine": 9, "endLine": 3}, "startLine (9) must be <= endLine (3)"),
        ({"charLength": 10}, "charLength"),
        ({"matchString": "x", "matchStringContextLines": 51}, "matchStringContextLines"),
    ],
)
async def test_file_content_validation(
    gateway: octo.Gateway, router: respx.MockRouter, fields: dict[str, Any], message: str
) -> None:
    [row] = rows(await gateway.github_get_file_content([{**README, **fields}]))
    assert row["error"]["code"] == "VALIDATION_ERROR"
    assert message in row["error"]["message"]
    assert router.calls.call_count == 0


async def test_file_over_300_kb_needs_paging(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    text = "0123456789abcdef\n" * 20_000
    router.get("https://gh.test/api/v3/repos/o/r/contents/big.txt").respond(json=file_body(text))
    response = await gateway.github_get_file_content(
        [
            {"owner": "o", "repo": "r", "path": "big.txt"},
            {"owner": "o", "repo": "r", "path": "big.txt", "charOffset": 0, "charLength": 170},
        ]
    )
    refused, paged = rows(response)
    assert refused["error"]["code"] == "FILE_TOO_LARGE"
    assert "340000 bytes" in refused["error"]["message"]
    assert refused["hints"][0] == (
        "Read it in pages: charOffset=0, charLength=50000 (the file has 340000 characters)."
    )
    assert paged["data"]["content"] == "0123456789abcdef\n" * 10
    assert paged["data"]["pagination"]["nextCharOffset"] == 170


async def test_file_content_is_cut_to_the_token_budget(
    gateway_factory: Any, env: Any, router: respx.MockRouter
) -> None:
    gateway = gateway_factory(env(OCTO_MAX_TOKENS="10"))
    router.get("https://gh.test/api/v3/repos/o/r/contents/a.txt").respond(
        json=file_body("".join(f"line {n}\n" for n in range(1, 40)))
    )
    [row] = rows(
        await gateway.github_get_file_content([{"owner": "o", "repo": "r", "path": "a.txt"}])
    )
    data = row["data"]
    assert data["content"] == "".join(f"line {n}\n" for n in range(1, 6))
    assert (data["startLine"], data["endLine"]) == (1, 5)
    assert data["pagination"]["nextCharOffset"] == len(data["content"])
    assert any(f"charOffset={len(data['content'])}" in hint for hint in row["hints"])


@pytest.mark.slow
async def test_files_over_1_mb_come_from_the_blob_api(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get("https://gh.test/api/v3/repos/o/r/contents/huge.txt", params={"ref": "dev"}).respond(
        json={"type": "file", "encoding": "none", "size": 2_000_000, "sha": "b" * 40, "content": ""}
    )
    text = "first\nsecond\n" + "x" * (2_000_000 - 13)
    blob = router.get(f"https://gh.test/api/v3/repos/o/r/git/blobs/{'b' * 40}").respond(
        json=file_body(text, sha="b" * 40)
    )
    [row] = rows(
        await gateway.github_get_file_content(
            [
                {
                    "owner": "o",
                    "repo": "r",
                    "path": "huge.txt",
                    "branch": "dev",
                    "startLine": 2,
                    "endLine": 2,
                }
            ]
        )
    )
    assert row["data"]["content"] == "second\n" and blob.call_count == 1


async def test_directories_and_binary_files_are_refused_with_hints(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get("https://gh.test/api/v3/repos/o/r/contents/src").respond(json=[{"type": "dir"}])
    router.get("https://gh.test/api/v3/repos/o/r/contents/logo.png").respond(
        json={**file_body("x"), "content": base64.b64encode(b"\x89PNG\xff\x00").decode()}
    )
    directory, binary = rows(
        await gateway.github_get_file_content(
            [
                {"owner": "o", "repo": "r", "path": "src"},
                {"owner": "o", "repo": "r", "path": "logo.png"},
            ]
        )
    )
    assert directory["error"]["code"] == "INVALID_QUERY"
    assert "githubViewRepoStructure" in directory["hints"][0]
    assert "binary" in binary["error"]["message"]


# githubViewRepoStructure

TREE = {"owner": "octocat", "repo": "Hello-World", "branch": "main"}


async def test_repo_structure_depth_path_and_summary(gateway: octo.Gateway, recorded: Any) -> None:
    routes = recorded("tree")
    root, deep, sub = rows(
        await gateway.github_view_repo_structure(
            [TREE, {**TREE, "depth": 2}, {**TREE, "path": "src", "depth": 2}]
        )
    )
    assert list(root["data"]["structure"]) == ["README.md", "exec_file", "file.rb", "src", "subdir"]
    # Every entry carries its git object id.
    assert root["data"]["structure"]["src"] == {
        "type": "dir",
        "sha": "03b4fc6d56897b048c772eb4087f854f46256132",
    }
    assert root["data"]["structure"]["file.rb"] == {
        "type": "file",
        "size": 30,
        "sha": "02b4fc6d56897b048c772eb4087f854f46256132",
    }
    assert root["data"]["summary"] == {"totalFiles": 3, "totalFolders": 2, "truncated": False}
    assert any('path="src", depth=2' in hint for hint in root["hints"])
    assert (
        "src/lib" in deep["data"]["structure"]
        and "src/lib/util.rb" not in deep["data"]["structure"]
    )
    assert list(sub["data"]["structure"]) == ["app.rb", "lib", "lib/deep", "lib/util.rb"]
    assert sub["data"]["path"] == "src"
    assert routes["/repos/octocat/Hello-World/git/trees/main"].call_count == 1


async def test_repo_structure_pages_and_missing_paths(gateway: octo.Gateway, recorded: Any) -> None:
    recorded("tree")
    first, last, missing = rows(
        await gateway.github_view_repo_structure(
            [
                {**TREE, "entriesPerPage": 2},
                {**TREE, "entriesPerPage": 2, "entryPageNumber": 3},
                {**TREE, "path": "nope"},
            ]
        )
    )
    (past,) = rows(
        await gateway.github_view_repo_structure(
            [{**TREE, "entriesPerPage": 2, "entryPageNumber": 9}]
        )
    )
    assert past["status"] == "empty"
    assert past["hints"][0] == (
        "Page 9 is past the last page (3): githubViewRepoStructure "
        + json.dumps({**TREE, "entriesPerPage": 2, "entryPageNumber": 3}, separators=(",", ":"))
    )
    assert list(first["data"]["structure"]) == ["README.md", "exec_file"]
    assert first["data"]["pagination"] == {"currentPage": 1, "totalPages": 3, "hasMore": True}
    assert first["hints"][0] == (
        "Next page: githubViewRepoStructure "
        + json.dumps({**TREE, "entriesPerPage": 2, "entryPageNumber": 2}, separators=(",", ":"))
    )
    assert list(last["data"]["structure"]) == ["subdir"]
    assert last["data"]["pagination"]["hasMore"] is False
    assert missing["error"]["code"] == "NOT_FOUND"


async def test_repo_structure_says_when_github_truncated_the_tree(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get("https://gh.test/api/v3/repos/o/r/git/trees/feature%2Fx").respond(
        json={"sha": "s", "tree": [{"path": "a", "type": "blob", "size": 1}], "truncated": True}
    )
    [row] = rows(
        await gateway.github_view_repo_structure(
            [{"owner": "o", "repo": "r", "branch": "feature/x"}]
        )
    )
    assert row["data"]["summary"]["truncated"] is True
    assert any("truncated" in hint for hint in row["hints"])


# githubSearchRepositories


async def test_search_repositories(gateway: octo.Gateway, recorded: Any) -> None:
    routes = recorded("repo_search")
    [row] = rows(
        await gateway.github_search_repositories(
            [{"keywordsToSearch": ["tetris"], "stars": ">0", "sort": "stars", "limit": 1}]
        )
    )
    [repo] = row["data"]["repositories"]
    assert repo == {
        "name": "Tetris",
        "full_name": "dtrupenn/Tetris",
        "description": "A C implementation of Tetris using Pennsim through LC4",
        "stars": 1,
        "forks": 0,
        "language": "Assembly",
        "topics": ["tetris", "assembly"],
        "default_branch": "master",
        "updated_at": "2012-01-01T00:37:02Z",
        "archived": False,
        "html_url": "https://gh.test/dtrupenn/Tetris",
    }
    assert row["data"]["pagination"] == {"currentPage": 1, "hasMore": True}
    assert any('"branch":"master"' in hint for hint in row["hints"])
    params = routes["/search/repositories"].calls.last.request.url.params
    assert params["q"] == "tetris stars:>0" and params["sort"] == "stars"


async def test_search_repositories_query_terms(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    route = router.get("https://gh.test/api/v3/search/repositories").respond(
        json={"total_count": 0, "items": []}
    )
    [row, invalid] = rows(
        await gateway.github_search_repositories(
            [
                {
                    "topicsToSearch": ["cli", "typescript"],
                    "owner": "vercel",
                    "created": ">2020-01-01",
                    "updated": ">2024-01-01",
                    "size": "<1000",
                    "match": ["name", "readme"],
                    "sort": "best-match",
                },
                {"stars": ">10"},
            ]
        )
    )
    assert row["status"] == "empty"
    params = route.calls.last.request.url.params
    assert params["q"] == (
        "topic:cli topic:typescript user:vercel size:<1000 created:>2020-01-01 "
        "pushed:>2024-01-01 in:name,readme"
    )
    assert "sort" not in params
    assert invalid["error"]["code"] == "VALIDATION_ERROR"


# githubSearchPullRequests

PULLS = {"owner": "octocat", "repo": "Hello-World"}


async def test_search_pull_requests_metadata(gateway: octo.Gateway, recorded: Any) -> None:
    routes = recorded("pr_search")
    [row] = rows(
        await gateway.github_search_pull_requests(
            [{**PULLS, "state": "closed", "merged": True, "label": "bug"}]
        )
    )
    pulls = row["data"]["pullRequests"]
    assert [p["number"] for p in pulls] == [1347, 1296]
    first = pulls[0]
    assert first["merged"] is True and first["state"] == "closed"
    assert first["repository"] == "octocat/Hello-World" and first["labels"] == ["bug"]
    assert first["author"] == "Nick3C" and "files" not in first
    assert row["data"]["totalCount"] == 2
    assert row["data"]["pagination"] == {"currentPage": 1, "hasMore": False}
    q = routes["/search/issues"].calls.last.request.url.params["q"]
    assert q == "is:pr repo:octocat/Hello-World state:closed is:merged label:bug"


async def test_pull_request_by_number_with_diffs_comments_and_commits(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("pr_detail")
    [row] = rows(
        await gateway.github_search_pull_requests(
            [
                {
                    **PULLS,
                    "prNumber": 1347,
                    "type": "fullContent",
                    "withComments": True,
                    "withCommits": True,
                }
            ]
        )
    )
    [pull] = row["data"]["pullRequests"]
    assert (pull["head"], pull["base"], pull["merged"]) == ("new-topic", "master", True)
    assert [f["filename"] for f in pull["files"]] == [
        "file1.txt",
        "lib/new_name.rb",
        "images/logo.png",
    ]
    assert pull["files"][0]["patch"].startswith("@@ -1,3 +1,5 @@")
    assert pull["files"][1]["previous_filename"] == "lib/old_name.rb"
    assert "patch" not in pull["files"][2]
    assert pull["comments"] == [
        {"author": "octocat", "body": "Me too", "created_at": "2011-04-14T16:00:49Z"}
    ]
    assert pull["commits"][0]["message"] == "Fix all the bugs"
    assert pull["commits"][0]["author"] == "octocat"


async def test_partial_content_and_the_diff_budget(
    gateway_factory: Any, env: Any, recorded: Any
) -> None:
    recorded("pr_detail")
    small = gateway_factory(env(OCTO_MAX_TOKENS="308"))
    partial, full = rows(
        await small.github_search_pull_requests(
            [
                {
                    **PULLS,
                    "prNumber": 1347,
                    "type": "partialContent",
                    "partialContentMetadata": [{"file": "lib/new_name.rb"}],
                },
                {**PULLS, "prNumber": 1347, "type": "fullContent"},
            ]
        )
    )
    assert [f["filename"] for f in partial["data"]["pullRequests"][0]["files"]] == [
        "lib/new_name.rb"
    ]
    files = full["data"]["pullRequests"][0]["files"]
    # The diffs get what the rest of the answer leaves of the budget: the first is cut, the
    # second left out, and the whole answer fits.
    assert files[0]["patchTruncated"] is True and len(files[0]["patch"]) > 0
    assert full["data"]["tokens"]["estimatedTokens"] <= 308
    assert files[1] == {**files[1], "patchTruncated": True} and "patch" not in files[1]
    assert any("partialContent" in hint for hint in full["hints"])


async def test_pull_request_queries_are_validated(gateway: octo.Gateway) -> None:
    response = await gateway.github_search_pull_requests(
        [{"prNumber": 3}, {**PULLS, "type": "partialContent"}, {**PULLS, "limit": 11}]
    )
    assert [row["error"]["code"] for row in rows(response)] == ["VALIDATION_ERROR"] * 3


# errors and bulk isolation


async def test_status_codes_map_to_error_codes_with_githubs_message(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("errors")
    missing, unauthorized = rows(
        await gateway.github_get_file_content(
            [
                {"owner": "octocat", "repo": "missing", "path": "README.md"},
                {"owner": "octocat", "repo": "private", "path": "README.md"},
            ]
        )
    )
    assert missing["error"] == {"code": "NOT_FOUND", "message": "GitHub answered 404: Not Found"}
    assert any("case-sensitive" in hint for hint in missing["hints"])
    assert unauthorized["error"]["code"] == "AUTHENTICATION_ERROR"
    assert any("gh auth login" in hint for hint in unauthorized["hints"])
    [invalid] = rows(
        await gateway.github_search_code(
            [{"keywordsToSearch": ["foo"], "owner": "octocat", "repo": "invisible", "limit": 30}]
        )
    )
    assert invalid["error"]["code"] == "INVALID_QUERY"
    assert invalid["error"]["message"].startswith(
        "GitHub answered 422: Validation Failed (The listed"
    )


async def test_a_bulk_where_one_query_fails_and_two_succeed(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("file_content")
    recorded("errors")
    response = await gateway.github_get_file_content(
        [
            {**README, "startLine": 1, "endLine": 1},
            {"owner": "octocat", "repo": "missing", "path": "README.md"},
            {**README, "matchString": "gem install"},
        ]
    )
    assert [row["status"] for row in rows(response)] == ["success", "error", "success"]
    assert rows(response)[0]["data"]["content"] == "# Octokit\n"


async def test_ghes_base_url_is_used(
    gateway_factory: Any, env: Any, router: respx.MockRouter
) -> None:
    gateway = gateway_factory(env(GITHUB_API_URL="https://ghe.test/api/v3/"))
    route = router.get("https://ghe.test/api/v3/search/repositories").mock(
        return_value=httpx.Response(200, json={"total_count": 0, "items": []})
    )
    await gateway.github_search_repositories([{"keywordsToSearch": ["x"]}])
    assert route.call_count == 1


def changed_file(n: int, patch: str = "@@ -1 +1 @@\n-a\n+b") -> dict[str, Any]:
    return {
        "filename": f"f{n}.txt",
        "status": "modified",
        "additions": 1,
        "deletions": 1,
        "patch": patch,
    }


def paged_files(router: respx.MockRouter, pages: int) -> respx.Route:
    """Pull request 7 whose ``files`` come in ``pages`` pages of 100, chained by ``link``."""
    base = "https://gh.test/api/v3/repos/o/r/pulls/7/files"

    def answer(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        headers = {}
        if page < pages:
            headers["link"] = f'<{base}?per_page=100&page={page + 1}>; rel="next"'
        files = [changed_file(n) for n in range((page - 1) * 100, page * 100)]
        return httpx.Response(200, json=files, headers=headers)

    pull_seven(router)
    return router.get(base).mock(side_effect=answer)


async def full_and_partial(
    gateway: octo.Gateway, file: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Pull request 7 read with type fullContent, and with partialContent for ``file``."""
    full, partial = rows(
        await gateway.github_search_pull_requests(
            [
                {"owner": "o", "repo": "r", "prNumber": 7, "type": "fullContent"},
                {
                    "owner": "o",
                    "repo": "r",
                    "prNumber": 7,
                    "type": "partialContent",
                    "partialContentMetadata": [{"file": file}],
                },
            ]
        )
    )
    return full, partial


@pytest.mark.slow
async def test_changed_files_are_read_page_by_page_and_unread_pages_are_said(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    route = paged_files(router, pages=5)
    full, partial = await full_and_partial(gateway, "f450.txt")
    # fullContent reads three pages (300 files) and says that more exist; those the token
    # budget has no room for are in a handle (before: all 300 shown, over the budget).
    shown = len(full["data"]["pullRequests"][0]["files"])
    assert (
        full["data"]["tokens"]["estimatedTokens"] <= full["data"]["tokens"]["maxTokensPerRequest"]
    )
    assert any(f"left the last {300 - shown} files" in h for h in full["hints"])
    assert any("#7: more than 300 changed files" in h for h in full["hints"])
    # partialContent walks every page to find the file it names.
    [found] = partial["data"]["pullRequests"][0]["files"]
    assert found["filename"] == "f450.txt" and found["patch"]
    assert not any("more than" in h for h in partial["hints"])
    assert route.call_count == 5  # pages 1-3 are shared through the cache


async def test_a_long_diff_is_cut_per_file_and_partial_content_reads_more_of_it(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    long_patch = "@@ -1,900 +1,900 @@\n" + "+added line\n" * 900
    router.get("https://gh.test/api/v3/repos/o/r/pulls/7/files").respond(
        json=[changed_file(1, long_patch), changed_file(2)]
    )
    pull_seven(router)
    full, partial = await full_and_partial(gateway, "f1.txt")
    cut, small = full["data"]["pullRequests"][0]["files"]
    assert len(cut["patch"]) == 8000 and cut["patchTruncated"] is True
    assert small["patch"] == "@@ -1 +1 @@\n-a\n+b" and "patchTruncated" not in small
    assert any("cut at 8000 characters (#7 f1.txt)" in h for h in full["hints"])
    [whole] = partial["data"]["pullRequests"][0]["files"]
    assert whole["patch"] == long_patch and "patchTruncated" not in whole


async def test_more_comments_than_one_page_are_said(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    paged_files(router, pages=1)
    comments = "https://gh.test/api/v3/repos/o/r/issues/7/comments"
    router.get(comments).respond(
        json=[{"user": {"login": "a"}, "body": "hi", "created_at": ""}] * 30,
        headers={"link": f'<{comments}?per_page=30&page=2>; rel="next"'},
    )
    [row] = rows(
        await gateway.github_search_pull_requests(
            [{"owner": "o", "repo": "r", "prNumber": 7, "withComments": True}]
        )
    )
    assert len(row["data"]["pullRequests"][0]["comments"]) == 30
    assert any("#7: more than 30 comments" in h for h in row["hints"])


def test_every_pull_request_filter_reaches_the_search_query() -> None:
    from octo.codehosts.hosts.github.query import pull_request_terms
    from octo.codehosts.models.history import SearchPullRequestsQuery

    query = SearchPullRequestsQuery(
        owner="octo",
        query="fix cache",
        state="open",
        merged=False,
        draft=True,
        author="alice",
        assignee="bob",
        label=["needs review", "bug"],
        created="2024-01-01..2024-12-31",
        updated=">2024-06-01",
    )
    assert pull_request_terms(query) == (
        "is:pr fix cache user:octo state:open is:unmerged draft:true author:alice "
        'assignee:bob label:"needs review" label:bug created:2024-01-01..2024-12-31 '
        "updated:>2024-06-01"
    )


async def test_structure_and_repository_search_ranges_are_validated(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    structure = await gateway.github_view_repo_structure(
        [{**TREE, "depth": 3}, {**TREE, "entriesPerPage": 201}, {**TREE, "entryPageNumber": 0}]
    )
    repos = await gateway.github_search_repositories(
        [{"keywordsToSearch": ["x"], "limit": 101}, {"keywordsToSearch": ["x"], "page": 11}]
    )
    codes = [row["error"]["code"] for row in rows(structure) + rows(repos)]
    assert codes == ["VALIDATION_ERROR"] * 5 and router.calls.call_count == 0
