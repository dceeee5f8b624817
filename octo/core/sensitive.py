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
