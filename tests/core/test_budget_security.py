"""Token budget cuts and the path policy / redaction rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import BaseModel

from octo.core.budget import TokenInfo
from octo.core.budget import cut_lines
from octo.core.budget import estimate_tokens
from octo.core.budget import with_tokens
from octo.core.config import Config
from octo.core.errors import InvalidQueryError
from octo.core.errors import PathNotAllowedError
from octo.core.files.paths import PathPolicy
from octo.core.files.paths import is_hidden
from octo.core.secrets.redaction import redact
from octo.core.secrets.sensitive import SENSITIVE_NAME_GLOBS
from octo.core.secrets.sensitive import SENSITIVE_PATH_ENDINGS
from octo.core.secrets.sensitive import is_sensitive
from octo.core.secrets.sensitive import sensitive_among


def test_estimate_tokens_rounds_up() -> None:
    assert estimate_tokens(0) == 0
    assert estimate_tokens(5) == 2
    assert estimate_tokens(6, chars_per_token=3) == 2


def test_cut_lines_keeps_whole_lines_within_budget() -> None:
    lines = [f"line {i:03d}\n" for i in range(1, 101)]  # 9 chars each
    cut = cut_lines(lines, first_line=1, max_tokens=10)  # 40 chars -> 4 lines
    assert cut.content == "".join(lines[:4])
    assert (cut.first_line, cut.last_line, cut.truncated) == (1, 4, True)
    whole = cut_lines(lines[:3], first_line=7, max_tokens=100)
    assert (whole.last_line, whole.truncated) == (9, False)


def test_cut_lines_always_advances_on_a_huge_line() -> None:
    cut = cut_lines(["x" * 1000 + "\n", "y\n"], first_line=5, max_tokens=10)
    assert cut.content == "x" * 40
    assert (cut.last_line, cut.truncated) == (5, True)


class _Answer(BaseModel):
    text: str
    tokens: TokenInfo | None = None


def test_token_info_names_the_continuation() -> None:
    info = with_tokens(
        _Answer(text="abc"), Config(), truncated_at_line=180, next_step="startLine=181"
    ).tokens
    assert info is not None and info.truncated and info.requiresPagination
    assert info.truncatedAtLine == 180
    assert info.paginationHint is not None and "startLine=181" in info.paginationHint
    done = with_tokens(_Answer(text="abc"), Config()).tokens
    assert done is not None
    assert not done.truncated and not done.requiresPagination and done.paginationHint is None


@pytest.mark.parametrize("size", [0, 1, 5, 50, 300, 2400, 9970, 99_960])
def test_tokens_count_the_whole_data_as_sent_their_own_block_included(size: int) -> None:
    """The estimate covers every serialized character, not only the text: the block's own
    digits included, wherever they cross a power of ten."""
    answer = with_tokens(_Answer(text="x" * size), Config(chars_per_token=3))
    assert answer.tokens is not None
    sent = answer.model_dump_json(exclude_none=True)
    assert answer.tokens.chars == len(sent)
    assert answer.tokens.estimatedTokens == estimate_tokens(len(sent), chars_per_token=3)


def test_path_policy_allows_inside_and_refuses_outside(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x")
    policy = PathPolicy([root])
    assert policy.resolve("src/a.py") == (root / "src" / "a.py").resolve()
    assert policy.resolve(f"file://{root}/src/a.py") == (root / "src" / "a.py").resolve()
    assert policy.relative(policy.resolve("src/a.py")) == os.path.join("src", "a.py")
    with pytest.raises(PathNotAllowedError) as info:
        policy.resolve("../outside.txt")
    assert info.value.hints and str(root.resolve()) in info.value.hints[0]
    with pytest.raises(PathNotAllowedError):
        policy.resolve("/etc/passwd")


@pytest.mark.parametrize("raw", ["a\0b", "file:///a%00b", "a" * 256, "src/" + "b" * 300 + "/c"])
def test_impossible_paths_are_invalid_queries(tmp_path: Path, raw: str) -> None:
    # A NUL byte or an over-long name would otherwise fail deep in the OS calls.
    with pytest.raises(InvalidQueryError) as info:
        PathPolicy([tmp_path]).resolve(raw)
    assert len(info.value.message) < 200


def test_relative_paths_come_back_to_the_root_that_holds_them(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (second / "util.h").write_text("int f(void);")
    policy = PathPolicy([first, second])
    assert policy.resolve("util.h") == (second / "util.h").resolve()
    assert policy.relative(policy.resolve("util.h")) == "util.h"
    assert policy.resolve("missing.c") == (first / "missing.c").resolve()


def test_symlinks_are_resolved_before_the_check(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    (root / "link.txt").symlink_to(secret)
    with pytest.raises(PathNotAllowedError):
        PathPolicy([root]).resolve("link.txt")


@pytest.mark.parametrize(
    ("name", "sensitive"),
    [
        (".env", True),
        (".env.production", True),
        ("id_rsa", True),
        ("server.pem", True),
        (".npmrc", True),
        ("credentials.json", True),
        ("main.py", False),
        ("environment.py", False),
        ("README.md", False),
    ],
)
def test_sensitive_names(name: str, sensitive: bool) -> None:
    assert is_sensitive(Path("/x") / name) is sensitive


def test_the_sensitive_among_a_listing_are_those_each_check_finds() -> None:
    # Every glob and place, in other cases, with a newline or a non-ASCII letter in a name
    # (the Kelvin sign lowercases to "k"), beside names that only hold a piece of one.
    names = [
        *(glob.replace("*", "x") for glob in SENSITIVE_NAME_GLOBS),
        *SENSITIVE_PATH_ENDINGS,
        "ID_RSA.pub",
        "Sub/.ENV",
        "./secrets.toml",
        "./.kube/config",
        "a/.docker/config.json",
        "test_netrc.py",
        "my.env.py",
        "server.pem.txt",
        "line\nbreak.key",
        "plain.py",
        "deep/dir/notes.md",
    ]
    paths = [f"{prefix}{name}".encode() for name in names for prefix in ("", "./", "src/")]
    expected = {i for i, path in enumerate(paths) if is_sensitive(path.decode())}
    assert 0 < len(expected) < len(paths)
    assert sensitive_among(paths) == expected
    assert is_sensitive("server.\u212aey")
    assert sensitive_among([b"plain.py", "server.\u212aey".encode(), b"notes.md"]) == {1}
    assert sensitive_among([]) == set()
    assert sensitive_among([b"a.py", b"b.md"]) == set()


def test_hidden_components(tmp_path: Path) -> None:
    assert is_hidden(tmp_path / ".git" / "config", tmp_path)
    assert not is_hidden(tmp_path / "src" / "a.py", tmp_path)


def test_redact_hides_secrets_and_keeps_code() -> None:
    fake_gh = "ghp_" + "A1b2C3d4" * 5
    text = "\n".join(
        [
            f"token = {fake_gh}",
            'password = "hunter22secret"',
            "password = read_password()",
            "aws = AKIA" + "ABCDEFGHIJKLMNOP",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
            "url = https://user:pa55word@example.test/x",
            "export DB_PASSWORD=s3cr3tvalue",
            "API_TOKEN = os.environ['API_TOKEN']",
            "def main(): return 1",
        ]
    )
    out = redact(text)
    assert fake_gh not in out and "token = [REDACTED:" in out
    assert "hunter22secret" not in out and 'password = "[REDACTED:secret]"' in out
    assert "password = read_password()" in out
    assert "AKIAABCDEFGHIJKLMNOP" not in out
    assert "MIIEow" not in out
    assert "pa55word" not in out
    assert "s3cr3tvalue" not in out and "export DB_PASSWORD=[REDACTED:secret]" in out
    assert "API_TOKEN = os.environ['API_TOKEN']" in out
    assert "def main(): return 1" in out
