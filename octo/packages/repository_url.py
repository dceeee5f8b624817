"""Turn every form an npm registry or a Python index gives for a source repository into one
browsable shape.

npm writes ``repository`` as an object (``{type, url, directory}``), a URL in any git
flavour (``git+https://``, ``git://``, ``git+ssh://git@host/...``, scp-like
``git@host:owner/repo.git``) or a shorthand (``owner/repo``, ``github:owner/repo``,
``gitlab:group/sub/repo``, ``bitbucket:owner/repo``, ``gist:id``). Python projects
label URLs freely in ``project_urls``; PEP 753 says how to read the labels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Mapping
from urllib.parse import quote
from urllib.parse import urlsplit

from octo.packages.models import PackageRepository

# What npm's shorthands mean (hosted-git-info): the public forges by definition.
_SHORTHAND_HOSTS = {
    "github": "github.com",
    "gitlab": "gitlab.com",
    "bitbucket": "bitbucket.org",
}
_GIST_HOST = "gist.github.com"

#: Hosts whose URLs are source repositories even when a project labels them "Homepage".
KNOWN_FORGE_HOSTS: frozenset[str] = frozenset(
    {"github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "git.sr.ht", "gitee.com"}
)

# PEP 753 labels, normalised, that name the source repository, best first.
_SOURCE_LABELS = ("source", "repository", "sourcecode", "code", "github", "gitlab", "git")

_SCP_LIKE = re.compile(r"^(?:[\w.-]+@)?(?P<host>[\w.-]+\.[\w-]+):(?!//)(?P<path>[^\s]+)$")
_SHORTHAND = re.compile(r"^(?P<kind>github|gitlab|bitbucket|gist):(?P<path>[^\s]+)$")
_OWNER_REPO = re.compile(r"^[\w.-]+/[\w.-]+$")
# Labels whose URLs sit on a forge without being the repository (sponsor pages).
_NOT_SOURCE_LABELS = frozenset({"funding", "sponsor", "sponsors", "donate", "donation"})


def _strip_git_suffix(path: str) -> str:
    path = path.strip("/")
    return path.removesuffix(".git")


def _split_owner_repo(host: str, path: str) -> tuple[str | None, str | None, str | None]:
    """``(owner, repo, directory)`` from a URL path on ``host``.

    GitHub-like forges have exactly two levels (``owner/repo``, then ``tree/ref/dir``);
    GitLab nests groups and separates the repository from its pages with ``/-/``.
    """
    segments = [s for s in path.split("/") if s]
    if not segments:
        return None, None, None
    if "-" in segments:
        cut = segments.index("-")
        project, rest = segments[:cut], segments[cut + 1 :]
    elif "gitlab" in host:
        project, rest = segments, []
    else:
        project, rest = segments[:2], segments[2:]
    if len(project) < 2:
        return None, None, None
    owner, repo = "/".join(project[:-1]), _strip_git_suffix(project[-1])
    # tree|blob|src/<ref>/<dir...> names a folder inside the repository.
    directory = "/".join(rest[2:]) if len(rest) > 2 and rest[0] in ("tree", "blob", "src") else None
    return owner, repo, directory or None


def _folder_url(host: str, root: str, directory: str) -> str:
    encoded = quote(directory.strip("/"))
    if "gitlab" in host:
        return f"{root}/-/tree/HEAD/{encoded}"
    if "bitbucket" in host:
        return f"{root}/src/HEAD/{encoded}"
    return f"{root}/tree/HEAD/{encoded}"


def _to_https(raw: str) -> tuple[str, str] | None:
    """``(host, path)`` of any git URL form, or None when it is not a URL we can browse."""
    text = raw.strip()
    text = re.sub(r"#.*$", "", text)  # committish: a ref, not part of the repository
    if text.startswith("git+"):
        text = text[4:]
    if shorthand := _SHORTHAND.match(text):
        kind, path = shorthand["kind"], shorthand["path"]
        if kind == "gist":
            return _GIST_HOST, path
        return _SHORTHAND_HOSTS[kind], path
    if _OWNER_REPO.match(text):
        return _SHORTHAND_HOSTS["github"], text
    if scp := _SCP_LIKE.match(text):
        return scp["host"].lower(), scp["path"]
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https", "git", "ssh", "git+ssh") or not parts.hostname:
        return None
    return parts.hostname.lower(), parts.path


def normalize_repository(value: object) -> PackageRepository | None:
    """Normalise an npm ``repository`` field (object, URL or shorthand); None when unusable."""
    directory: str | None = None
    if isinstance(value, Mapping):
        raw_directory = value.get("directory")
        if isinstance(raw_directory, str):
            directory = raw_directory.strip("/") or None
        value = value.get("url")
    if not isinstance(value, str) or not value.strip():
        return None
    found = _to_https(value)
    if found is None:
        return None
    host, path = found
    if host == _GIST_HOST:
        gist = _strip_git_suffix(path)
        return PackageRepository(url=f"https://{host}/{gist}", repo=gist)
    owner, repo, path_directory = _split_owner_repo(host, path)
    if owner is None or repo is None:
        return None
    directory = directory or path_directory
    root = f"https://{host}/{owner}/{repo}"
    web_url = _folder_url(host, root, directory) if directory else None
    return PackageRepository(url=root, owner=owner, repo=repo, directory=directory, webUrl=web_url)


def normalize_label(label: str) -> str:
    """PEP 753 label normalisation: drop punctuation and whitespace, lowercase."""
    return re.sub(r"[\W_]+", "", label).lower()


def _is_forge(url: str, forge_hosts: Iterable[str]) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return host in KNOWN_FORGE_HOSTS or host in forge_hosts


def repository_from_project_urls(
    project_urls: Mapping[str, str],
    home_page: str | None = None,
    *,
    forge_hosts: Iterable[str] = (),
) -> PackageRepository | None:
    """The source repository among a Python project's labelled URLs (PEP 753 order).

    A URL labelled as source wins; then a homepage on a forge; then any URL on a
    forge; then the legacy ``home_page`` when it is on a forge. ``forge_hosts``
    adds self-hosted forges (the configured GitLab or GitHub Enterprise host).
    """
    forges = {h.lower() for h in forge_hosts}
    by_label: dict[str, str] = {}
    for label, url in project_urls.items():
        if isinstance(url, str) and url.strip():
            by_label.setdefault(normalize_label(label), url.strip())
    candidates = [by_label[label] for label in _SOURCE_LABELS if label in by_label]
    homepage = by_label.get("homepage")
    if homepage and _is_forge(homepage, forges):
        candidates.append(homepage)
    candidates.extend(
        url
        for label, url in by_label.items()
        if label not in _NOT_SOURCE_LABELS and _is_forge(url, forges)
    )
    if home_page and _is_forge(home_page, forges):
        candidates.append(home_page)
    for candidate in candidates:
        repository = normalize_repository(candidate)
        if repository is not None:
            return repository
    return None
