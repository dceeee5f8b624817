"""Two GitHub hosts with two tokens, served by local fakes: each query goes to the host its
owner (or its ``host``) routes it to, each token only to its own API host, a redirect from
one host to the other carries neither; `octo hosts` checks both without printing a token."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

import octo
from octo.core.config import Config
from tests.faces.conftest import octo_env
from tests.recording_server import Answer
from tests.recording_server import RecordingServer
from tests.recording_server import recording

TOKEN_A = "test-token-not-real-company-a"
TOKEN_B = "test-token-not-real-public-b"
#: The web hosts of the two fakes: their repositories' URLs (never served, only routed).
WEB_A = "ghe-a.test"
WEB_B = "ghe-b.test:8443"
CONTEXT = {"mainResearchGoal": "m", "researchGoal": "r", "reasoning": "why"}


def _github(other: list[str]) -> Any:
    """A fake GitHub API: runs, jobs, a job whose log redirects to ``other[0]``, /user."""

    def answer(path: str) -> Answer:
        json_headers = {"content-type": "application/json"}
        if path.startswith("/api/v3/repos/") and "/actions/runs?" in path:
            body = {"total_count": 0, "workflow_runs": []}
            return 200, json_headers, json.dumps(body).encode()
        if path.endswith("/actions/jobs/5"):
            return (
                200,
                json_headers,
                json.dumps({"id": 5, "name": "t", "conclusion": "failure"}).encode(),
            )
        if path.endswith("/actions/jobs/5/logs"):
            return 302, {"location": f"{other[0]}/storage/5.log"}, b""
        if path.startswith("/storage/"):
            return 200, {}, b"Error: boom\n"
        if path.startswith("/api/v3/search/code?"):
            body = {"total_count": 0, "incomplete_results": False, "items": []}
            return 200, json_headers, json.dumps(body).encode()
        if path == "/api/v3/user":
            return 200, json_headers, b'{"login": "me"}'
        return 404, json_headers, b'{"message": "Not Found"}'

    return answer


@contextmanager
def two_hosts(tmp_path: Path) -> Iterator[tuple[RecordingServer, RecordingServer, dict[str, str]]]:
    b_origin: list[str] = []
    a_origin: list[str] = []
    with ExitStack() as stack:
        a = stack.enter_context(recording(RecordingServer(_github(b_origin))))
        b = stack.enter_context(recording(RecordingServer(_github(a_origin), host="localhost")))
        a_origin.append(a.origin)
        b_origin.append(b.origin)
        hosts = tmp_path / "hosts.toml"
        hosts.write_text(
            f'[[hosts]]\nname = "company"\nkind = "github"\napi_url = "{a.origin}/api/v3"\n'
            f'owners = ["acme-*"]\nweb_hosts = ["{WEB_A}"]\ntoken_env = "COMPANY_TOKEN"\n\n'
            f'[[hosts]]\nname = "public"\nkind = "github"\napi_url = "{b.origin}/api/v3"\n'
            f'web_hosts = ["{WEB_B}"]\ntoken_env = "PUBLIC_TOKEN"\n'
        )
        env = {
            "OCTO_HOSTS_FILE": str(hosts),
            "COMPANY_TOKEN": TOKEN_A,
            "PUBLIC_TOKEN": TOKEN_B,
            "PATH": "/usr/bin:/bin",
        }
        yield a, b, env


def run_octo(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m octo ARGS` as a real subprocess with ``env`` added (no OCTO_* inherited)."""
    return subprocess.run(
        [sys.executable, "-m", "octo", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**octo_env(), **env},
        timeout=60,
        check=False,
    )


def tokens_seen(server: RecordingServer) -> set[str]:
    return {h.get("authorization", "") for h in server.headers_seen()}


async def call(env: dict[str, str], tool: str, **query: Any) -> dict[str, Any]:
    async with octo.Gateway(config=Config.from_env(env)) as gateway:
        response = await gateway.call(tool, [{**CONTEXT, **query}])
    row: dict[str, Any] = response.to_wire()["results"][0]
    assert row.get("error", {}).get("code") != "INTERNAL_ERROR", row
    return row


async def test_owners_route_and_each_token_stays_with_its_host(tmp_path: Path) -> None:
    with two_hosts(tmp_path) as (a, b, env):
        company = await call(env, "githubSearchWorkflowRuns", owner="acme-web", repo="shop")
        public = await call(env, "githubSearchWorkflowRuns", owner="torvalds", repo="linux")
        named = await call(
            env, "githubSearchWorkflowRuns", owner="torvalds", repo="x", host="company"
        )
        unknown = await call(env, "githubSearchWorkflowRuns", owner="o", repo="r", host="elsewhere")
    assert company["data"]["host"] == "company" and public["data"]["host"] == "public"
    assert named["data"]["host"] == "company"
    assert unknown["error"]["code"] == "INVALID_QUERY" and "company" in " ".join(unknown["hints"])
    assert tokens_seen(a) == {f"Bearer {TOKEN_A}"}
    assert tokens_seen(b) == {f"Bearer {TOKEN_B}"}
    assert [p for p, _ in a.requests][-1].startswith("/api/v3/repos/torvalds/x/")


