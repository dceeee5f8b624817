"""Redaction cannot be crashed, slowed or dodged: one pass over the text (a value holding
``password=`` again is not redacted again), linear whatever the text, and every assignment
form of a ``*_SECRET``, ``*_TOKEN``, ``*_KEY``, ``*_PASSWORD`` or ``*_PASSPHRASE`` name is
caught, generated over names, forms and value alphabets."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import re2

import octo
from octo.core.config import Config
from octo.core.secrets.detectors import DETECTORS
from octo.core.secrets.redaction import redact

_SUFFIXES = ("SECRET", "TOKEN", "KEY", "PASSWORD", "PASSPHRASE")
_PREFIXES = ("JWT", "SESSION", "MY_APP", "DB")
#: Values with each character a value may hold: dots (a JWT), slashes, ``+``, ``=``, ``-``.
_VALUES = (
    "q8Xv2mLp.R7tYz4Kw.n3Bc9Hd",
    "a1B2c3D4/e5F6g7H8/i9J0",
    "Zx9+Qw8+Er7/Ty6==",
    "k3y-v4lu3-w1th-d4sh3s",
    "s3cr3t.v4lu3",
)
#: Every assignment form: bare, export, quoted either way, spaced, JSON, YAML, TOML, code.
_FORMS = (
    "{NAME}={value}",
    "export {NAME}={value}",
    '{NAME}="{value}"',
    "{NAME}='{value}'",
    'export {NAME}="{value}"',
    "export {NAME}='{value}'",
    '{NAME} = "{value}"',
    "{NAME} = '{value}'",
    '{{"{name}": "{value}"}}',
    '  "{name}": "{value}",',
    "{name}: {value}",
    '  {name}: "{value}"',
    "  - {name}: '{value}'",
    '{name} = "{value}"',
    'const {NAME} = "{value}";',
    "# {NAME}={value}",
)

CASES = [
    form.format(NAME=f"{prefix}_{suffix}", name=f"{prefix}_{suffix}".lower(), value=value)
    for prefix, suffix, value, form in itertools.product(_PREFIXES, _SUFFIXES, _VALUES, _FORMS)
]


@pytest.mark.slow
def test_every_assignment_form_is_redacted() -> None:
    escaped = [case for case in CASES if any(v in redact(case) for v in _VALUES)]
    assert escaped == [], f"{len(escaped)} of {len(CASES)} escaped, e.g. {escaped[:5]}"


@pytest.mark.parametrize(
    "line",
    [
        'JWT_SECRET = "q8Xv2mLp.R7tYz4Kw.n3Bc9Hd"',
        '{"jwt_secret": "q8Xv2mLp.R7tYz4Kw.n3Bc9Hd"}',
        "export SESSION_SECRET=q8Xv2mLp.R7tYz4Kw",
    ],
)
def test_dotted_values_of_the_issue_are_redacted(line: str) -> None:
    assert "q8Xv2mLp" not in redact(line)


@pytest.mark.parametrize("repeats", [150, 400, 10_000])
def test_a_line_of_repeated_assignments_is_one_pass(repeats: int) -> None:
    line = "password=" * repeats
    out = redact(line)
    assert out == "password=[REDACTED:secret]"
    assert redact(out) == out
    assert redact(f"x\n{line}\ny") == f"x\n{out}\ny"


def test_a_value_holding_a_known_shape_is_named_by_it() -> None:
    token = "ghp_" + "a1B2" * 9
    assert redact(f'GITHUB_TOKEN = "{token}"') == 'GITHUB_TOKEN = "[REDACTED:github-token]"'


@pytest.mark.timeout(30)
def test_a_megabyte_of_repeated_assignments_is_linear() -> None:
    # Quadratic work (a re-scan of each replaced value) takes minutes here.
    redact("password=" * 120_000)
    redact("\n".join(["JWT_SECRET=password=password=" * 50] * 700))


async def test_a_file_and_a_goal_of_repeated_assignments_answer(tmp_path: Path) -> None:
    line = "password=" * 400
    (tmp_path / "app.txt").write_text(f"{line}\nother\n")
    async with octo.Gateway(Config(), roots=[tmp_path]) as gateway:
        queries = [
            {"pattern": "password", "path": ".", "researchGoal": line},
            {"pattern": "password", "path": ".", "outputMode": "totalOnly"},
        ]
        search = (await gateway.call("localSearchCode", queries)).to_wire()["results"]
        read = await gateway.call(
            "localGetFileContent", [{"path": "app.txt", "researchGoal": line}]
        )
    assert [r["status"] for r in search] == ["success", "success"]
    assert search[0]["researchGoal"] == "password=[REDACTED:secret]"
    assert read.to_wire()["results"][0]["status"] == "success"
    assert line not in str(read.to_wire())


_ODD_LINES = (
    "DB_PASSWORD=a:b=c  \r",
    "DB_PASSWORD :\t x=y:z\t",
    "  - api_key: v4lu3:w1th=s3p",
    "# SECRET_KEY = \"it's a 'secret'\"",
    "token = 'say \"hi\" 123'",
    'x = {"password": "p:a=s\'s"}',
)


def test_the_cheap_value_span_agrees_with_the_shape_pattern() -> None:
    """Detectors that tell their secret's span without RE2's group search tell the span the
    group would: over every generated form and lines with separators inside the value."""
    checked = 0
    for detector in DETECTORS:
        if detector.value_span is None:
            continue
        pattern = re2.compile(detector.pattern)
        for line in (*CASES, *_ODD_LINES):
            data = line.encode()
            for match in pattern.finditer(data):
                groups = [i for name, i in pattern.groupindex.items() if name.startswith("secret")]
                group = next(number for number in groups if match.start(number) >= 0)
                assert detector.value_span(data, *match.span()) == match.span(group), line
                checked += 1
    assert checked >= len(CASES)
