"""The shapes of secrets octo hides, as RE2 patterns (linear time, whatever the text).

Each :class:`Shape` is one kind of secret. Its pattern marks the secret itself with the group
``(?P<secret>...)`` when it holds more than the secret (a variable name, a quote, a header
name), so only the value is replaced and the line stays readable; without that group the
whole match is the secret. A shape may also check a candidate (``config.api_key`` is code,
not a password).

The rules follow the public shapes of gitleaks' and detect-secrets' rules (token prefixes,
lengths and alphabets); keyword assignments are octo's own, tuned to leave code readable.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass

#: A name that says its value is a secret, ending the name (``DB_PASSWORD``, ``apiKey``,
#: ``client_secret``, ``GITHUB_TOKEN``, ``token``); ``max_tokens`` or ``tokenizer`` do not.
_SECRET_NAME = (
    r"[A-Za-z0-9_.\-]*(?:"
    r"(?i:password|passwd|passphrase|secret|token|credentials?|private[_\-]?key|"
    r"api[_\-]?key|access[_\-]?key|secret[_\-]?key|client[_\-]?secret|signing[_\-]?key|"
    r"encryption[_\-]?key|master[_\-]?key|auth[_\-]?key|_pass|_auth)"
    r"|[A-Za-z0-9]_(?i:key)|Key)"
)

#: A base64 line of key material: long, and mixing upper case, lower case and digits.
_KEY_LINE_MIN = 50


def _mixed_classes(value: str, head: str) -> bool:
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


#: Values that are placeholders or words of a language, not secrets.
_PLACEHOLDER = re.compile(
    r"true|false|none|null|nil|undefined|yes|no|on|off|\$\w+|<[^>]*>|\*+|x+|\.+",
    re.IGNORECASE,
)
_DOTTED_NAME = re.compile(r"(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_TYPE_NAME = re.compile(r"[A-Z][A-Za-z]*|str|int|float|bool|bytes|dict|list|tuple|set|object")


#: A name whose only secret word is a bare ``_KEY`` / ``Key`` (``CACHE_KEY``, ``sortKey``).
_WEAK_NAME = re.compile(
    r"(?:[A-Za-z0-9]_(?i:key)|[a-z0-9]Key)[\"']?[ \t]*(?::=|=>|[:=])[ \t]*[\"']?$"
)
_STRONG_WORD = re.compile(r"secret|api|private|access|signing|encryption|master|auth", re.I)


def _looks_random(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _code_name(value: str) -> bool:
    """A dotted name without a digit reads as code (``config.api_key``,
    ``"octo.client_roots"``); with one it is a dotted secret (a JWT, ``<a>.<b>``)."""
    return _DOTTED_NAME.fullmatch(value) is not None and not any(c.isdigit() for c in value)


def _weak(head: str) -> bool:
    """The name's only secret word is a bare ``_KEY`` / ``Key`` (``CACHE_KEY``, ``sortKey``)."""
    return _WEAK_NAME.search(head) is not None and not _STRONG_WORD.search(head)


def _quoted_secret(value: str, head: str) -> bool:
    """A quoted literal is a secret unless it is a dotted name (``"octo.client_roots"``), or
    a word under a name that is only ``*_KEY`` (``CACHE_KEY = "users"``)."""
    if _code_name(value):
        return False
    if _weak(head):
        return _looks_random(value)
    return True


def _unquoted_secret(value: str, head: str) -> bool:
    """An unquoted value is a secret unless it reads as code or a placeholder.

    ``head`` is the match before the value (the name and separator): with spaces around
    ``=`` a bare word without a digit is a variable (``password = auth_info``); after
    ``:`` a type name is an annotation (``token: Token``).
    """
    if _PLACEHOLDER.fullmatch(value) or _code_name(value) or _NUMBER.fullmatch(value):
        return False
    if any(c in value for c in "()[]{}") or value.endswith((",", ";")):
        return False
    if _weak(head) and not _looks_random(value):
        return False
    if _IDENTIFIER.fullmatch(value):
        if value.lower() in head.lower():
            return False
        separator = head.rstrip()[-1:]
        spaced = head[-1:].isspace()
        if separator == "=" and spaced and not any(c.isdigit() for c in value):
            return False
        if separator == ":" and _TYPE_NAME.fullmatch(value):
            return False
    return True


