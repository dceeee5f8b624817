"""Redaction a block at a time (so a huge file's read can stop at its deadline) hides exactly
what redaction of the whole text hides, and skipping the patterns a text has no anchor for
changes nothing."""

from __future__ import annotations

import re

from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from octo.core import redaction
from octo.core.redaction import redact
from octo.core.redaction import redact_in_blocks

PIECES = [
    "ghp_" + "a1B2c3D4" * 5,
    "AKIA0123456789ABCDEF",
    "glpat-" + "x" * 24,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlc2lnbmF0dXJl",
    "Bearer ",
    "bearer",
    "abcdefghijklmnopqrstuvwxyz0123",
    "password",
    "pa\u017f\u017fword",
    "client_secret",
    "API_KEY=",
    "DB_PASSWORD=",
    "export ",
    "https://user:hunter22@",
    "hunter22secret",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX\n-----END PRIVATE KEY-----",
    "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu",
    " = ",
    ": ",
    "=",
    ":",
    '"',
    "'",
    " ",
    "\t",
    "\n",
    "\n",
    "\n  ",
    "x",
    "#",
    "@",
]


def _whole_text_reference(text: str) -> str:
    """redact(keep_lines=True) as it was: every pattern run over the whole text, in order."""
    for kind, pattern in redaction._SECRET_PATTERNS:
        marker = f"[REDACTED:{kind}]"
        text = pattern.sub(lambda m, marker=marker: marker + "\n" * m[0].count("\n"), text)
    text = redaction._ENV_LINE.sub(lambda m: f"{m.group(1)}[REDACTED:secret]", text)
    return redaction._ASSIGNMENT.sub(
        lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}[REDACTED:secret]{m.group(3)}", text
    )


_SPACE = st.sampled_from(["", " ", "\n", " \n ", "\n\n", "\t"])
# Assignments whose parts may sit on separate lines: a block must never end inside one.
_ASSIGNMENTS = st.builds(
    lambda key, before, op, after, quote: f"{key}{before}{op}{after}{quote}hunter22!{quote}",
    st.sampled_from(["password", "api_key", "x"]),
    _SPACE,
    st.sampled_from(["=", ":"]),
    _SPACE,
    st.sampled_from(['"', "'"]),
)
texts = st.lists(st.one_of(st.sampled_from(PIECES), _ASSIGNMENTS), max_size=60).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=texts, block=st.integers(min_value=1, max_value=40))
@example(text="x\npassword\n='hunter22secret'\n", block=1)
@example(text="-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n", block=1)
@example(text="x\nBearer abcdefghijklmnopqrstuvwxyz0123\n", block=1)
def test_blocks_redact_as_the_whole_text_does(text: str, block: int) -> None:
    calls: list[None] = []
    expected = _whole_text_reference(text)
    assert redact(text, keep_lines=True) == expected
    assert redact_in_blocks(text, between=lambda: calls.append(None), block=block) == expected


def test_a_long_text_is_cut_into_blocks_with_a_look_at_the_deadline_between() -> None:
    text = "password = 'hunter22secret'\n" * 1000
    looks: list[None] = []
    done = redact_in_blocks(text, between=lambda: looks.append(None), block=1000)
    assert len(looks) > 20
    assert "hunter22" not in done
    assert re.fullmatch(r"(password = '\[REDACTED:secret\]'\n){1000}", done)
