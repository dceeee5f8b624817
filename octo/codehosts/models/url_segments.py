"""What a query puts in an API path, checked and quoted, for GitHub and GitLab alike.

An owner of ``../../..`` once left the API prefix (``/api/v3`` + ``../../..`` reached
``/admin/tarball/...``) and took the token along. Every owner, repository, file path and ref
that goes into a URL's path passes here: a part that is empty, ``.`` or ``..``, or holds a
control character, is a VALIDATION_ERROR, and each part is percent-quoted with nothing left
as is, so no value adds a path segment or climbs out of the one it is put in.
"""

from __future__ import annotations

import re
from urllib.parse import quote
from urllib.parse import unquote

from octo.core.errors import QueryValidationError

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

#: The query fields that name a segment or a path of an API URL (or a ref a URL is built
#: with): every remote query checks them as it is validated.
PATH_FIELDS = ("owner", "repo", "path", "branch", "ref", "sha", "base", "head", "sparsePath")


def checked_parts(value: str, what: str) -> list[str]:
    """The ``/``-separated parts of ``value`` (outer slashes dropped), each checked."""
    parts = value.strip("/").split("/")
    for part in parts:
        plain = unquote(part)
        if not part or plain in {".", ".."} or _CONTROL.search(plain):
            raise QueryValidationError(
                f"{what} {value!r} is not a valid {what}: no part of it may be empty, '.' or"
                " '..', nor hold a control character",
                hints=[
                    f"Give the {what} as the host names it (e.g. owner 'facebook', repo 'react')."
                ],
            )
    return parts


#: What no owner or repository name holds: a space would add a search qualifier
#: (``user:x repo:other/name``), a quote would end one.
_NOT_IN_NAMES = re.compile(r"[\s\"']")


def checked_name(value: str, what: str) -> str:
    """An owner or repository name: its parts checked, and no space or quote in it."""
    checked_parts(value, what)
    if _NOT_IN_NAMES.search(value):
        raise QueryValidationError(
            f"{what} {value!r} is not a valid {what}: it holds a space or a quote",
            hints=[f"Give the {what} as the host names it (e.g. owner 'facebook', repo 'react')."],
        )
    return value


def segment(value: str, what: str) -> str:
    """``value`` as one path segment (an owner, a repository, a ref, a GitLab project or
    group path): checked, then quoted whole, a slash included (``%2F``)."""
    checked_parts(value, what)
    return quote(value.strip("/"), safe="")


def file_path(value: str, what: str = "path") -> str:
    """A file path below a repository: each part checked and quoted, joined by ``/``; the
    empty path (the repository's top) stays empty."""
    if not value.strip("/"):
        return ""
    return "/".join(quote(part, safe="") for part in checked_parts(value, what))
