"""The one redaction function: every secret detector is hidden, code stays readable, a second
pass changes nothing, and adversarial text costs linear time (RE2)."""

from __future__ import annotations

import pytest

from octo.core.envelope import ErrorInfo
from octo.core.errors import ErrorCode
from octo.core.secrets import redaction
from octo.core.secrets.redaction import LineRedactor
from octo.core.secrets.redaction import key_body_lines
from octo.core.secrets.redaction import redact
from octo.core.secrets.redaction import redacted
from tests.security.planted import KEY_KINDS
from tests.security.planted import PLANTED
from tests.security.planted import Planted
from tests.security.planted import private_key


@pytest.mark.parametrize("planted", PLANTED, ids=lambda p: p.name)
def test_every_shape_is_redacted_and_the_line_kept(planted: Planted) -> None:
    out = redact(planted.text)
    assert planted.value not in out
    assert "[REDACTED:" in out
    # What surrounds the secret stays (the name, the quotes, the rest of the line).
    prefix = planted.line.split("{}")[0]
    assert out.startswith(prefix[: max(0, len(prefix) - 1)])
    assert redact(out) == out


@pytest.mark.parametrize("kind", KEY_KINDS)
def test_private_key_blocks_are_hidden_line_by_line(kind: str) -> None:
    text, body = private_key(kind)
    out = redact(text)
    assert not any(line in out for line in body)
    assert out.count("\n") == text.count("\n")
    assert f"-----BEGIN {kind}-----" in out and f"-----END {kind}-----" in out
    # Body lines seen one by one after the BEGIN line, or a full body line alone.
    lines = LineRedactor()
    assert not any(line in lines(shown) for shown in text.splitlines() for line in body)
    assert body[0] not in redact(body[0])
    numbers = key_body_lines(text)
    assert [text.split("\n")[n - 1] for n in numbers if text.split("\n")[n - 1] in body] == body


@pytest.mark.parametrize(
    "code",
    [
        "password = read_password()",
        "token = str(params.token)",
        "self._token = token",
        "api_key = config.api_key",
        'CACHE_KEY = "users"',
        "refresh_token: RefreshToken,",
        # A parameter's type annotation on a line of its own (TypeScript, Python).
        "\t\ttoken: CancellationToken",
        "    token:CancellationToken",
        # An enum constant whose value is its own name's last words.
        'export const K8S_VOLUME_TYPE_VALUE_SECRET = "secret";',
        'export declare const TEST_CASE_RESULT_STATUS_VALUE_PASS: "pass";',
        'const IDENTITY_UPDATE_TYPE_VALUE_RESET_PASSWORD = "reset_password";',
        # Minified JavaScript: a list of code assigned.
        "return this.lastToken=this.token,this.token=this.lookahead()",
        "return d.dotDotDotToken=r,d.name=i,d.questionToken=_,d.type=c,d",
        "else this._output.space_before_token=!0,this.print_token(t)",
        "if(u&4 && e.token===67174411?a=se(e):b) return e.token===20565",
        # A Fetch credentials mode; a lower-case dotted name under a name that is only *_KEY.
        'fetch(url, { credentials: "same-origin" })',
        'type RequestCredentials = "include" | "omit" | "same-origin";',
        "export const ATTR_AWS_S3_KEY = 'aws.s3.key';",
        # A pattern under a name that is only *_KEY.
        "const VALID_KEY = `[a-z][_0-9a-z-*/]{0,255}`;",
        "MAX_TOKENS=5000",
        "tokenizer: str",
        "API_TOKEN = os.environ['API_TOKEN']",
        "DB_PASSWORD=${DB_PASSWORD}",
        "def main(): return 1",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  file.tar.gz",
    ],
)
def test_code_stays_readable(code: str) -> None:
    assert redact(code) == code


@pytest.mark.parametrize("value", ["abc,def9", "Zq8vR3kT,wLm2x"])
def test_a_comma_in_a_command_line_password_is_no_code(value: str) -> None:
    assert value not in redact(f"mysql --password={value} db")


def test_every_string_of_an_answer_is_redacted() -> None:
    secret = PLANTED[0]
    info = ErrorInfo(code=ErrorCode.NOT_FOUND, message=f"no file {secret.text}")
    nested = {"rows": [info, (secret.text, 1)], secret.value: "key"}
    out = redacted(nested)
    assert secret.value not in repr(out)
    rows = out["rows"]
    assert isinstance(rows, list) and isinstance(rows[0], ErrorInfo)
    assert rows[0].code is ErrorCode.NOT_FOUND
    clean = {"rows": ["nothing to hide"]}
    assert redacted(clean) is clean


@pytest.mark.slow
@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "adversarial",
    [
        "a." * 500_000,
        "password" * 120_000,
        "x=" * 500_000,
        "https://" + "a:" * 400_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 1_000_000,
        ("token = 'abcdefgh1'\n" * 20_000),
    ],
    ids=["dots", "keywords", "assignments", "url", "key", "many-secrets"],
)
def test_adversarial_text_is_redacted_in_linear_time(adversarial: str) -> None:
    # A backtracking engine takes hours on some of these; RE2 takes a fraction of a second.
    out = redact(adversarial)
    if adversarial.startswith("-----BEGIN"):
        assert out == "-----BEGIN RSA PRIVATE KEY-----\n[REDACTED:private-key]"
    elif "token" in adversarial:
        assert "abcdefgh1" not in out
        assert out.count("[REDACTED:secret]") == 20_000
    else:
        # No secret in these: the text comes back unchanged, none of it lost.
        assert out == adversarial


def test_a_short_clean_text_is_searched_once_and_a_secret_always() -> None:
    # An answer holds the same short texts many times (authors, file names, parents' shas).
    clean = "Ada Lovelace <ada@example.test> 5f0c2d1"
    assert redact(clean) is clean
    assert clean in redaction._CLEAN
    planted = PLANTED[0]
    assert planted.value not in redact(planted.text)
    assert planted.text not in redaction._CLEAN
    assert planted.value not in redact(planted.text)