async def test_a_redirect_to_the_other_host_carries_no_token(tmp_path: Path) -> None:
    with two_hosts(tmp_path) as (a, b, env):
        row = await call(env, "githubGetJobLog", owner="acme-web", repo="shop", jobId=5)
    assert row["status"] == "success", row
    assert "Error: boom" in row["data"]["jobs"][0]["steps"][0]["text"]
    [headers] = [h for p, h in b.requests if p.startswith("/storage/")]
    assert "authorization" not in headers
    assert TOKEN_B not in str(a.requests) and TOKEN_A not in str(b.requests)


@pytest.mark.slow
def test_octo_hosts_checks_each_token_without_printing_it(tmp_path: Path) -> None:
    with two_hosts(tmp_path) as (a, b, env):
        env["PUBLIC_TOKEN"] = ""
        done = run_octo("hosts", env=env)
    assert done.returncode == 1, done.stderr
    company, public = done.stdout.strip().splitlines()
    assert company.startswith("company  github") and company.endswith("-> token works")
    assert "environment variable COMPANY_TOKEN" in company
    assert public.startswith("public") and "no token" in public
    assert TOKEN_A not in done.stdout + done.stderr
    assert [h.get("authorization") for p, h in a.requests if p == "/api/v3/user"] == [
        f"Bearer {TOKEN_A}"
    ]
    assert not b.requests  # no token, no call


@pytest.mark.slow
def test_a_bad_hosts_file_stops_octo_at_start_naming_the_line(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[hosts]]\nname = "a"\nkind = "github"\napi_url = "https://a.test"\n')
    done = run_octo("tools", env={"OCTO_HOSTS_FILE": str(hosts)})
    assert done.returncode == 2 and "hosts.toml:1:" in done.stderr


async def test_two_accounts_on_one_host_share_no_cached_answer(tmp_path: Path) -> None:
    with recording(RecordingServer(_github([""]))) as server:
        hosts = tmp_path / "hosts.toml"
        hosts.write_text(
            f'[[hosts]]\nname = "work"\nkind = "github"\napi_url = "{server.origin}/api/v3"\n'
            f'owners = ["acme-*"]\ntoken_env = "WORK_TOKEN"\n\n'
            f'[[hosts]]\nname = "home"\nkind = "github"\napi_url = "{server.origin}/api/v3"\n'
            f'token_env = "HOME_TOKEN"\n'
        )
        env = {"OCTO_HOSTS_FILE": str(hosts), "WORK_TOKEN": TOKEN_A, "HOME_TOKEN": TOKEN_B}
        async with octo.Gateway(config=Config.from_env(env)) as gateway:
            for host in ("work", "home", "work"):
                query = {**CONTEXT, "owner": "acme-web", "repo": "shop", "host": host}
                [row] = (await gateway.call("githubSearchWorkflowRuns", [query])).to_wire()[
                    "results"
                ]
                assert row["data"]["host"] == host, row
    # The third query is the first one's cached answer; the second had its own request.
    assert [h["authorization"] for h in server.headers_seen()] == [
        f"Bearer {TOKEN_A}",
        f"Bearer {TOKEN_B}",
    ]


async def test_repositories_of_one_query_each_go_to_their_own_host(tmp_path: Path) -> None:
    with two_hosts(tmp_path) as (a, b, env):
        row = await call(
            env,
            "githubSearchCode",
            keywordsToSearch=["retry"],
            repos=["acme-web/shop", "torvalds/linux"],
        )
    assert row["status"] in ("success", "empty"), row
    searched_a = unquote(" ".join(p for p, _ in a.requests if "/search/code" in p))
    searched_b = unquote(" ".join(p for p, _ in b.requests if "/search/code" in p))
    assert "repo:acme-web/shop" in searched_a and "torvalds" not in searched_a
    assert "repo:torvalds/linux" in searched_b and "acme-web" not in searched_b
    assert tokens_seen(a) == {f"Bearer {TOKEN_A}"} and tokens_seen(b) == {f"Bearer {TOKEN_B}"}


async def test_a_repository_name_cannot_reach_the_other_host(tmp_path: Path) -> None:
    with two_hosts(tmp_path) as (a, b, env):
        b_port = b.origin.rsplit(":", 1)[1]
        for repo in (
            "../../../..",
            f"@localhost:{b_port}",
            "x/..%2F..%2F..",
            f"//localhost:{b_port}/x",
        ):
            await call(env, "githubSearchWorkflowRuns", owner="acme-web", repo=repo)
    assert not b.requests
    assert tokens_seen(a) == {f"Bearer {TOKEN_A}"}
