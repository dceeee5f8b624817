"""Which files hold credentials by nature: reading or searching them needs an explicit opt-in."""

from __future__ import annotations

import fnmatch
import os
import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from pathlib import Path
from typing import Literal

import re2

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


def _piece(glob: str) -> str:
    """The longest run of ``glob`` without a wildcard: text every name it matches holds."""
    return max(re.split(r"[*?]|\[[^]]*\]", glob), key=len)


#: A piece of each name and place above, lowercased as :func:`is_sensitive` reads paths: a
#: path holding none of them is no credential file.
_PIECES = re2.compile(
    "|".join(
        re2.escape(_piece(p)) for p in (*SENSITIVE_NAME_GLOBS, *SENSITIVE_PATH_ENDINGS)
    ).encode()
)


def sensitive_among(paths: Sequence[bytes]) -> set[int]:
    """The indexes of the ``paths`` (UTF-8; "./" before one changes nothing) that
    :func:`is_sensitive` holds for, told by one scan of them all for a piece of a credential
    file's name and the check of the few paths holding one: a search lists thousands."""
    listing = b"\n".join(paths)
    if os.sep != "/":
        listing = listing.replace(os.sep.encode(), b"/")
    if not listing.isascii():  # (a non-ASCII letter may lowercase to an ASCII one)
        candidates: Sequence[int] = range(len(paths))
    else:
        hits = [found.start() for found in _PIECES.finditer(listing.lower())]
        # No piece holds a newline: each hit lies within one path, found by where it ends.
        ends = list(accumulate(len(path) + 1 for path in paths)) if hits else []
        candidates = sorted({bisect_right(ends, hit) for hit in hits})
    return {i for i in candidates if is_sensitive(paths[i].decode("utf-8", errors="replace"))}


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
