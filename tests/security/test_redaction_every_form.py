"""Every common form of a secret is redacted: the Python, shell, Docker, Kubernetes, XML and
command-line forms, each token shape with values drawn from its whole alphabet (first and
last characters included: a base64url key may end in "-"), and diff lines whose "+", "-" or
space prefix must not hide a shape."""

from __future__ import annotations

import re
import string

import pytest
import re2
from hypothesis import HealthCheck
from hypothesis import assume
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from octo.core.secrets.detectors import PREFILTER
from octo.core.secrets.redaction import redact
from tests.security.planted import KEY_KINDS
from tests.security.planted import private_key

#: What an unquoted value may hold (no blank, quote, ``#``, shell operator or bracket).
UNQUOTED = string.ascii_letters + string.digits + "-_./+=~!@%^*:?"
#: What a quoted value may hold besides: blanks, the other quote, brackets, ``#``, ``;``.
QUOTED = UNQUOTED + " #;,(){}<>|&$"

FORMS = (
    # Python
    'DB_PASSWORD = "{v}"',
    'DB_PASSWORD: str = "{v}"',
    "    api_key: str = '{v}'",
    "    password: Optional[str] = '{v}'",
    '    password: SecretStr = SecretStr("{v}")',
    '    secret_key: str = Field(default="{v}")',
    '    token: str = field(default="{v}")',
    'os.environ["API_KEY"] = "{v}"',
    "os.environ['DB_PASSWORD'] = '{v}'",
    'os.getenv("SECRET_KEY", "{v}")',
    'os.environ.get("API_TOKEN", "{v}")',
    'os.environ.setdefault("API_KEY", "{v}")',
    'env("SECRET_KEY", default="{v}")',
    'settings = {{"password": "{v}"}}',
    'connect(password="{v}")',
    'self.api_key = "{v}"',
    'PASSWORD = b"{v}"',
    "PASSWORD = r'{v}'",
    'API_KEY = """{v}"""',
    "password=('{v}')",
    # Shell, .env, Docker
    "API_KEY={v} # comment",
    "export DEPLOY_TOKEN={v}  # rotated monthly",
    "ENV API_KEY={v}",
    "ENV API_KEY {v}",
    "ARG DB_PASSWORD={v}",
    "docker run -e API_KEY={v} image",
    "docker run --env DB_PASSWORD={v} --rm img",
    "set API_KEY={v}",
    "setx API_TOKEN={v}",
    '$env:API_KEY = "{v}"',
    # JavaScript, XML, Kubernetes
    "const API_KEY = `{v}`;",
    "<DB_PASSWORD>{v}</DB_PASSWORD>",
    "  <password>{v}</password>",
    "- name: X_PASSWORD\n  value: {v}",
    '        - name: DB_PASSWORD\n          value: "{v}"',
    # Command lines
    "mysql --password={v} db",
    "app --token {v} --verbose",
    "mysql -u root -p {v}",
    "mysql -u root -p{v}",
    "curl -u user:{v} https://api.test",
    "curl --user admin:{v} https://api.test",
    "git clone https://user:{v}@git.test/x.git",
    # Diff lines
    "+API_KEY={v}",
    "-DB_PASSWORD={v}",
    " SECRET_TOKEN={v}",
    '+DB_PASSWORD = "{v}"',
    "+  client_secret: {v}",
)
VALUE = "Zq8v-R3kT.9wLm_2xYp"


@pytest.mark.parametrize("form", FORMS)
def test_every_form_of_the_issue_is_redacted(form: str) -> None:
    assert VALUE not in redact(form.format(v=VALUE))


def test_the_prefilter_finds_a_line_of_every_form() -> None:
    # rg runs it line by line: a file it misses is searched raw.
    prefilter = re2.compile(PREFILTER)
    texts = [form.format(v=VALUE) for form in FORMS]
    missed = [t for t in texts if not any(prefilter.search(line) for line in t.split("\n"))]
    assert missed == []


def _value(alphabet: str, size: int) -> st.SearchStrategy[str]:
    """A value of ``size`` characters of ``alphabet``, its first and last drawn from the whole
    alphabet, holding a letter and a digit (not a placeholder or a number)."""
    inner = st.text(alphabet, min_size=size - 2, max_size=size - 2)
    edge = st.sampled_from(alphabet)
    return st.tuples(edge, inner, edge).map("".join)


#: What reads as code, not a secret: a variable, a format string of fields alone.
_CODE = re.compile(
    r"\$[A-Za-z_]\w*|(?:%[-+ #0-9.]*[a-zA-Z]|\{(?:\d+|[A-Za-z_]\w*(?:\.\w+)*)?(?:![rsa])?"
    r"(?::[^{}]{0,20})?\}|[^A-Za-z0-9])*"
)


def _random_looking(value: str) -> bool:
    """Holds a letter and a digit, and reads as no code (``$DB_PASS``, ``{0}:{1}``)."""
    code = _CODE.fullmatch(value.strip()) is not None
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value) and not code


