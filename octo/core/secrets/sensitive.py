"""Which files hold credentials by nature: reading or searching them needs an explicit opt-in."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import Literal

from octo.core.files.paths import is_hidden

#: Why a file's content is withheld: it needs the ``hidden`` or ``includeSensitive`` opt-in.
Withheld = Literal["hidden", "sensitive"]

#: The opt-ins' descriptions, the same in every tool that reads local files.
HIDDEN_DESCRIPTION = "Dot-files too."
SENSITIVE_DESCRIPTION = "Credential files (.env, keys) too."

#: File names whose content is a secret by nature; reading or searching them needs an opt-in.
SENSITIVE_NAME_GLOBS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.env",
    # A .env file without its dot, per stage (not env.py or env.d.ts).
    "env.production",
    "env.prod",
    "env.staging",
    "env.development",
    "env.dev",
    "env.local",
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
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".htpasswd",
    "credentials",
    "credentials.json",
    "*credentials*.json",
    "secrets.*",
    "*.tfvars",
    "service-account*.json",
)


#: Files whose name alone says nothing, but whose place does (a tool's credential store).
SENSITIVE_PATH_ENDINGS: tuple[str, ...] = (
    ".docker/config.json",
    ".kube/config",
)


_PLACES = tuple("/" + ending for ending in SENSITIVE_PATH_ENDINGS)

# One regex for all globs: a search checks every matching file, often thousands.
_SENSITIVE_NAME = re.compile("|".join(fnmatch.translate(glob) for glob in SENSITIVE_NAME_GLOBS))


def is_sensitive(path: Path | str) -> bool:
    """True for files that commonly hold credentials or private keys (by name, or by the
    directory they are in)."""
    text = str(path).lower()
    if os.sep != "/":
        text = text.replace(os.sep, "/")
    if _SENSITIVE_NAME.match(text.rpartition("/")[2]) is not None:
        return True
    return text.endswith(_PLACES) or text in SENSITIVE_PATH_ENDINGS


def withheld(
    path: Path, root: Path, *, hidden: bool, include_sensitive: bool, raw: str = ""
) -> Withheld | None:
    """Which opt-in reading ``path`` (below ``root``; ``raw`` as the caller named it) needs
    and was not given, if any: credential files first, then hidden ones."""
    if not include_sensitive and (is_sensitive(path) or (raw and is_sensitive(raw))):
        return "sensitive"
    if not hidden and is_hidden(path, root):
        return "hidden"
    return None
