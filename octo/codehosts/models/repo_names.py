"""How a code-host query names repositories: "owner/repo" strings, or owner and repo apart."""

from __future__ import annotations

import re
from typing import Annotated
from typing import Any
from typing import Protocol

from pydantic import AfterValidator

from octo.contract.places import MAX_PLACES
from octo.core.queries import optional


class NamesRepositories(Protocol):
    """A query that names its repositories either way."""

    repos: list[str] | None
    owner: str | None
    repo: str | None


_REPO_NAME = re.compile(r"^[^/\s]+(/[^/\s]+)+$")
#: ``owner/*`` or ``owner/prefix-*``: the owner's repositories (whose names start so).
_WILDCARD = re.compile(r"^[^/\s*]+(/[^/\s*]+)*/[^/\s*]*\*$")


def _repo_name(name: str) -> str:
    if "*" in name:
        if not _WILDCARD.match(name):
            raise ValueError(
                f"{name!r}: a wildcard is owner/* or owner/prefix-* (a * at the end only)"
            )
    elif not _REPO_NAME.match(name) or {".", ".."} & set(name.split("/")):
        raise ValueError(f'{name!r} is not owner/repo, e.g. "facebook/react"')
    return name


def is_wildcard(name: str) -> bool:
    """Whether ``name`` (a checked :data:`RepoName`) stands for an owner's repositories."""
    return name.endswith("*")


#: "owner/repo"; GitLab owners may be group paths ("group/sub/project"). Checked in code, so
#: tools/list does not carry the pattern.
RepoName = Annotated[str, AfterValidator(_repo_name)]


def repos_field() -> Any:
    return optional(
        'Instead of owner/repo, several: "owner/repo" or "owner/prefix-*".',
        min_length=1,
        max_length=MAX_PLACES,
    )


def check_repos(query: NamesRepositories) -> None:
    """repos is one way to name repositories, owner/repo the other; each at most once."""
    if query.repos is None:
        return
    if query.owner or query.repo:
        raise ValueError("repos and owner/repo are exclusive: name the repositories one way")
    lowered = [name.lower() for name in query.repos]
    twice = sorted({name for name in lowered if lowered.count(name) > 1})
    if twice:
        raise ValueError(f"repos names {', '.join(twice)} twice")


def check_scope(
    owner: str | None, repo: str | None, number: int | None = None, name: str = ""
) -> None:
    """A repository needs its owner; a numbered item (its field ``name``) needs both."""
    if repo and not owner:
        raise ValueError("repo needs owner as well")
    if number is not None and not (owner and repo):
        raise ValueError(f"{name} needs owner and repo")
