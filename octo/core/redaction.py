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
    return _redact_lines(_redact_keys(text, keep_lines=keep_lines))


def _redact_keys(text: str, *, keep_lines: bool) -> str:
    """The secrets that may span lines: private-key blocks."""
    kind, pattern = _SECRET_PATTERNS[0]
    if "PRIVATE KEY" not in text:
        return text
    marker = f"[REDACTED:{kind}]"
    return pattern.sub(_line_keeping(marker) if keep_lines else marker, text)


#: Text each pattern cannot match without (one of them, case as written): a pattern is run
#: only on text holding one, so the common text, holding none, costs a substring search per
#: pattern instead of a regex scan (seconds on tens of megabytes).
_ANCHORS: dict[str, tuple[str, ...]] = {
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab-token": ("glpat-",),
    "aws-access-key": ("AKIA", "ASIA"),
    "slack-token": ("xox",),
    "npm-token": ("npm_",),
    "openai-key": ("sk-",),
    "google-api-key": ("AIza",),
    "stripe-key": ("k_live_",),
    "jwt": ("eyJ",),
    "url-credentials": ("://",),
    "env-line": ("PASSW", "SECRET", "TOKEN", "KEY", "CREDENTIAL"),
}
#: The same for the case-insensitive patterns, looked for in the text case-folded (with
#: the long s that re's IGNORECASE takes for "s").
_FOLDED_ANCHORS: dict[str, tuple[str, ...]] = {
    "bearer": ("bearer",),
    "assignment": ("passw", "secret", "key", "token"),
}


class _Holds:
    """Whether the text being redacted holds one of a pattern's anchors. The text changes as
    secrets are replaced (a marker may hold an anchor); its case-folded copy is made again
    only when it did."""

    def __init__(self) -> None:
        self._text: str | None = None
        self._folded = ""

    def __call__(self, kind: str, text: str) -> bool:
        if kind in _ANCHORS:
            return any(anchor in text for anchor in _ANCHORS[kind])
        if text is not self._text:
            self._text, self._folded = text, text.lower().replace("\u017f", "s")
        return any(anchor in self._folded for anchor in _FOLDED_ANCHORS[kind])


def _redact_lines(text: str) -> str:
    """The secrets found within a line (or an assignment whose value follows on the next)."""
    holds = _Holds()
    for kind, pattern in _SECRET_PATTERNS[1:]:
        if holds(kind, text):
            text = pattern.sub(f"[REDACTED:{kind}]", text)
    if holds("env-line", text):
        text = _ENV_LINE.sub(lambda m: f"{m.group(1)}[REDACTED:secret]", text)
    if not holds("assignment", text):
        return text
    return _ASSIGNMENT.sub(
        lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}[REDACTED:secret]{m.group(3)}", text
    )


#: Characters that may go on an assignment whose key ends the line before (``\s*``, the
#: ``:``/``=`` and the value's quote): a block never starts with one.
_CONTINUES_ASSIGNMENT = frozenset(" \t\r\n\f\v:=\"'")


def redact_in_blocks(text: str, *, between: Callable[[], None], block: int = 1 << 20) -> str:
    """``redact(text, keep_lines=True)``, a block of about ``block`` characters at a time,
    calling ``between()`` after each (a worker thread's look at its deadline, which raises).

    Private-key blocks are found in the whole text first; the other secrets never span a
    line break at which a block ends (a block ends before a line that starts with none of
    the characters an assignment may go on with), so the result is the same as redact's.
    A single line longer than ``block`` is one block.
    """
    text = _redact_keys(text, keep_lines=True)
    done: list[str] = []
    start = 0
    while start < len(text):
        end = _block_end(text, start + block)
        done.append(_redact_lines(text[start:end]))
        between()
        start = end
    return "".join(done)


def _block_end(text: str, wanted: int) -> int:
    """The first line start at or after ``wanted`` where a block may end (else the end)."""
    cut = text.find("\n", wanted)
    while cut != -1 and cut + 1 < len(text) and text[cut + 1] in _CONTINUES_ASSIGNMENT:
        cut = text.find("\n", cut + 1)
    return len(text) if cut == -1 else cut + 1


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
