"""The hosts file: entries read, the first match routing, and each mistake a start-up error
naming its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from octo.codehosts.hosts.hosts_file import MAX_TOKEN_BYTES
from octo.codehosts.hosts.hosts_file import pick
from octo.codehosts.hosts.hosts_file import read_hosts
from octo.core.config import ConfigError

TWO_HOSTS = """\
# a company host for acme-*, github.com for the rest
[[hosts]]
name = "company"
kind = "github"
api_url = "https://ghe.example.test/api/v3"
web_hosts = ["ghe.example.test"]
owners = ["acme-*", "platform"]
token_env = "GHE_TOKEN"

[[hosts]]
name = "public"
kind = "github"
api_url = "https://gh.test/api/v3"
token_file = "{token_file}"

[[hosts]]
name = "lab"
kind = "gitlab"
api_url = "https://gl.test/api/v4"
token_command = ["printf", "gl-token-from-command"]
"""


def hosts_file(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "hosts.toml"
    path.write_text(text)
    return {"OCTO_HOSTS_FILE": str(path), "PATH": "/usr/bin:/bin"}


def test_entries_route_first_match_by_owner_then_catch_all(tmp_path: Path) -> None:
    entries = read_hosts(hosts_file(tmp_path, TWO_HOSTS.format(token_file="t")))
    assert [(e.name, e.line) for e in entries] == [("company", 2), ("public", 10), ("lab", 16)]

    def routed(kind: str | None, owner: str | None, host: str | None = None) -> str | None:
        entry = pick(entries, kind, owner, host)
        return entry.name if entry else None

    assert routed(None, "acme-web") == "company" and routed(None, "Platform") == "company"
    assert routed(None, "torvalds") == "public"
    assert routed("gitlab", "acme-web") == "lab"
    assert routed(None, "torvalds", host="ghe.example.test") == "company"
    assert routed(None, None, host="lab") == "lab" and routed(None, None, host="nowhere") is None


async def test_each_token_source_is_read(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("file-token\n")
    env = {**hosts_file(tmp_path, TWO_HOSTS.format(token_file=token_file)), "GHE_TOKEN": "env-tok"}
    company, public, lab = read_hosts(env)
    assert await company.token(env) == "env-tok"
    assert await public.token(env) == "file-token"
    assert await lab.token(env) == "gl-token-from-command"
    assert "env-tok" not in company.token_source and public.token_source.startswith("file ")


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        (
            '[[hosts]]\nname = "a"\nkind = "github"\napi_url = "https://a.test"\ntoken = "x"\n',
            ":5:",
            "unknown key 'token'",
        ),
        (
            '[[hosts]]\nname = "a"\nkind = "github"\napi_url = "https://a.test"\n',
            ":1:",
            "needs exactly one of",
        ),
        (
            '[[hosts]]\nname = "a"\nkind = "github"\napi_url = "https://a.test"\ntoken_env = "A"\n\n'
            '[[hosts]]\nname = "b"\nkind = "github"\napi_url = "https://b.test"\ntoken_env = "B"\n',
            ":7:",
            "second github host without owners",
        ),
        (
            '[[hosts]]\nname = "a"\nkind = "bitbucket"\napi_url = "https://a.test"\ntoken_env = "A"\n',
            ":3:",
            "kind",
        ),
        (
            '[[hosts]]\nname = "a"\nkind = "github"\napi_url = "ftp://a.test"\ntoken_env = "A"\n',
            ":4:",
            "api_url",
        ),
        (
            '[[hosts]]\nname = "a"\nkind = "github"\napi_url = "https://a.test"\n'
            'web_hosts = ["https://a.test"]\ntoken_env = "A"\n',
            ":5:",
            "web_hosts: 'https://a.test' is not a host name",
        ),
        ("[server]\nx = 1\n", "", "unknown table or key 'server'"),
    ],
)
def test_a_mistake_names_its_line(tmp_path: Path, text: str, where: str, words: str) -> None:
    with pytest.raises(ConfigError) as raised:
        read_hosts(hosts_file(tmp_path, text))
    assert f"hosts.toml{where}" in str(raised.value) and words in str(raised.value)


def test_no_file_is_no_entries_and_a_missing_file_an_error(tmp_path: Path) -> None:
    assert read_hosts({}) == ()
    with pytest.raises(ConfigError, match="OCTO_HOSTS_FILE"):
        read_hosts({"OCTO_HOSTS_FILE": str(tmp_path / "absent.toml")})


def test_without_a_provider_a_gitlab_catch_all_takes_what_no_github_one_does(
    tmp_path: Path,
) -> None:
    text = '[[hosts]]\nname = "lab"\nkind = "gitlab"\napi_url = "https://gl.test/api/v4"\ntoken_env = "T"\n'
    [lab] = read_hosts(hosts_file(tmp_path, text))
    assert pick((lab,), None, "anyone", None) is lab
    assert pick((lab,), "github", "anyone", None) is None


def test_an_entry_is_named_by_its_apis_web_host_too(tmp_path: Path) -> None:
    text = (
        '[[hosts]]\nname = "public"\nkind = "github"\napi_url = "https://api.gh.test"\n'
        'token_env = "T"\n'
    )
    [public] = read_hosts(hosts_file(tmp_path, text))
    assert pick((public,), None, None, "gh.test") is public
    assert pick((public,), None, None, "api.gh.test") is public
    assert pick((public,), None, None, "gh.test:8443") is None


async def test_a_token_file_that_is_no_token_gives_none(tmp_path: Path) -> None:
    binary, huge = tmp_path / "binary", tmp_path / "huge"
    binary.write_bytes(b"\xff\xfe\x00token")
    huge.write_bytes(b"t" * (MAX_TOKEN_BYTES + 1))
    for path in (binary, huge, Path("/dev/zero"), tmp_path / "absent"):
        text = (
            f'[[hosts]]\nname = "a"\nkind = "github"\napi_url = "https://a.test"\n'
            f'token_file = "{path}"\n'
        )
        env = hosts_file(tmp_path, text)
        [entry] = read_hosts(env)
        assert await entry.token(env) is None
