"""A credential given as a pair or an unpacking is redacted at the password's place, not the
user's: ``user, password = "wile", "coyote"`` (the value at the secret-named target's
position), an auth pair assigned to a name ending in auth, credentials or creds, or passed
as ``auth=(...)``, the basic-auth constructors (``HTTPBasicAuth("user", "pw")``) and a
client's ``.login("user", "pw")``: the second item is the secret; Node's ``auth: "u:p"`` and
nodemailer's ``user: "u", pass: "p"``. Found missed in the standard library's tests by the
review of the redaction bench's markers."""

from __future__ import annotations

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
from tests.security.test_redaction_every_form import QUOTED
from tests.security.test_redaction_every_form import _random_looking
from tests.security.test_redaction_every_form import _value

USER = "wile.e@acme.test"
FORMS = (
    # Python unpacking
    'user, password = "{u}", "{v}"',
    "user, password = '{u}', '{v}'",
    '(user, password) = ("{u}", "{v}")',
    'self.user, self.password = "{u}", "{v}"',
    '    password, user = "{v}", "{u}"  # fixture',
    'host, user, api_key = "db.test", "{u}", "{v}"',
    '+user, password = "{u}", "{v}"',
    # JavaScript / TypeScript destructuring
    'const [user, password] = ["{u}", "{v}"];',
    "let [user, apiToken] = ['{u}', '{v}']",
    # Auth pairs: assigned, passed by keyword, in PHP arrays
    "sim_auth = ('{u}', '{v}')",
    'AUTH = ["{u}", "{v}"]',
    'credentials = ("{u}", "{v}")',
    'creds: tuple[str, str] = ("{u}", "{v}")',
    'requests.get(url, auth=("{u}", "{v}"))',
    'httpx.Client(auth=("{u}", "{v}"), timeout=5)',
    'session.auth = (user, "{v}")',
    "    'auth' => ['{u}', '{v}'],",
    # Basic-auth constructors and calls
    'HTTPBasicAuth("{u}", "{v}")',
    'requests.auth.HTTPDigestAuth("{u}", "{v}")',
    'aiohttp.BasicAuth("{u}", "{v}", encoding="utf-8")',
    'httpx.BasicAuth("{u}", "{v}")',
    'request(app).get("/").auth("{u}", "{v}")',
    'smtp.login("{u}", "{v}")',
    "    ftp.login('{u}', '{v}')",
    # Node's http.request option, nodemailer's auth object
    'http.request({{ host, auth: "{u}:{v}" }})',
    "const options = {{ auth: '{u}:{v}' }};",
    'auth: {{ user: "{u}", pass: "{v}" }},',
    '  auth: {{\n    user: "{u}",\n    pass: "{v}"\n  }}',
)
VALUE = "Zq8v-R3kT.9wLm_2xYp"


@pytest.mark.parametrize("form", FORMS)
def test_the_password_of_a_pair_is_redacted_and_the_user_shown(form: str) -> None:
    out = redact(form.format(u=USER, v=VALUE))
    assert VALUE not in out, out
    assert USER in out or "{u}" not in form, out


@pytest.mark.parametrize(
    ("line", "password"),
    [
        ('user, password = "wile", "coyote"', "coyote"),
        ("user, password = 'wile', 'coyote'", "coyote"),
        ("sim_auth = ('Mr.A@somewhere.com', 'somepassword')", "somepassword"),
    ],
)
def test_the_missed_lines_of_the_review(line: str, password: str) -> None:
    out = redact(line)
    assert password not in out, out
    assert out.count("[REDACTED:") == 1, out


@pytest.mark.parametrize("form", FORMS)
def test_a_redacted_pair_is_redacted_once(form: str) -> None:
    out = redact(form.format(u=USER, v=VALUE))
    assert redact(out) == out


@pytest.mark.parametrize(
    "line",
    [
        'consumer_key, consumer_secret = "Zq8v-R3kT.9wLm_2xYp", "k3y/v4lu3+w1th=s"',
        'api_token, user, password = "Zq8v-R3kT.9wLm_2xYp", "wile", "k3y/v4lu3+w1th=s"',
        'const [apiKey, apiSecret] = ["Zq8v-R3kT.9wLm_2xYp", "k3y/v4lu3+w1th=s"];',
    ],
)
def test_every_secret_of_an_unpacking_is_redacted(line: str) -> None:
    out = redact(line)
    assert VALUE not in out and "k3y/v4lu3+w1th=s" not in out, out
    assert "wile" in out or "wile" not in line, out


def test_the_prefilter_finds_every_form() -> None:
    prefilter = re2.compile(PREFILTER)
    texts = [form.format(u=USER, v=VALUE) for form in FORMS]
    missed = [t for t in texts if not any(prefilter.search(line) for line in t.split("\n"))]
    assert missed == []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(form=st.sampled_from(FORMS), value=_value(QUOTED, 20))
def test_pairs_over_the_whole_quoted_alphabet(form: str, value: str) -> None:
    quote = form[form.index("{v}") + 3]
    assume(_random_looking(value) and not value.startswith((" ", "#")) and quote not in value)
    # A placeholder (``"<password>"``) is no secret; ``auth: "user://..."`` is a URL.
    assume(not (value.startswith("<") and value.endswith(">")) and not value.startswith("//"))
    assert value.strip() not in redact(form.format(u=USER, v=value))


@settings(max_examples=100, deadline=None)
@given(user=_value(string.ascii_letters + string.digits + "@._-", 12))
def test_any_user_of_a_pair_stays_readable(user: str) -> None:
    line = f'user, password = "{user}", "{VALUE}"'
    out = redact(line)
    assert out == f'user, password = "{user}", "[REDACTED:secret]"'


@pytest.mark.parametrize(
    "code",
    [
        'a, b = "left", "right"',
        "user, password = get_credentials()",
        "user, password = sim_auth",
        'auth = ("basic", token)',
        "auth=(user, password)",
        "self.user, self.password = user, password",
        "smtp.user, smtp.password = sim_auth",
        'AUTH_METHODS = ("PLAIN", "LOGIN")',
        'if lastToken == "x", y:',
        "auth: 'https://auth.test/token'",
        'auth = "basic"',
        "smtp.login(user, password)",
        '{ user: "me", pass: true }',
    ],
)
def test_code_of_these_forms_stays_readable(code: str) -> None:
    assert redact(code) == code


@pytest.mark.parametrize(
    "line",
    [
        # A keyword argument after a positional one: no unpacking, the keyword's value.
        '    user, password="Zq8v-R3kT.9wLm_2xYp", timeout=3)',
        # JavaScript's multiple declaration: token is "Zq8v...", not b.
        'let a, token = "Zq8v-R3kT.9wLm_2xYp", b;',
        'user, password = "wile", "Zq8v-R3kT.9wLm_2xYp"; token = "Zq8v-R3kT.9wLm_2xYp"',
    ],
)
def test_what_the_other_detectors_find_stays_found(line: str) -> None:
    assert VALUE not in redact(line)
