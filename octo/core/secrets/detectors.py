"""The detectors of secrets octo hides, as RE2 patterns (linear time, whatever the text).

Each :class:`Detector` is one kind of secret. Its pattern marks the secret itself with the group
``(?P<secret>...)`` when it holds more than the secret (a variable name, a quote, a header
name), so only the value is replaced and the line stays readable; without that group the
whole match is the secret. A detector may also check a candidate (``config.api_key`` is code,
not a password).

The patterns follow the public rules of gitleaks and detect-secrets (token prefixes,
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

#: A base64 line of key material: as wide as PEM and PGP (64) or OpenSSH (70) wrap keys, and
#: mixing upper case, lower case and digits (MIME's 76-character lines are mail, not keys).
_KEY_LINE = r"[A-Za-z0-9+/]{62}[A-Za-z0-9+/=]{2}|[A-Za-z0-9+/]{68}[A-Za-z0-9+/=]{2}"


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
#: The same in quotes, where a variable is ``"$DB_PASS"`` or ``"${DB_PASS}"``.
_QUOTED_PLACEHOLDER = re.compile(
    r"true|false|none|null|nil|undefined|\$[A-Z_][A-Z0-9_]*|\$\{[^}]*\}|<[^>]*>|\*+|x+|\.+",
    re.IGNORECASE,
)
_DOTTED_NAME = re.compile(r"(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
#: Code after a spaced ``=``: a snake_case name or a dotted one, digits or not.
_SNAKE_OR_DOTTED = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*")
_TYPE_NAME = re.compile(r"[A-Z][A-Za-z]*|str|int|float|bool|bytes|dict|list|tuple|set|object")


#: A name whose only secret word is a bare ``_KEY`` / ``Key`` (``CACHE_KEY``, ``sortKey``).
_WEAK_NAME = re.compile(
    r"(?:[A-Za-z0-9]_(?i:key)|[a-z0-9]Key)[\"'`]?\]?(?:[ \t]*:[^=\n]*)?[ \t]*(?::=|=>|[:=])"
    r"[ \t]*\(?[\w.]*\(?(?:default[ \t]*=[ \t]*)?[bBrRuUfF]{0,2}[\"'`]{0,3}$"
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


#: A literal that only formats or numbers: ``"{0}:{1}"``, ``"%s:%s"``, an OID.
_TEMPLATE = re.compile(
    r"(?:%[-+ #0-9.]*[a-zA-Z]|\{(?:\d+|[A-Za-z_]\w*(?:\.\w+)*)?(?:![rsa])?(?::[^{}]{0,20})?\}"
    r"|[^A-Za-z0-9])*|[0-9.:\-]+"
)


#: The words of a name or a value: ``reset_password``, ``RESET_PASSWORD`` and
#: ``resetPassword`` are each "reset" and "password".
_NAME_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
#: Regex and glob syntax: no key holds it (``VALID_KEY = "[a-z][_0-9a-z-*/]{0,255}"``).
_PATTERN_SYNTAX = re.compile(r"[\[\]{}()*?\\^$|]")


#: The Fetch standard's credentials modes (``fetch(url, {credentials: "same-origin"})``,
#: ``type RequestCredentials = "include" | ...``): words of the API, not credentials.
_FETCH_MODES = frozenset({"include", "omit", "same-origin"})
_FETCH_CREDENTIALS = re.compile(r"(?i:credentials)[\"']?[ \t]*[:=][ \t]*[\"'`]$")
#: A dotted name of lower-case words, each maybe ending in digits (``aws.s3.key``,
#: ``http.v2.path``; not ``s3cr3t.v4lu3``).
_LOWER_DOTTED = re.compile(r"[a-z]+[0-9]*(?:\.[a-z]+[0-9]*)+")


def _names_itself(value: str, head: str) -> bool:
    """An enum constant: the value is its name's last words (``..._VALUE_SECRET =
    "secret"``, ``..._RESET_PASSWORD = "reset_password"``, ``password: "password"``)."""
    if not _IDENTIFIER.fullmatch(value.replace("-", "_")):
        return False
    said = [word.lower() for word in _NAME_WORD.findall(value)]
    name = [word.lower() for word in _NAME_WORD.findall(head)]
    return bool(said) and name[-len(said) :] == said


def _quoted_secret(value: str, head: str) -> bool:
    """A quoted literal is a secret unless it is a dotted name (``"octo.client_roots"``), a
    placeholder or a template (``"XXXX"``, ``"{0}:{1}"``), its own name's last words (an
    enum constant), a Fetch credentials mode (``credentials: "same-origin"``), or under a
    name that is only ``*_KEY`` a word, a pattern or a lower-case dotted name
    (``CACHE_KEY = "users"``, ``VALID_KEY = "[a-z]{0,255}"``, ``S3_KEY = "aws.s3.key"``)."""
    if _code_name(value) or _QUOTED_PLACEHOLDER.fullmatch(value) or _TEMPLATE.fullmatch(value):
        return False
    if _names_itself(value, head) or (value in _FETCH_MODES and _FETCH_CREDENTIALS.search(head)):
        return False
    if _weak(head):
        return (
            _looks_random(value)
            and not _PATTERN_SYNTAX.search(value)
            and not _LOWER_DOTTED.fullmatch(value)
        )
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
    # A spaced ``=`` before a snake_case or dotted name: ``RC4_KEY = rc4_key_st``,
    # ``RegEnumKey = win32api.RegEnumKey``.
    spaced_code = head[-1:].isspace() and head.rstrip()[-1:] == "="
    return not (spaced_code and _SNAKE_OR_DOTTED.fullmatch(value))


def _any_secret(value: str, head: str) -> bool:
    """A quoted or an unquoted value, each told by its own rule."""
    if head.endswith(('"', "'", "`")):
        return _quoted_secret(value, head)
    return _unquoted_secret(value, head)


def _basic_credentials(value: str, head: str) -> bool:
    """``Basic <base64>`` only when the base64 holds ``user:password``."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def _quoted_value(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The quoted value of an assignment match: inside its closing quote and the last same
    quote before it that no backslash escapes (the value holds only escaped ones)."""
    quote = data[end - 1 : end]
    at = end - 1
    while True:
        at = data.rfind(quote, start, at)
        slashes = 0
        while at - 1 - slashes >= start and data[at - 1 - slashes] == 0x5C:  # a backslash
            slashes += 1
        if slashes % 2 == 0:
            return at + 1, end - 1


def _line_value(data: bytes, start: int, end: int) -> tuple[int, int]:
    """The unquoted value of a whole-line assignment match: after its first ``:`` or ``=``
    (nothing before the separator holds one) and the blanks after it, to the first blank
    (a value holds none; a comment may follow it)."""
    colon, equals = data.find(b":", start, end), data.find(b"=", start, end)
    separator = equals if colon < 0 else colon if equals < 0 else min(colon, equals)
    first = separator + 1
    while data[first] in b" \t":
        first += 1
    last = first
    while last < end and data[last] not in b" \t\r":
        last += 1
    return first, last


#: The first item of a list in code: a name, a dotted one or a negation, without a digit
#: (``r,d.name=i``, ``this.token,this.token=next``, ``!0,this.print_token``, ``null,!1``).
_CODE_LIST_HEAD = re.compile(r"!?[A-Za-z_$][A-Za-z_$.]*|![0-9]")


def _inline_secret(value: str, head: str) -> bool:
    """An unquoted value in the middle of a line (a command's option, ``-e NAME=v``): as
    :func:`_unquoted_secret`, and a bare word without a digit is a variable there, and so
    is a list of code that starts with one (minified JavaScript's ``x.token=r,x.name=i``);
    ``x.token===18`` is a comparison."""
    if _IDENTIFIER.fullmatch(value) and not any(c.isdigit() for c in value):
        return False
    if _COMPARED.fullmatch(value):
        return False
    return not _code_list(value) and _unquoted_secret(value, head)


#: What follows ``name=`` in a strict comparison (``e.token===67174411?a:b``): the rest of
#: the operator and a number or a name, then an operator.
_COMPARED = re.compile(r"==(?:[0-9]+|[A-Za-z_$][\w$]*)(?:[?&|)].*)?")


def _code_list(value: str) -> bool:
    """A list of code: its first item a negation, a dotted name or one letter, or a name
    followed by an assignment, a member or an operator (``r,d.name=i``, ``null,!1``);
    ``abc,def9`` is no code."""
    first, comma, rest = value.partition(",")
    if not comma or not _CODE_LIST_HEAD.fullmatch(first):
        return False
    return first[0] == "!" or "." in first or len(first) == 1 or any(c in rest for c in "=.!*")


@dataclass(frozen=True)
class Detector:
    """One kind of secret: its name in ``[REDACTED:kind]``, its RE2 pattern, and a check
    ``is_secret(value, head)`` of a candidate (``head``: the match before the value)."""

    kind: str
    pattern: str
    is_secret: Callable[[str, str], bool] | None = None
    #: A detector found by its context (a name): a value of a specific detector inside keeps
    #: that detector's kind.
    by_context: bool = False
    #: Where the secret lies in a match ``data[start:end]``, told without RE2's group search
    #: (which costs more than all else redaction does per match): for the common detectors.
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
#: A quoted literal: either quote, tripled too, a backtick (a JS template), a Python prefix.
_QUOTED_VALUE = (
    r"[bBrRuUfF]{0,2}(?:\"(?:\"\")?(?P<secret>(?:[^\"\\\n]|\\.){4,})\""
    r"|'(?:'')?(?P<secret_q>(?:[^'\\\n]|\\.){4,})'|`(?P<secret_b>(?:[^`\\\n]|\\.){4,})`)"
)
#: Between a name and its quoted value: a closing quote and bracket (``environ["KEY"]``), a
#: type annotation (``DB_PASSWORD: str``), the separator, and a field or secret wrapper
#: (``Field(default=``, ``SecretStr(``).
_ASSIGNED = (
    r"[\"'`]?\]?(?:[ \t]*:[ \t]*[A-Za-z_][\w.\[\], |]{0,60})?[ \t]*(?::=|=>|[:=])[ \t]*\(?"
    r"(?:(?:Secret(?:Str|Bytes)?|Field|field)\([ \t]*(?:default[ \t]*=[ \t]*)?)?"
)
#: A line's start: a diff's ``+``/``-`` (a space is a blank), blanks, a comment mark.
_LINE_START = r"^[+\-]?[ \t]*(?:(?:#|//|--|;|(?i:rem)[ \t])[ \t]*)?"
#: An unquoted value in the middle of a line: up to a blank, quote or shell operator.
_INLINE_VALUE = r"(?P<secret>[^\s\"'`;&|<>()]{4,})"

DETECTORS: tuple[Detector, ...] = (
    # Private keys written on one line (JSON's "-----BEGIN ...-----\nMII...\n"); blocks over
    # several lines are followed line by line in redaction.py.
    Detector(
        "private-key",
        r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----(?P<secret>\\[rn](?:\\[rn]|[A-Za-z0-9+/= :])*)",
    ),
    Detector(
        "github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})"
    ),
    Detector("gitlab-token", _GITLAB),
    Detector("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    Detector("aws-secret", _AWS_SECRET),
    Detector("slack-token", r"\bxox(?:[abposr]|e(?:\.xox[bp])?)-[A-Za-z0-9\-]{10,}"),
    Detector("slack-webhook", _SLACK_WEBHOOK),
    Detector("stripe-key", r"\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,99}\b"),
    # No word boundary after a base64url value: it may end in "-".
    Detector("sendgrid-key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"),
    Detector("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    Detector(
        "discord-token", r"\b[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}"
    ),
    Detector("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    Detector("azure-storage-key", r"(?i:AccountKey)=(?P<secret>[A-Za-z0-9+/=]{20,})"),
    Detector("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    Detector("pypi-token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
    Detector("openai-key", r"\bsk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}"),
    Detector("jwt", r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
    Detector("authorization", _AUTHORIZATION),
    Detector("bearer", r"(?i:\bbearer[ \t]+)(?P<secret>[A-Za-z0-9._~+/\-]{20,}=*)"),
    Detector(
        "basic-auth",
        r"(?i:\bbasic[ \t]+)(?P<secret>[A-Za-z0-9+/]{8,}={0,2})",
        is_secret=_basic_credentials,
    ),
    Detector(
        "url-credentials",
        r"\b[A-Za-z][A-Za-z0-9+.\-]*://(?P<secret>[^\s:/@\"'<>]+:[^\s@/\"'<>]{3,})@",
    ),
    Detector(
        "npm-auth",
        r"(?:(?m:^)[+\-]?[ \t]*|:)(?:_authToken|_auth|_password)[ \t]*=[ \t]*(?P<secret>[^\s\"']{6,})",
    ),
    Detector("netrc-password", r"(?i:\blogin[ \t]+\S+[ \t]+password[ \t]+)(?P<secret>\S+)"),
    # NAME = "literal" in any language or format (also "name": "value" in JSON, annotated
    # and wrapped fields); only quoted literals, so ``password = read_password()`` stays
    # readable.
    Detector(
        "secret",
        _SECRET_NAME + _ASSIGNED + _QUOTED_VALUE,
        is_secret=_quoted_secret,
        by_context=True,
        value_span=_quoted_value,
    ),
    # A default given with the name: os.getenv("NAME", "v"), environ.get, env(..., default=).
    Detector(
        "secret",
        r"\b(?:getenv|get|setdefault|pop|env)\([ \t]*[\"']"
        + _SECRET_NAME
        + r"[\"'][ \t]*,[ \t]*(?:default[ \t]*=[ \t]*)?"
        + _QUOTED_VALUE,
        is_secret=_quoted_secret,
        by_context=True,
        value_span=_quoted_value,
    ),
    # A whole line NAME=value / NAME: value (.env, ini, YAML, shell; commented out too),
    # value unquoted.
    Detector(
        "secret",
        r"(?m:"
        + _LINE_START
        + r"(?:(?i:export|env|arg|set|setx|readonly|declare[ \t]+-x)[ \t]+|-[ \t]+)?"
        + _SECRET_NAME
        + r"[ \t]*[:=][ \t]*(?P<secret>[^\s\"'#`]{4,})(?:[ \t]+#[^\n]*)?[ \t]*\r?$)",
        is_secret=_unquoted_secret,
        by_context=True,
        value_span=_line_value,
    ),
    # Dockerfile ENV NAME value (the form without "=").
    Detector(
        "secret",
        r"(?m:^[+\-]?[ \t]*(?i:env)[ \t]+"
        + _SECRET_NAME
        + r"[ \t]+(?P<secret>[^\s\"'#`]{4,})[ \t]*\r?$)",
        is_secret=_unquoted_secret,
        by_context=True,
    ),
    # NAME=value inside a line: docker run -e NAME=v, NAME=v cmd, --password=v, -DNAME=v.
    Detector(
        "secret",
        r"(?:^|[ \t])[\"']?" + _SECRET_NAME + "=" + _INLINE_VALUE,
        is_secret=_inline_secret,
        by_context=True,
    ),
    # An option and its value: --password v, --token v.
    Detector(
        "secret",
        r"(?:^|[ \t])--?(?i:password|passwd|pass|token|secret|api-?key|access-key|secret-key"
        r"|client-secret|auth-token)[ \t]+" + _INLINE_VALUE,
        is_secret=_inline_secret,
        by_context=True,
    ),
    # A password option of database and remote-shell clients: mysql -p v, mysql -pv,
    # sshpass -p v, redis-cli -a v.
    Detector(
        "secret",
        r"\b(?:mysql\w*|mariadb\w*|sshpass|redis-cli)\b[^\n]{0,200}?[ \t]-[pa][ \t]?"
        r"(?P<secret>[^\s\"'`;&|<>()\-][^\s\"'`;&|<>()]{3,})",
        is_secret=_unquoted_secret,
        by_context=True,
    ),
    # curl -u user:password (and wget's, httpie's).
    Detector(
        "secret",
        r"\b(?:curl|wget|http|https)\b[^\n]{0,200}?[ \t](?:-u|--user|--proxy-user|-U|-a|--auth)"
        r"[ \t=]+[\"']?[^\s:\"']*:(?P<secret>[^\s\"'`;&|<>()]{3,})",
        is_secret=_unquoted_secret,
        by_context=True,
    ),
    # XML: <DB_PASSWORD>v</DB_PASSWORD>.
    Detector(
        "secret",
        r"<" + _SECRET_NAME + r">(?P<secret>[^<\s][^<\n]{2,}[^<\s])</",
        is_secret=_unquoted_secret,
        by_context=True,
    ),
    # Kubernetes env entries: "- name: X_PASSWORD" and "value: v" on the next line.
    Detector(
        "secret",
        r"(?m:^[+\-]?[ \t]*-[ \t]+name:[ \t]*[\"']?"
        + _SECRET_NAME
        + r"[\"']?[ \t]*\r?\n[+\-]?[ \t]*value:[ \t]*)(?:"
        + _QUOTED_VALUE
        + r"|(?P<secret_u>[^\s\"'#]{4,}))",
        is_secret=_any_secret,
        by_context=True,
    ),
    # A line of base64 key material seen without its BEGIN line (a search hit in a key body,
    # a deleted key's line in a diff).
    Detector(
        "key-material",
        rf"(?m:^[ \t+\-]?[ \t]*(?P<secret>{_KEY_LINE})[ \t]*\r?$)",
        is_secret=_mixed_classes,
    ),
)


#: What every line holding one of :data:`DETECTORS` also holds (a superset, in the syntax RE2 and
#: ripgrep share): each detector without the costly part of its value, so ripgrep finds the files
#: that may hold a secret at nearly the speed of a plain search (the detectors themselves cost it
#: fifty times more). tests/security/test_count_oracle.py checks that it misses none.
_WORDS = r"(?i:password|passwd|passphrase|secret|token|credentials?|key|_pass|_auth)"
PREFILTER = (
    r"(?i:password|passwd|passphrase|secret|token|credentials?|key|_pass|_auth|authorization)"
    r"[\"'`]?\]?[ \t]*(?::=|=>|[:=,])"
    rf"|(?i:\benv)[ \t]+\S*{_WORDS}[ \t]+\S|<[A-Za-z0-9_.\-]*{_WORDS}>"
    rf"|-[ \t]+name:[ \t]*[\"']?[A-Za-z0-9_.\-]*{_WORDS}"
    r"|(?:^|[ \t])--?(?i:pass|token|secret|api-?key|access-key|secret-key|client-secret"
    r"|auth-token)[ \t]+\S"
    r"|\b(?:mysql\w*|mariadb\w*|sshpass|redis-cli)\b.*[ \t]-[pa]"
    r"|\b(?:curl|wget|http|https)\b.*[ \t](?:-u|--user|--proxy-user|-U|-a|--auth)[ \t=]"
    r"|(?i:bearer|basic)[ \t]+[A-Za-z0-9+/]{8}|(?i:login)[ \t]+\S+[ \t]+(?i:password)"
    r"|gh[pousr]_[A-Za-z0-9]{30}|github_pat_|GR1348941"
    r"|gl(?:pat|dt|rt|ptt|ft|imt|agent|soat|oas|cbt|ffct)-"
    r"|(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}|xox[abposre]|hooks\.slack\.com|[sr]k_(?:live|test|prod)_"
    r"|SG\.[A-Za-z0-9_\-]{22}\.|SK[0-9a-fA-F]{32}|AIza[0-9A-Za-z_\-]{35}|npm_[A-Za-z0-9]{36}"
    r"|pypi-AgE|sk-[A-Za-z0-9_\-]{20}|eyJ[A-Za-z0-9_\-]{10}|://[^\s:/@\"'<>]+:[^\s@/\"'<>]{3,}@"
    r"|[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.|PRIVATE KEY|[A-Za-z0-9+/]{50}"
)
