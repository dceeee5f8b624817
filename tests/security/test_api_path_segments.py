"""No value of a query leaves the API prefix (issue 31): an owner of ``../../..`` once sent
GitHub Enterprise's token from ``/api/v3`` to ``/admin/tarball/...``. Owner, repo, path and
ref are checked and each path segment quoted, GitHub and GitLab alike, in every remote tool:
bad input is a VALIDATION_ERROR and every request sent stays below the prefix."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

import octo
from octo.codehosts.models.url_segments import file_path
from octo.codehosts.models.url_segments import segment
from octo.core.config import Config
from octo.core.errors import QueryValidationError

GITHUB_API = "https://ghe.test/api/v3"
GITLAB_HOST = "https://gl.test"
GITLAB_API = f"{GITLAB_HOST}/api/v4"

#: (tool, query) with one bad owner, repo, path or ref each.
BAD: list[tuple[str, dict[str, Any]]] = [
    ("githubGetFileContent", {"owner": "../../..", "repo": "admin", "path": "README.md"}),
    ("githubGetFileContent", {"owner": "o", "repo": "r", "path": "../../../../admin/x"}),
    ("githubGetFileContent", {"owner": "o", "repo": "r", "path": "a/./b"}),
    ("githubGetFileContent", {"owner": "o", "repo": "..", "path": "README.md"}),
    ("githubViewRepoStructure", {"owner": "..", "repo": "..", "branch": "main"}),
    ("githubViewRepoStructure", {"owner": "o", "repo": "r", "branch": ".."}),
    ("githubSearchPullRequests", {"owner": "../..", "repo": "r", "prNumber": 1}),
    ("githubSearchIssues", {"owner": "../..", "repo": "r", "issueNumber": 1}),
    ("githubSearchCommits", {"owner": "../..", "repo": "r"}),
    ("githubSearchCommits", {"owner": "o", "repo": "r", "ref": ".."}),
    ("githubGetCommit", {"owner": "o", "repo": "r", "sha": ".."}),
    ("githubGetCommit", {"owner": "o", "repo": "r", "base": "..", "head": "main"}),
    ("githubGetCommit", {"owner": "o\nx", "repo": "r", "sha": "abc"}),
    ("githubCloneRepo", {"owner": "../../..", "repo": "admin"}),
    ("githubCloneRepo", {"owner": "o", "repo": "r", "ref": ".."}),
    ("githubCloneRepo", {"owner": "o", "repo": "r", "sparsePath": "../.."}),
    ("githubSearchRepositories", {"owner": "../..", "keywordsToSearch": ["x"]}),
    ("githubSearchCode", {"repos": ["../admin"], "keywordsToSearch": ["x"]}),
    ("githubSearchCode", {"owner": "x repo:other/private", "keywordsToSearch": ["x"]}),
    ("githubSearchIssues", {"owner": 'o"', "repo": "r"}),
]


@pytest.fixture
def sent() -> Iterator[list[httpx.Request]]:
    """Every request octo sends, answered 404; unmatched requests cannot happen."""
    requests: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(404, json={"message": "Not Found"})

    with respx.mock(assert_all_called=False, assert_all_mocked=True) as router:
        router.route().mock(side_effect=record)
        yield requests


@pytest.mark.parametrize("provider", ["github", "gitlab"])
async def test_bad_segments_are_refused_and_nothing_leaves_the_prefix(
    provider: str, sent: list[httpx.Request], tmp_path: Path
) -> None:
    env = {
        "GITHUB_API_URL": GITHUB_API,
        "GITHUB_TOKEN": "test-token-not-real-gh",
        "GITLAB_HOST": GITLAB_HOST,
        "GITLAB_TOKEN": "test-token-not-real-gl",
        "OCTO_CLONE_DIR": str(tmp_path / "clones"),
    }
    prefix = GITHUB_API if provider == "github" else GITLAB_API
    async with octo.Gateway(Config.from_env(env), roots=[tmp_path]) as gateway:
        for tool, query in BAD:
            response = await gateway.call(tool, [{**query, "provider": provider}])
            row = response.to_wire()["results"][0]
            assert row["status"] == "error", (tool, query, row)
            assert row["error"]["code"] == "VALIDATION_ERROR", (tool, query, row)
    for request in sent:
        raw = request.url.raw_path.decode()
        assert str(request.url).startswith(prefix + "/"), request.url
        assert not {".", ".."} & set(raw.split("?")[0].split("/")), request.url


def test_each_segment_is_quoted_whole() -> None:
    assert segment("feature/x y", "ref") == "feature%2Fx%20y"
    assert segment("group/sub/project", "repository") == "group%2Fsub%2Fproject"
    assert file_path("/src/a b/c.py/") == "src/a%20b/c.py"
    assert file_path("") == ""
    for bad in ("..", ".", "a/../b", "a//b", "%2e%2e", "a\x00b"):
        with pytest.raises(QueryValidationError):
            segment(bad, "ref")
