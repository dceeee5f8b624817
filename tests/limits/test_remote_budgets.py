"""No answer of a remote tool exceeds its token budget, whatever the host sends: every
GitHub, GitLab and package-registry tool is asked against hosts that answer the recorded
shapes grown hostile (thousands of items where a page was asked for; 8 MiB of prose spread
over the titles, messages and bodies), under the default budget and OCTO_MAX_TOKENS=2000.
Each envelope's data measures within maxTokensPerRequest, and an answer the budget cut names
the handles that hold the rest, which getCachedContent reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import respx

import octo
from octo.core.budget import estimate_tokens
from octo.core.config import Config

TESTS = Path(__file__).parent.parent
RECORDINGS = [
    *sorted((TESTS / "codehosts" / "hosts" / "github" / "recordings").glob("*.json")),
    *sorted((TESTS / "codehosts" / "hosts" / "gitlab" / "recordings").glob("*.json")),
    TESTS / "packages" / "recordings" / "npm-packument.json",
]
ENV = {
    "GITHUB_API_URL": "https://gh.test/api/v3",
    "GITHUB_TOKEN": "test-token-not-real-7f3a9c",
    "GITLAB_HOST": "https://gl.test",
    "GITLAB_TOKEN": "glpat-test-not-real-3b9d",
    "OCTO_NPM_REGISTRY": "https://registry.test/",
    "PATH": "",
}
#: Items a hostile page holds, and the prose it carries in all.
ITEMS = 3000
PROSE_CHARS = 8 * 1024 * 1024

GITHUB = {"owner": "octocat", "repo": "Hello-World"}
GITLAB = {"provider": "gitlab", "owner": "group/sub", "repo": "project"}
SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
GITLAB_SHA = "ed899a2f4b50b4370feeea94676502b42383c746"
QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("githubSearchCode", {"keywordsToSearch": ["addClass"], "owner": "jquery", "repo": "jquery"}),
    ("githubGetFileContent", {"owner": "octokit", "repo": "octokit.rb", "path": "README.md"}),
    ("githubViewRepoStructure", {**GITHUB, "branch": "main"}),
    ("githubSearchRepositories", {"keywordsToSearch": ["tetris"]}),
    ("githubSearchPullRequests", {**GITHUB, "state": "closed"}),
    ("githubSearchPullRequests", {**GITHUB, "prNumber": 1347, "type": "fullContent"}),
    ("githubSearchIssues", {**GITHUB, "query": "crash"}),
    ("githubSearchIssues", {**GITHUB, "issueNumber": 1347}),
    ("githubSearchCommits", {**GITHUB, "query": "Fix"}),
    ("githubSearchCommits", {**GITHUB, "path": "README"}),
    ("githubGetCommit", {**GITHUB, "sha": SHA, "includePatch": True}),
    ("githubGetCommit", {**GITHUB, "base": "v1.0", "head": "v1.1"}),
    ("githubSearchCode", {**GITLAB, "keywordsToSearch": ["addClass"]}),
    ("githubGetFileContent", {**GITLAB, "path": "src/dom.js"}),
    ("githubViewRepoStructure", {**GITLAB, "branch": "main"}),
    ("githubSearchRepositories", {"provider": "gitlab", "keywordsToSearch": ["dom", "helpers"]}),
    ("githubSearchPullRequests", {**GITLAB, "state": "closed", "merged": True}),
    ("githubSearchPullRequests", {**GITLAB, "prNumber": 1, "type": "fullContent"}),
    ("githubSearchIssues", {**GITLAB, "query": "crash"}),
    ("githubSearchIssues", {**GITLAB, "issueNumber": 3}),
    ("githubSearchCommits", {**GITLAB, "query": "sanitize", "withFiles": True}),
    ("githubSearchCommits", {**GITLAB, "path": "app/helpers.rb"}),
    ("githubGetCommit", {**GITLAB, "sha": GITLAB_SHA, "includePatch": True}),
    ("githubGetCommit", {**GITLAB, "base": "v1.0", "head": "v1.1"}),
    ("packageSearch", {"name": "left-pad", "ecosystem": "npm", "npmFetchMetadata": True}),
]


def _recorded() -> dict[str, dict[str, Any]]:
    """The first successful recorded answer of each path (query strings ignored)."""
    answers: dict[str, dict[str, Any]] = {}
    for file in RECORDINGS:
        for interaction in json.loads(file.read_text(encoding="utf-8"))["interactions"]:
            response = interaction["response"]
            path = urlsplit(interaction["request"]["url"]).path
            if response["status"] == 200 and path not in answers:
                answers[path] = response
    return answers


def _many_items(body: Any) -> Any:
    """``body`` whose lists of objects at its top hold ITEMS items (the first ones repeated)."""
    if isinstance(body, list) and body and isinstance(body[0], dict):
        return [body[n % len(body)] for n in range(ITEMS)]
    if isinstance(body, dict):
        return {
            key: _many_items(value) if isinstance(value, list) else value
            for key, value in body.items()
        }
    return body


def _prose(value: Any, found: list[str]) -> None:
    if isinstance(value, dict):
        for item in value.values():
            _prose(item, found)
    elif isinstance(value, list):
        for item in value:
            _prose(item, found)
    elif isinstance(value, str) and " " in value and "://" not in value:
        found.append(value)


def _long_prose(body: Any) -> Any:
    """``body`` whose prose (strings with a space: titles, messages, bodies) holds
    PROSE_CHARS characters in all."""
    found: list[str] = []
    _prose(body, found)
    share = PROSE_CHARS // max(1, len(found))

    def grown(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: grown(item) for key, item in value.items()}
        if isinstance(value, list):
            return [grown(item) for item in value]
        if isinstance(value, str) and " " in value and "://" not in value:
            return (value + " ") * (share // (len(value) + 1) + 1)
        return value

    return grown(body)


Grow = Callable[[Any], Any]


def recorded_hosts(grow: Grow) -> Callable[[httpx.Request], httpx.Response]:
    """Hosts answering every path with its recorded answer, grown by ``grow``."""
    answers = _recorded()

    def answer(request: httpx.Request) -> httpx.Response:
        recorded = answers.get(request.url.raw_path.decode().partition("?")[0])
        if recorded is None:
            return httpx.Response(404, json={"message": "Not Found"})
        headers = {k: v for k, v in recorded["headers"].items() if k.lower() != "link"}
        body = recorded["body"]
        if body is None or isinstance(body, str):
            text = body if isinstance(body, str) else recorded.get("text") or ""
            return httpx.Response(200, headers=headers, text=grow_text(text, grow))
        return httpx.Response(200, headers=headers, json=grow(body))

    return answer


def grow_text(text: str, grow: Grow) -> str:
    """A raw file grown like a JSON answer: many lines, or one long one."""
    if grow is _many_items:
        return text * ITEMS
    return text.rstrip("\n") + " x" * (PROSE_CHARS // 2)


@pytest.fixture(params=[_many_items, _long_prose], ids=["thousands-of-items", "8MiB-of-prose"])
def hostile(request: pytest.FixtureRequest) -> Iterator[Grow]:
    """Hosts answering the recorded shapes grown by the parameter, which it yields."""
    grow: Grow = request.param
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        mock.route().mock(side_effect=recorded_hosts(grow))
        yield grow


def _handles(envelope: dict[str, Any]) -> list[str]:
    texts = [*envelope.get("hints", []), json.dumps(envelope.get("data"))]
    found: list[str] = []
    for text in texts:
        for part in text.split('{"handle":"')[1:] + text.split('{\\"handle\\": \\"')[1:]:
            found.append(part.split('"')[0].rstrip("\\"))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("max_tokens", [None, "2000"], ids=["default-budget", "2000-tokens"])
async def test_no_remote_answer_exceeds_its_budget(hostile: Grow, max_tokens: str | None) -> None:
    env = {**ENV, **({"OCTO_MAX_TOKENS": max_tokens} if max_tokens else {})}
    config = Config.from_env(env)
    over: list[str] = []
    async with octo.Gateway(config) as gateway:
        for tool, query in QUERIES:
            (envelope,) = (await gateway.call(tool, [query])).to_wire()["results"]
            data = json.dumps(envelope.get("data"), separators=(",", ":"), ensure_ascii=False)
            tokens = estimate_tokens(len(data), config.chars_per_token)
            rest = estimate_tokens(len(json.dumps(envelope)) - len(data))
            if tokens > config.max_tokens or rest > 1000:
                over.append(f"{tool} {query}: {tokens} + {rest} tokens")
                continue
            cut = (envelope.get("data") or {}).get("tokens", {}).get("truncated")
            if envelope["status"] != "error" and cut:
                handles = _handles(envelope)
                assert handles, (tool, query, envelope["hints"])
                for handle in handles:
                    (read,) = (
                        await gateway.call("getCachedContent", [{"handle": handle}])
                    ).to_wire()["results"]
                    assert read["status"] == "success", (tool, query, read)
    assert not over, "\n".join(over)