def _basic_credentials(value: str, head: str) -> bool:
    """``Basic <base64>`` only when the base64 holds ``user:password``."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def _quoted_value(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The quoted value of an assignment match: inside its closing quote and the last same
    quote before it (the value holds no such quote)."""
    quote = data[end - 1 : end]
    return data.rfind(quote, start, end - 1) + 1, end - 1


def _line_value(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The unquoted value of a whole-line assignment match: after its first ``:`` or ``=``
    (nothing before the separator holds one) and the blanks after it, to the trailing blanks."""
    colon, equals = data.find(b":", start, end), data.find(b"=", start, end)
    separator = equals if colon < 0 else colon if equals < 0 else min(colon, equals)
    first = separator + 1
    while data[first] in b" \t":
        first += 1
    last = end
    while data[last - 1] in b" \t\r":
        last -= 1
    return first, last


@dataclass(frozen=True)
class Shape:
    """One kind of secret: its name in ``[REDACTED:kind]``, its RE2 pattern, and a check
    ``is_secret(value, head)`` of a candidate (``head``: the match before the value)."""

    kind: str
    pattern: str
    is_secret: Callable[[str, str], bool] | None = None
    #: A shape found by its context (a name): a value of a specific shape inside keeps
    #: that shape's kind.
    by_context: bool = False
    #: Where the secret lies in a match ``data[start:end]``, told without RE2's group search
    #: (which costs more than all else redaction does per match): for the common shapes.
    value_span: Callable[[bytes, int, int], tuple[int, int]] | None = None


_GITLAB = (
    r"\b(?:(?:glpat|gldt|glrt|glptt|glft|glimt|glagent|glsoat|gloas|glcbt|glffct)-"
    r"[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,})"
)
_AWS_SECRET = (
    r"(?i:aws_?secret_?access_?key|aws_?secret_?key|aws_?session_?token|secret_?access_?key)"
    r"[\"']?[ \t]*[:=][ \t]*[\"']?(?P<secret>[A-Za-z0-9/+=]{40,})"
)
_SLACK_WEBHOOK = (
    r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/+\-]{20,})"
)
_AUTHORIZATION = (
    r"(?i:\b(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:basic|bearer|token|digest)"
    r"[ \t]+)(?P<secret>[A-Za-z0-9._~+/=\-]{8,})"
)
_QUOTED_VALUE = r"(?:\"(?P<secret>[^\"\n]{4,})\"|'(?P<secret_q>[^'\n]{4,})')"

SHAPES: tuple[Shape, ...] = (
    # Private keys written on one line (JSON's "-----BEGIN ...-----\nMII...\n"); blocks over
    # several lines are followed line by line in redaction.py.
    Shape(
        "private-key",
        r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----(?P<secret>\\[rn](?:\\[rn]|[A-Za-z0-9+/= :])*)",
    ),
    Shape("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})"),
    Shape("gitlab-token", _GITLAB),
    Shape("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    Shape("aws-secret", _AWS_SECRET),
    Shape("slack-token", r"\bxox(?:[abposr]|e(?:\.xox[bp])?)-[A-Za-z0-9\-]{10,}"),
    Shape("slack-webhook", _SLACK_WEBHOOK),
    Shape("stripe-key", r"\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,99}\b"),
    Shape("sendgrid-key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"),
    Shape("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    Shape(
        "discord-token", r"\b[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}\b"
    ),
    Shape("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    Shape("azure-storage-key", r"(?i:AccountKey)=(?P<secret>[A-Za-z0-9+/=]{20,})"),
    Shape("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    Shape("pypi-token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
    Shape("openai-key", r"\bsk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}"),
    Shape("jwt", r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
    Shape("authorization", _AUTHORIZATION),
    Shape("bearer", r"(?i:\bbearer[ \t]+)(?P<secret>[A-Za-z0-9._~+/\-]{20,}=*)"),
    Shape(
        "basic-auth",
        r"(?i:\bbasic[ \t]+)(?P<secret>[A-Za-z0-9+/]{8,}={0,2})",
        is_secret=_basic_credentials,
    ),
    Shape(
        "url-credentials",
        r"\b[A-Za-z][A-Za-z0-9+.\-]*://(?P<secret>[^\s:/@\"'<>]+:[^\s@/\"'<>]{3,})@",
    ),
    Shape(
        "npm-auth",
        r"(?:(?m:^)[ \t]*|:)(?:_authToken|_auth|_password)[ \t]*=[ \t]*(?P<secret>[^\s\"']{6,})",
    ),
    Shape("netrc-password", r"(?i:\blogin[ \t]+\S+[ \t]+password[ \t]+)(?P<secret>\S+)"),
    # NAME = "literal" in any language or format (also "name": "value" in JSON); only quoted
    # literals, so ``password = read_password()`` stays readable.
    Shape(
        "secret",
        _SECRET_NAME + r"[\"']?[ \t]*(?::=|=>|[:=])[ \t]*" + _QUOTED_VALUE,
        is_secret=_quoted_secret,
        by_context=True,
        value_span=_quoted_value,
    ),
    # A whole line NAME=value / NAME: value (.env, ini, YAML, shell; commented out too),
    # value unquoted.
    Shape(
        "secret",
        r"(?m:^[ \t]*(?:(?:#|//|--|;)[ \t]*)?(?:export[ \t]+|-[ \t]+)?"
        + _SECRET_NAME
        + r"[ \t]*[:=][ \t]*(?P<secret>[^\s\"'#`]{4,})[ \t]*\r?$)",
        is_secret=_unquoted_secret,
        by_context=True,
        value_span=_line_value,
    ),
    # A line of base64 key material seen without its BEGIN line (a search hit in a key body).
    Shape(
        "key-material",
        rf"(?m:^[ \t+]*(?P<secret>[A-Za-z0-9+/]{{{_KEY_LINE_MIN},}}={{0,2}})[ \t]*\r?$)",
        is_secret=_mixed_classes,
    ),
)


#: What every line holding one of :data:`SHAPES` also holds (a superset, in the syntax RE2 and
#: ripgrep share): each shape without the costly part of its value, so ripgrep finds the files
#: that may hold a secret at nearly the speed of a plain search (the shapes themselves cost it
#: fifty times more). tests/security/test_count_oracle.py checks that it misses none.
PREFILTER = (
    r"(?i:password|passwd|passphrase|secret|token|credentials?|key|_pass|_auth|authorization)"
    r"[\"']?[ \t]*(?::=|=>|[:=])"
    r"|(?i:bearer|basic)[ \t]+[A-Za-z0-9+/]{8}|(?i:login)[ \t]+\S+[ \t]+(?i:password)"
    r"|gh[pousr]_[A-Za-z0-9]{30}|github_pat_|GR1348941"
    r"|gl(?:pat|dt|rt|ptt|ft|imt|agent|soat|oas|cbt|ffct)-"
    r"|(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}|xox[abposre]|hooks\.slack\.com|[sr]k_(?:live|test|prod)_"
    r"|SG\.[A-Za-z0-9_\-]{22}\.|SK[0-9a-fA-F]{32}|AIza[0-9A-Za-z_\-]{35}|npm_[A-Za-z0-9]{36}"
    r"|pypi-AgE|sk-[A-Za-z0-9_\-]{20}|eyJ[A-Za-z0-9_\-]{10}|://[^\s:/@\"'<>]+:[^\s@/\"'<>]{3,}@"
    r"|[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.|PRIVATE KEY|[A-Za-z0-9+/]{50}"
)
