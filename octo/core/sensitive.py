"""Which files hold credentials by nature: reading or searching them needs an explicit opt-in."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

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
    "secrets.json",
    "secrets.yaml",
    "secrets.yml",
    "*.tfvars",
    "service-account*.json",
)


#: Files whose name alone says nothing, but whose place does (a tool's credential store).
SENSITIVE_PATH_ENDINGS: tuple[str, ...] = (
    ".docker/config.json",
    ".kube/config",
)


# One regex for all globs: a search checks every matching file, often thousands.
_SENSITIVE_NAME = re.compile("|".join(fnmatch.translate(glob) for glob in SENSITIVE_NAME_GLOBS))


def is_sensitive(path: Path | str) -> bool:
    """True for files that commonly hold credentials or private keys (by name, or by the
    directory they are in)."""
    text = str(path).replace(os.sep, "/").lower()
    if _SENSITIVE_NAME.match(text.rsplit("/", 1)[-1]) is not None:
        return True
    return any(text == end or text.endswith("/" + end) for end in SENSITIVE_PATH_ENDINGS)
