"""The tokens block and content handles of the code-host answers that carry text: a file, and
pull-request diffs (GitHub answers mocked with respx)."""

from __future__ import annotations

import base64
import json
from typing import Any

import respx

import octo
from tests.codehosts.hosts.github.conftest import pull_seven


def one(response: octo.BulkResponse[Any]) -> dict[str, Any]:
    row: dict[str, Any] = response.to_wire()["results"][0]
    return row


def file_body(text: str) -> dict[str, Any]:
    encoded = base64.b64encode(text.encode()).decode()
    return {
        "type": "file",
        "encoding": "base64",
        "size": len(text),
        "sha": "f" * 40,
        "content": encoded,
    }


async def read_whole(gateway: octo.Gateway, handle: str) -> str:
    first = one(await gateway.call("getCachedContent", [{"handle": handle}]))["data"]
    parts = [first["content"]]
    for page in range(2, first["totalPages"] + 1):
        parts.append(
            one(await gateway.call("getCachedContent", [{"handle": handle, "page": page}]))["data"][
                "content"
            ]
        )
    return "".join(parts)


async def read_file(
    gateway: octo.Gateway, router: respx.MockRouter, path: str, text: str
) -> dict[str, Any]:
    """The data of githubGetFileContent on ``path`` of o/r, which holds ``text``."""
    router.get(f"https://gh.test/api/v3/repos/o/r/contents/{path}").respond(json=file_body(text))
    query = {"owner": "o", "repo": "r", "path": path}
    data: dict[str, Any] = one(await gateway.github_get_file_content([query]))["data"]
    return data


async def test_a_file_cut_to_the_budget_says_so_and_hands_out_the_rest(
    gateway_factory: Any, env: Any, router: respx.MockRouter
) -> None:
    gateway = gateway_factory(env(OCTO_MAX_TOKENS="10"))
    text = "".join(f"line {n}\n" for n in range(1, 40))
    data = await read_file(gateway, router, "a.txt", text)
    tokens = data["tokens"]
    assert tokens["truncated"] is True and tokens["truncatedAtLine"] == 5
    assert tokens["requiresPagination"] is True
    assert (
        tokens["paginationHint"]
        == f"More content: continue with charOffset={len(data['content'])}, charLength=50"
    )
    assert len(data["content"]) <= 10 * 4
    assert await read_whole(gateway, data["contentHandle"]) == text


async def test_a_file_cut_to_the_budget_fits_it_as_a_whole(
    gateway_factory: Any, env: Any, router: respx.MockRouter
) -> None:
    # Quotes and tabs take two characters each as sent: the cut counts them, and the rest
    # of the answer (path, sha, pagination, the tokens block) too.
    gateway = gateway_factory(env(OCTO_MAX_TOKENS="1000"))
    text = "".join(f'\tsay("line {n}")\n' for n in range(1, 400))
    data = await read_file(gateway, router, "q.py", text)
    assert data["tokens"]["truncated"] is True
    assert data["tokens"]["estimatedTokens"] <= 1000
    assert data["tokens"]["chars"] == len(json.dumps(data, separators=(",", ":")))
    assert await read_whole(gateway, data["contentHandle"]) == text


async def test_a_whole_file_has_a_tokens_block_and_no_handle(
    gateway: octo.Gateway, router: respx.MockRouter
) -> None:
    router.get("https://gh.test/api/v3/repos/o/r/contents/b.txt").respond(json=file_body("short\n"))
    data = one(
        await gateway.github_get_file_content([{"owner": "o", "repo": "r", "path": "b.txt"}])
    )["data"]
    tokens = data.pop("tokens")
    whole = len(json.dumps({**data, "tokens": tokens}, separators=(",", ":")))
    assert tokens["chars"] == whole and tokens["estimatedTokens"] == -(-whole // 4)
    assert (tokens["truncated"], tokens["requiresPagination"]) == (False, False)
    assert "contentHandle" not in data


async def test_cut_diffs_hand_out_the_whole_diff(
    gateway_factory: Any, env: Any, router: respx.MockRouter
) -> None:
    gateway = gateway_factory(env(OCTO_MAX_TOKENS="280"))
    long_patch = "@@ -1,30 +1,30 @@\n" + "+added line\n" * 30
    second = "@@ -1 +1 @@\n-a\n+b"
    router.get("https://gh.test/api/v3/repos/o/r/pulls/7/files").respond(
        json=[
            {
                "filename": "f1.txt",
                "status": "modified",
                "additions": 30,
                "deletions": 0,
                "patch": long_patch,
            },
            {
                "filename": "f2.txt",
                "status": "modified",
                "additions": 1,
                "deletions": 1,
                "patch": second,
            },
        ]
    )
    pull_seven(router)
    row = one(
        await gateway.github_search_pull_requests(
            [{"owner": "o", "repo": "r", "prNumber": 7, "type": "fullContent"}]
        )
    )
    cut, left_out = row["data"]["pullRequests"][0]["files"]
    assert 0 < len(cut["patch"]) < len(long_patch) and cut["patchTruncated"] is True
    assert "patch" not in left_out
    assert await read_whole(gateway, cut["contentHandle"]) == long_patch
    assert await read_whole(gateway, left_out["contentHandle"]) == second
    assert row["data"]["tokens"]["truncated"] is True
    assert row["data"]["tokens"]["estimatedTokens"] <= 280
    assert any("getCachedContent" in hint for hint in row["hints"])