_UNQUOTED_FORMS = [
    f for f in FORMS if '"{v}' not in f and "'{v}" not in f and "`" not in f and "@" not in f
]
_QUOTED_FORMS = [f for f in FORMS if '"{v}"' in f]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(form=st.sampled_from(_UNQUOTED_FORMS), value=_value(UNQUOTED, 20))
def test_unquoted_forms_over_their_whole_alphabet(form: str, value: str) -> None:
    assume(_random_looking(value) and not value.startswith("-"))
    assert value not in redact(form.format(v=value))


@settings(max_examples=100, deadline=None)
@given(value=_value(string.ascii_letters + string.digits + "-._~!$&*+,;=", 20))
def test_url_credentials_over_their_whole_alphabet(value: str) -> None:
    assume(_random_looking(value))
    assert value not in redact(f"git clone https://user:{value}@git.test/x.git")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(form=st.sampled_from(_QUOTED_FORMS), value=_value(QUOTED + "'", 20))
def test_quoted_forms_over_their_whole_alphabet(form: str, value: str) -> None:
    assume(_random_looking(value) and not value.startswith((" ", "#")))
    assert value.strip() not in redact(form.format(v=value))


B64URL = string.ascii_letters + string.digits + "-_"
ALNUM = string.ascii_letters + string.digits

#: Each token shape: its fixed prefix, the alphabet and length of its random part(s).
TOKEN_SHAPES: dict[str, st.SearchStrategy[str]] = {
    "sendgrid": st.tuples(_value(B64URL, 22), _value(B64URL, 43)).map(
        lambda p: f"SG.{p[0]}.{p[1]}"
    ),
    "discord": st.tuples(_value(B64URL, 23), _value(B64URL, 6), _value(B64URL, 27)).map(
        lambda p: f"M{p[0]}.{p[1]}.{p[2]}"
    ),
    "gitlab": _value(B64URL, 20).map(lambda v: "glpat-" + v),
    "google": _value(B64URL, 35).map(lambda v: "AIza" + v),
    "openai": _value(B64URL, 40).map(lambda v: "sk-proj-" + v),
    "slack": _value(ALNUM + "-", 24).map(lambda v: "xoxb-" + v),
    "pypi": _value(B64URL, 60).map(lambda v: "pypi-AgE" + v),
    "github": _value(ALNUM, 36).map(lambda v: "ghp_" + v),
    "stripe": _value(ALNUM, 24).map(lambda v: "sk_live_" + v),
    "npm": _value(ALNUM, 36).map(lambda v: "npm_" + v),
    "jwt": st.tuples(_value(B64URL, 20), _value(B64URL, 30), _value(B64URL, 43)).map(
        lambda p: f"eyJ{p[0]}.eyJ{p[1]}.{p[2]}"
    ),
}


@pytest.mark.parametrize("shape", sorted(TOKEN_SHAPES))
def test_each_token_shape_over_its_whole_alphabet(shape: str) -> None:
    @settings(max_examples=200, deadline=None)
    @given(token=TOKEN_SHAPES[shape], around=st.sampled_from(["{}", "x {} y", "'{}'", "{}\n"]))
    def check(token: str, around: str) -> None:
        out = redact(around.format(token))
        assert token not in out and token[-12:] not in out, out

    check()


@pytest.mark.parametrize("kind", KEY_KINDS)
def test_a_deleted_private_key_in_a_diff_is_hidden(kind: str) -> None:
    text, body = private_key(kind)
    removed = "\n".join("-" + line for line in text.splitlines())
    patch = f"@@ -1,{len(body) + 2} +0,0 @@\n{removed}\n"
    out = redact(patch)
    assert not any(line in out for line in body), out
    # A body line alone with its "-" (a search hit in a diff, no BEGIN line shown).
    assert body[0] not in redact("-" + body[0])


def test_a_committed_env_file_in_a_diff_is_hidden() -> None:
    values = ["Zq8vR3kT9wLm2xYp", "a1B2c3D4e5F6g7H8-", "k3y/v4lu3+w1th=s"]
    patch = (
        "@@ -0,0 +1,4 @@\n"
        f"+API_KEY={values[0]}\n"
        f"+export DB_PASSWORD={values[1]}  # prod\n"
        f'+JWT_SECRET="{values[2]}"\n'
        "+DEBUG=1\n"
    )
    out = redact(patch)
    assert not any(value in out for value in values), out
    assert "+DEBUG=1" in out


@pytest.mark.parametrize(
    "code",
    [
        'CLIENT_AUTH = "1.3.6.1.5.5.7.3.2"',
        "user_pass = '%s:%s' % (user, passwd)",
        "credentials = '{0}:{1}'.format(user, passwd)",
        'publicKeyToken="XXXX"',
        "RC4_KEY = rc4_key_st",
        "RegEnumKey = win32api.RegEnumKey",
        'os.environ[new_key] = "test_environ_iteration"',
        "docker run -p 8080:80 -u 1000:1000 image",
        "mkdir -p build/output",
        "app --token TOKEN",
        "app --password $PASSWORD",
        'password = os.getenv("DB_PASSWORD")',
        "foo(token=token_value)",
    ],
)
def test_code_of_these_forms_stays_readable(code: str) -> None:
    assert redact(code) == code
