"""Where the token comes from, and that it never leaks into recordings, errors or cache keys."""

from __future__ import annotations

import logging
import re
import stat
from pathlib import Path
from typing import Any

import httpx
import respx

import octo

RECORDINGS = Path(__file__).parent / "recordings"
TOKEN_SHAPES = re.compile(
    r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|npm_[A-Za-z0-9]{36}|(?i:bearer\s+[A-Za-z0-9._-]{8,})|_authToken\s*="
)
URL_HOST = re.compile(r"https?://([^/\s\"']+)")


def test_no_recording_holds_a_token_or_a_real_host() -> None:
    files = sorted(RECORDINGS.glob("*.json"))
    assert files
    for path in files:
        text = path.read_text()
        assert not TOKEN_SHAPES.search(text), f"token-shaped string in {path.name}"
        # Recorded URLs point at placeholder hosts only, never at a real service.
        hosts = {host.lower() for host in URL_HOST.findall(text)}
        assert all(host.endswith(".test") for host in hosts), f"real host in {path.name}: {hosts}"
        assert "authorization" not in text.lower(), f"auth header in {path.name}"


async def test_errors_never_carry_the_token(
    gateway: octo.Gateway, router: respx.MockRouter, token: str
) -> None:
    # A hostile or buggy upstream echoing the credential back must not pass it on.
    router.get("https://gh.test/api/v3/search/code").respond(
        401, json={"message": f"Bad credentials: Bearer {token}"}
    )
    router.get("https://gh.test/api/v3/repos/o/r/contents/a").respond(
        422, json={"message": f"token {token} rejected"}
    )
    code = await gateway.github_search_code([{"keywordsToSearch": ["x"]}])
    file = await gateway.github_get_file_content([{"owner": "o", "repo": "r", "path": "a"}])
    for response in (code, file):
        text = response.to_compact_json()
        assert token not in text and "[REDACTED]" in text


async def token_sent(
    gateway_factory: Any, settings: dict[str, str], router: respx.MockRouter
) -> str | None:
    gateway = gateway_factory(settings)
    route = router.get(f"{settings['GITHUB_API_URL'].rstrip('/')}/search/repositories").mock(
        return_value=httpx.Response(200, json={"total_count": 0, "items": []})
    )
    await gateway.github_search_repositories([{"keywordsToSearch": ["x"]}])
    header: str | None = route.calls.last.request.headers.get("authorization")
    return header


async def test_github_token_wins_over_gh_token(
    gateway_factory: Any, env: Any, router: respx.MockRouter
) -> None:
    settings = env(GITHUB_TOKEN="first-token-not-real", GH_TOKEN="second-token-not-real")
    assert await token_sent(gateway_factory, settings, router) == "Bearer first-token-not-real"


async def test_gh_token_is_the_fallback(
    gateway_factory: Any, env: Any, router: respx.MockRouter
) -> None:
    settings = env(GH_TOKEN="second-token-not-real")
    del settings["GITHUB_TOKEN"]
    assert await token_sent(gateway_factory, settings, router) == "Bearer second-token-not-real"


def fake_gh(tmp_path: Path) -> Path:
    """A `gh` on PATH that prints a token and logs its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "gh"
    script.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "calls"}\necho cli-token-not-real\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return bin_dir


async def test_gh_auth_token_is_asked_once_with_the_enterprise_host(
    gateway_factory: Any, router: respx.MockRouter, tmp_path: Path
) -> None:
    settings = {"GITHUB_API_URL": "https://ghe.test/api/v3", "PATH": str(fake_gh(tmp_path))}
    gateway = gateway_factory(settings)
    route = router.get("https://ghe.test/api/v3/search/repositories").mock(
        return_value=httpx.Response(200, json={"total_count": 0, "items": []})
    )
    await gateway.github_search_repositories(
        [{"keywordsToSearch": ["a"]}, {"keywordsToSearch": ["b"]}]
    )
    assert [c.request.headers["authorization"] for c in route.calls] == [
        "Bearer cli-token-not-real"
    ] * 2
    assert (tmp_path / "calls").read_text() == "auth token --hostname ghe.test\n"


async def test_without_any_token_requests_go_out_anonymously(
    gateway_factory: Any, router: respx.MockRouter
) -> None:
    settings = {"GITHUB_API_URL": "https://gh.test/api/v3"}
    assert await token_sent(gateway_factory, settings, router) is None


async def test_logs_never_carry_the_token(
    gateway: octo.Gateway, router: respx.MockRouter, token: str, caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    router.get("https://gh.test/api/v3/search/code").respond(
        401, json={"message": f"Bad credentials: Bearer {token}"}
    )
    router.get("https://gh.test/api/v3/search/repositories").respond(
        json={"total_count": 0, "items": []}
    )
    await gateway.github_search_code([{"keywordsToSearch": ["x"]}])
    await gateway.github_search_repositories([{"keywordsToSearch": ["x"]}])
    assert "HTTP Request" in caplog.text  # httpx did log the requests
    assert token not in caplog.text


async def test_the_token_goes_to_the_configured_host_only(
    gateway: octo.Gateway, router: respx.MockRouter, token: str
) -> None:
    router.get("https://gh.test/api/v3/repos/o/r/pulls/7").respond(
        json={
            "number": 7,
            "title": "t",
            "state": "open",
            "html_url": "",
            "created_at": "",
            "updated_at": "",
            "base": {"ref": "main", "repo": {"full_name": "o/r"}},
        }
    )
    first = router.get("https://gh.test/api/v3/repos/o/r/pulls/7/files").respond(
        json=[], headers={"link": '<https://elsewhere.test/files?page=2>; rel="next"'}
    )
    elsewhere = router.get("https://elsewhere.test/files").respond(json=[])
    await gateway.github_search_pull_requests(
        [{"owner": "o", "repo": "r", "prNumber": 7, "type": "fullContent"}]
    )
    assert first.calls.last.request.headers["authorization"] == f"Bearer {token}"
    assert "authorization" not in elsewhere.calls.last.request.headers
