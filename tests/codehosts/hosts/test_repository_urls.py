"""A repository URL names a repository wherever owner/repo does: read once as the query is
validated into its owner, repository and web host, routed to the configured host of that web
host with that host's token alone; a URL on no configured host, or with credentials, an odd
port or a climbing path in it, is refused before any request."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from pydantic import ValidationError

import octo
from octo.codehosts.clone.models import CloneRepoQuery
from octo.codehosts.models.code import SearchCodeQuery
from octo.codehosts.models.code import SearchRepositoriesQuery
from octo.codehosts.models.lines import TraceLineQuery
from octo.codehosts.models.repo_names import repository_url
from octo.core.config import Config
from tests.codehosts.hosts.test_two_hosts import CONTEXT
from tests.codehosts.hosts.test_two_hosts import TOKEN_A
from tests.codehosts.hosts.test_two_hosts import TOKEN_B
from tests.codehosts.hosts.test_two_hosts import WEB_A
from tests.codehosts.hosts.test_two_hosts import WEB_B
from tests.codehosts.hosts.test_two_hosts import call
from tests.codehosts.hosts.test_two_hosts import tokens_seen
from tests.codehosts.hosts.test_two_hosts import two_hosts
from tests.git_repos import history_repo
from tests.recording_server import RecordingServer
from tests.recording_server import recording


@pytest.mark.parametrize(
    ("url", "host", "owner", "repo"),
    [
        ("https://ghe.example.com/acme/api", "ghe.example.com", "acme", "api"),
        ("https://GHE.example.com/acme/api.git", "ghe.example.com", "acme", "api"),
        ("https://ghe.example.com:443/acme/api/", "ghe.example.com", "acme", "api"),
        ("http://git.corp:8080/acme/api", "git.corp:8080", "acme", "api"),
        ("https://gitlab.corp/a/b/c", "gitlab.corp", "a/b", "c"),
        ("https://gitlab.corp/a/b/c/-/tree/main/src", "gitlab.corp", "a/b", "c"),
        ("https://github.com/facebook/react/tree/main/packages", "github.com", "facebook", "react"),
        ("https://github.com/facebook/react/pull/5#files", "github.com", "facebook", "react"),
    ],
)
def test_a_url_names_its_host_owner_and_repository(
    url: str, host: str, owner: str, repo: str
) -> None:
    named = repository_url(url)
    assert (named.host, named.owner, named.repo) == (host, owner, repo)


@pytest.mark.parametrize(
    "url",
    [
        "https://user:secret@ghe.example.com/acme/api",
        "https://ghe.example.com@evil.test/acme/api",
        "https://ghe.example.com:notaport/acme/api",
        "https://ghe.example.com:99999/acme/api",
        "https://ghe.example.com/acme/../api",
        "https://ghe.example.com/acme/%2e%2e/x",
        "https://ghe.example.com/acme//api",
        "https://ghe.example.com/acme/a%5Cb",
        "ftp://ghe.example.com/acme/api",
        "https://ghe.example.com/",
        "https:///acme/api",
    ],
)
def test_an_odd_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError):
        repository_url(url)


def test_every_field_naming_a_repository_takes_a_url() -> None:
    url = "https://ghe.example.com/acme/api"
    search = SearchCodeQuery(keywordsToSearch=["x"], repo=url)
    assert (search.owner, search.repo, search.host) == ("acme", "api", "ghe.example.com")
    by_owner = SearchCodeQuery(keywordsToSearch=["x"], owner=url)
    assert (by_owner.owner, by_owner.repo, by_owner.host) == ("acme", "api", "ghe.example.com")
    listed = SearchCodeQuery(keywordsToSearch=["x"], repos=[url, "acme/web"])
    assert listed.repos == ["acme/api", "acme/web"] and listed.host == "ghe.example.com"
    owner = SearchRepositoriesQuery(keywordsToSearch=["x"], owner="https://gitlab.corp/a/b")
    assert (owner.owner, owner.host) == ("a/b", "gitlab.corp")
    trace = TraceLineQuery(path="src/x.py", startLine=3, repo=f"{url}.git")
    assert (trace.owner, trace.repo, trace.host) == ("acme", "api", "ghe.example.com")
    clone = CloneRepoQuery(owner=url, repo=url)
    assert (clone.owner, clone.repo, clone.host) == ("acme", "api", "ghe.example.com")
    # What a next call repeats: the names and the host, no URL.
    assert search.params() == {
        "keywordsToSearch": ["x"],
        "owner": "acme",
        "repo": "api",
        "host": "ghe.example.com",
    }


@pytest.mark.parametrize(
    "fields",
    [
        {"repos": ["https://a.test/o/r", "https://b.test/o/s"]},
        {"repo": "https://a.test/o/r", "host": "b.test"},
        {"repo": "https://a.test/o/r", "owner": "other"},
        {"repo": "https://a.test/o"},
    ],
)
def test_urls_that_disagree_are_a_validation_error(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        SearchCodeQuery(keywordsToSearch=["x"], **fields)


async def test_a_url_goes_to_its_web_hosts_host_with_that_hosts_token_only(
    tmp_path: Path,
) -> None:
    with two_hosts(tmp_path) as (a, b, env):
        # acme-* is the company host's by owner: the URL on B's web host sends it to B.
        on_b = await call(
            env, "githubSearchWorkflowRuns", repo=f"https://{WEB_B}/acme-web/shop.git"
        )
        on_a = await call(env, "githubSearchWorkflowRuns", owner=f"https://{WEB_A}/torvalds/x")
    assert on_b["status"] in ("success", "empty"), on_b
    assert (on_b["data"]["host"], on_b["data"]["owner"], on_b["data"]["repo"]) == (
        "public",
        "acme-web",
        "shop",
    )
    assert on_a["data"]["host"] == "company" and on_a["data"]["repo"] == "x"
    assert [p for p, _ in b.requests] == [p for p, _ in b.requests if "/acme-web/shop/" in p]
    assert [p for p, _ in a.requests] == [p for p, _ in a.requests if "/torvalds/x/" in p]
    assert tokens_seen(b) == {f"Bearer {TOKEN_B}"} and tokens_seen(a) == {f"Bearer {TOKEN_A}"}
    assert 'host="public"' in " ".join(on_b.get("hints", []))


async def test_urls_in_repos_go_to_their_host(tmp_path: Path) -> None:
    with two_hosts(tmp_path) as (a, b, env):
        row = await call(
            env,
            "githubSearchCode",
            keywordsToSearch=["retry"],
            repos=[f"https://{WEB_B}/acme-web/shop", f"https://{WEB_B}/acme-web/cart"],
        )
    assert row["status"] in ("success", "empty"), row
    assert not a.requests
    searched = unquote(" ".join(p for p, _ in b.requests))
    assert "repo:acme-web/shop" in searched and "repo:acme-web/cart" in searched
    assert tokens_seen(b) == {f"Bearer {TOKEN_B}"}


async def test_a_url_on_no_configured_host_is_refused_naming_the_web_hosts(
    tmp_path: Path,
) -> None:
    with two_hosts(tmp_path) as (a, b, env):
        b_port = b.origin.rsplit(":", 1)[1]
        elsewhere = await call(env, "githubSearchWorkflowRuns", repo="https://evil.test/acme/x")
        # B's web host on another port is another host.
        other_port = await call(
            env, "githubSearchWorkflowRuns", repo="https://ghe-b.test:9443/acme/x"
        )
        refused = [
            await call(env, "githubSearchWorkflowRuns", repo=url)
            for url in (
                f"https://{TOKEN_A}@{WEB_B}/acme/x",
                f"https://{WEB_A}@localhost:{b_port}/acme/x",
                f"https://{WEB_B}/acme/../../x",
                f"https://{WEB_B}:port/acme/x",
            )
        ]
    for row in (elsewhere, other_port):
        assert row["error"]["code"] == "INVALID_QUERY", row
        hints = " ".join(row["hints"])
        assert WEB_A in hints and WEB_B in hints and "company" in hints
    assert [row["error"]["code"] for row in refused] == ["VALIDATION_ERROR"] * 4
    assert TOKEN_A not in str(refused[0]) and "repo" in refused[0]["error"]["message"]
    assert not a.requests and not b.requests


async def test_without_a_hosts_file_a_url_goes_to_the_environments_host_of_its_web_host(
    tmp_path: Path,
) -> None:
    def not_found(path: str) -> tuple[int, dict[str, str], bytes]:
        return 404, {"content-type": "application/json"}, b'{"message": "404 Not found"}'

    with recording(RecordingServer(not_found)) as gitlab:
        env = {"GITLAB_HOST": gitlab.origin, "GITHUB_TOKEN": TOKEN_A}
        row = await call(env, "githubSearchWorkflowRuns", repo=f"{gitlab.origin}/grp/sub/proj")
        unknown = await call(env, "githubSearchWorkflowRuns", repo="https://elsewhere.test/o/r")
    assert row["error"]["code"] == "NOT_FOUND", row
    [(path, headers)] = gitlab.requests
    assert path.startswith("/api/v4/projects/grp%2Fsub%2Fproj/pipelines")
    assert "authorization" not in headers and "private-token" not in headers
    assert unknown["error"]["code"] == "INVALID_QUERY"
    assert "github.com" in " ".join(unknown["hints"])


async def test_a_checkouts_origin_on_a_web_host_goes_to_its_host(tmp_path: Path) -> None:
    root = tmp_path / "root"
    repo, shas = history_repo(root / "project")
    repo.git("remote", "add", "origin", f"git@{WEB_A}:torvalds/linux.git")
    with two_hosts(tmp_path) as (a, b, env):
        async with octo.Gateway(Config.from_env(env), roots=[root]) as gateway:
            response = await gateway.call(
                "traceLine", [{**CONTEXT, "path": "project/b.py", "startLine": 2}]
            )
    [row] = response.to_wire()["results"]
    assert row["data"]["repository"] == "torvalds/linux", row
    assert [p for p, _ in a.requests] == [
        f"/api/v3/repos/torvalds/linux/commits/{shas['spaces']}/pulls"
    ]
    assert tokens_seen(a) == {f"Bearer {TOKEN_A}"} and not b.requests


async def test_every_tools_answer_names_the_hosts_file_host_that_gave_it(tmp_path: Path) -> None:
    with two_hosts(tmp_path) as (_, _, env):
        row = await call(
            env, "githubSearchCode", keywordsToSearch=["retry"], repo=f"https://{WEB_B}/o/r"
        )
        plain = await call(env, "githubSearchCode", keywordsToSearch=["retry"], owner="acme-x")
    assert 'Host "public" answered: follow-up tools need host="public"' in " ".join(row["hints"])
    assert 'Host "company" answered' in " ".join(plain["hints"])
