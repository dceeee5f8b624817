"""How a code-host query names repositories: "owner/repo" strings, or owner and repo apart,
or a repository's web URL (``https://ghe.example.com/acme/api``).

A URL is read here, once, as the query is validated: it becomes the owner and repository it
names, and its web host becomes the query's ``host``, which routing matches against the
configured hosts (:mod:`octo.codehosts.hosts.routing`). So a URL routes exactly as ``owner``,
``repo`` and ``host`` given apart would: it never names a host that is not configured, nor
sends a token anywhere else than its own API host.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated
from typing import Any
from typing import Protocol
from urllib.parse import unquote
from urllib.parse import urlsplit

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


@dataclass(frozen=True)
class RepositoryUrl:
    """What a repository's web URL names: its web host (``host[:port]``, a default port left
    out) and the path of the repository (or owner) below it."""

    host: str
    #: The path's parts up to the repository: "owner", "repo" (GitLab: groups, project).
    parts: tuple[str, ...]

    @property
    def owner(self) -> str:
        """Everything before the repository: an owner, or a GitLab group path."""
        return "/".join(self.parts[:-1])

    @property
    def repo(self) -> str:
        return self.parts[-1]

    @property
    def full_path(self) -> str:
        return "/".join(self.parts)


#: The first path part after owner/repo that starts a page of a GitHub repository (its tree,
#: a file, a pull request...): what follows it is not the repository's name.
_GITHUB_PAGES = frozenset(
    {"tree", "blob", "blame", "raw", "commit", "commits", "compare", "pull", "pulls", "issues"}
    | {"actions", "releases", "tags", "branches", "wiki", "security", "pulse", "graphs"}
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST_NAME = re.compile(r"^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$")
_BAD_PART = re.compile(r"[\x00-\x1f\x7f\\\s\"']")


def is_url(text: str) -> bool:
    """Whether ``text`` is written as a URL (a scheme and ``://``) rather than a name."""
    return "://" in text


def repository_url(text: str, what: str = "repo") -> RepositoryUrl:
    """The host and path a repository (or owner) URL names. ValueError for anything but a
    plain http(s) URL: credentials in it, a port that is no number, a path part that is
    empty, ``.``, ``..`` or odd. A trailing ``.git``, GitLab's ``/-/...`` and GitHub's
    ``/tree/<ref>/...``-style pages are dropped. ``what``: the field it is in, which the
    errors name."""
    # The text is not repeated before it is known to hold no credentials.
    if "@" in text.partition("://")[2].partition("/")[0]:
        raise ValueError(f"{what}: a URL with credentials (user@) in it is not taken")
    shown = f"{what} {text[:120]!r}"
    try:
        split = urlsplit(text.strip())
        port = split.port
    except ValueError:
        raise ValueError(f"{shown}: not a URL octo can read (its port?)") from None
    if split.scheme.lower() not in _DEFAULT_PORTS:
        raise ValueError(f"{shown}: only http(s) repository URLs")
    hostname = (split.hostname or "").lower()
    if not _HOST_NAME.match(hostname):
        raise ValueError(f"{shown}: no host name in it")
    host = (
        hostname if port in (None, _DEFAULT_PORTS[split.scheme.lower()]) else f"{hostname}:{port}"
    )
    raw = split.path.strip("/")
    parts = [unquote(part) for part in raw.split("/")] if raw else []
    if any(not part or part in {".", ".."} or _BAD_PART.search(part) for part in parts):
        raise ValueError(f"{shown}: its path must be /owner/repo (no empty, '.' or '..' part)")
    if "-" in parts:
        parts = parts[: parts.index("-")]
    elif len(parts) > 2 and parts[2] in _GITHUB_PAGES:
        parts = parts[:2]
    if parts and parts[-1].endswith(".git"):
        parts[-1] = parts[-1].removesuffix(".git")
    if not parts or not all(parts):
        raise ValueError(f"{shown}: names no repository (https://HOST/owner/repo)")
    return RepositoryUrl(host, tuple(parts))


def names_from_urls(data: Mapping[str, Any], has_repo: bool) -> dict[str, Any]:
    """``data`` (a query's fields as given) with each repository URL in ``owner``, ``repo``
    or ``repos`` turned into the names it holds and its host into ``host``. ``has_repo``:
    the query has a ``repo`` field (an owner URL then names a repository when repo is not
    given). ValueError when the URLs and ``host`` disagree."""
    fields = dict(data)
    hosts: set[str] = set()
    owner, repo = fields.get("owner"), fields.get("repo")
    if isinstance(repo, str) and is_url(repo):
        url = repository_url(repo, "repo")
        if len(url.parts) < 2:
            raise ValueError(f"repo {repo[:120]!r} names an owner, not a repository")
        if isinstance(owner, str) and owner and owner != url.owner and not is_url(owner):
            raise ValueError(f"owner {owner!r} is not the owner in the repo URL ({url.owner!r})")
        fields["owner"], fields["repo"] = url.owner, url.repo
        hosts.add(url.host)
    elif isinstance(owner, str) and is_url(owner):
        url = repository_url(owner, "owner")
        if has_repo and repo is None and len(url.parts) > 1:
            fields["owner"], fields["repo"] = url.owner, url.repo
        else:
            fields["owner"] = url.full_path
        hosts.add(url.host)
    repos = fields.get("repos")
    if isinstance(repos, list):
        named: list[Any] = []
        for name in repos:
            if isinstance(name, str) and is_url(name):
                url = repository_url(name, "repos")
                hosts.add(url.host)
                name = url.full_path
            named.append(name)
        fields["repos"] = named
    if not hosts:
        return fields
    if len(hosts) > 1:
        raise ValueError(
            f"repos: URLs on several hosts ({', '.join(sorted(hosts))}): one query per host"
        )
    [host] = hosts
    given = fields.get("host")
    if isinstance(given, str) and given.lower() != host:
        raise ValueError(f"host {given!r} is not the URL's host {host!r}: give one of them")
    fields["host"] = host
    return fields
