"""Where octo may read (allowed roots, sensitive files) and what it must never echo (secrets)."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from octo.errors import InvalidQueryError, PathNotAllowedError

#: Longest file name (one path component) common file systems allow, in bytes.
_NAME_MAX = 255

#: File names whose content is a secret by nature; reading or searching them needs an opt-in.
SENSITIVE_NAME_GLOBS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.kdbx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".htpasswd",
    "credentials",
    "credentials.json",
    "*credentials*.json",
    "secrets.json",
    "secrets.yaml",
    "secrets.yml",
    "*.tfvars",
    "service-account*.json",
)


# One regex for all globs: a search checks every matching file, often thousands.
_SENSITIVE_NAME = re.compile("|".join(fnmatch.translate(glob) for glob in SENSITIVE_NAME_GLOBS))


def is_sensitive(path: Path | str) -> bool:
    """True for files that commonly hold credentials or private keys."""
    return _SENSITIVE_NAME.match(os.path.basename(str(path)).lower()) is not None


def is_hidden(path: Path, root: Path) -> bool:
    """True when any component of ``path`` below ``root`` starts with a dot."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts
    return any(part.startswith(".") and part not in (".", "..") for part in parts)


class PathPolicy:
    """The allowed roots; every path is resolved (symlinks included) before it is checked."""

    def __init__(self, roots: Iterable[Path | str]) -> None:
        resolved = [Path(r).expanduser().resolve() for r in roots]
        if not resolved:
            resolved = [Path.cwd().resolve()]
        self.roots: tuple[Path, ...] = tuple(dict.fromkeys(resolved))

    def root_of(self, path: Path) -> Path | None:
        """The allowed root that contains the resolved ``path``, if any."""
        for root in self.roots:
            if path == root or path.is_relative_to(root):
                return root
        return None

    def resolve(self, raw: str | Path) -> Path:
        """Resolve a user path (absolute, a file:// URI, or relative to a root).

        A relative path belongs to the first root under which it exists (answers give
        paths relative to their own root, so they must come back to the same file),
        else to the first root. Raises PathNotAllowedError when the real path leaves every allowed root.
        """
        text = str(raw)
        if text.startswith("file://"):
            from urllib.parse import unquote, urlparse

            text = unquote(urlparse(text).path)
        if "\0" in text:
            raise InvalidQueryError(
                "The path holds a NUL character, which no file name can",
                hints=['Give the path as plain text, e.g. "src/app.py".'],
            )
        candidate = Path(text)
        if any(len(os.fsencode(part)) > _NAME_MAX for part in candidate.parts):
            raise InvalidQueryError(
                f"'{text[:80]}...' has a name longer than {_NAME_MAX} bytes, which no file can",
                hints=["Check the path; find files by name with localFindFiles."],
            )
        # pathlib raises RuntimeError for an unknown ~user and (before 3.13) a symlink loop,
        # OSError for a path longer than the system allows: each is this query's fault.
        try:
            candidate = candidate.expanduser()
            if not candidate.is_absolute():
                candidate = next(
                    (root / candidate for root in self.roots if (root / candidate).exists()),
                    self.roots[0] / candidate,
                )
            real = candidate.resolve()
        except (RuntimeError, OSError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            shown = text if len(text) <= 80 else f"{text[:80]}..."
            raise InvalidQueryError(
                f"'{shown}' cannot be resolved: {reason}",
                hints=[
                    "Give a path relative to an allowed root or an absolute one, without ~user "
                    "and without symbolic-link loops; find files with localFindFiles."
                ],
            ) from None
        if self.root_of(real) is None:
            raise PathNotAllowedError(
                f"'{raw}' resolves outside the allowed roots",
                hints=[
                    "Allowed roots: " + ", ".join(str(r) for r in self.roots),
                    "Use a path under one of them, or add a root (OCTO_ROOTS or the client's roots).",
                ],
            )
        return real

    def relative(self, path: Path) -> str:
        """``path`` relative to its root, for compact answers."""
        root = self.root_of(path)
        if root is None:
            return str(path)
        rel = path.relative_to(root)
        return str(rel) if str(rel) != "." else "."


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
