"""What octo must never echo: secrets in any text it returns become ``[REDACTED:kind]``."""

from __future__ import annotations

import re
from collections.abc import Callable

_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----.*?-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----",
            re.S,
        ),
    ),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})")),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("openai-key", re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{32,}")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("stripe-key", re.compile(r"\b[rs]k_live_[0-9A-Za-z]{20,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("bearer", re.compile(r"(?i)(?<=\bbearer )[A-Za-z0-9._~+/=-]{20,}")),
    ("url-credentials", re.compile(r"(?<=://)[^\s:/@]+:[^\s@/]{3,}(?=@)")),
)

# key = "literal" assignments of secret-looking names (also quoted JSON/YAML keys): keep the
# key, hide the value. Only quoted literals, so `password = read_password()` stays readable.
_ASSIGNMENT = re.compile(
    r"(?i)\b([A-Z0-9_.-]*(?:password|passwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|"
    r"private[_-]?key|client[_-]?secret)[A-Z0-9_.-]*)([\"']?\s*[:=]\s*)([\"'])([^\s\"']{6,})\3"
)


# .env style lines (NAME=value, no spaces around "="): unquoted values of secret-looking names.
_ENV_LINE = re.compile(
    r"(?m)^(\s*(?:export\s+)?[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_KEY|"
    r"PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*=)([^\s\"'#]{6,})$"
)


def _line_keeping(marker: str) -> Callable[[re.Match[str]], str]:
    return lambda match: marker + "\n" * match[0].count("\n")


def redact(text: str, *, keep_lines: bool = False) -> str:
    """Replace secrets in ``text`` with ``[REDACTED:kind]``; everything else is untouched.

    With ``keep_lines`` a secret spanning lines (a private key block) leaves its
    line breaks behind, so line numbers after it stay right.
    """
    for kind, pattern in _SECRET_PATTERNS:
        marker = f"[REDACTED:{kind}]"
        text = pattern.sub(_line_keeping(marker) if keep_lines else marker, text)
    text = _ENV_LINE.sub(lambda m: f"{m.group(1)}[REDACTED:secret]", text)
    return _ASSIGNMENT.sub(
        lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}[REDACTED:secret]{m.group(3)}", text
    )


class LineRedactor:
    """Redacts a file's lines seen one at a time, in line order, possibly with gaps.

    ``redact`` needs a whole private-key block to recognise it; here the block's
    lines arrive one by one, so the body lines after a BEGIN line are hidden too.
    """

    _BEGIN = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----")
    _END = re.compile(r"-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----")
    _BODY = re.compile(r"^\s*(?:[A-Za-z0-9+/]+={0,2}|(?:Proc-Type|DEK-Info|Comment):.*)?\s*$")

    def __init__(self) -> None:
        self._in_key = False

    def __call__(self, line: str) -> str:
        if self._in_key:
            if self._END.search(line):
                self._in_key = False
                return line
            if self._BODY.match(line):
                return "[REDACTED:private-key]"
            self._in_key = False
        if self._BEGIN.search(line) and not self._END.search(line):
            self._in_key = True
            return line
        return redact(line)
