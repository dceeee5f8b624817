"""Where the user's npm registry and Python index are: read from their npm and pip configuration.

octo writes no package index hostname of its own. npm's registry comes from
``OCTO_NPM_REGISTRY``, npm's environment settings, the project, user and global
``.npmrc``, then ``npm config get registry`` (npm's own default). The Python
index comes from ``OCTO_PYPI_INDEX``, ``PIP_INDEX_URL`` / ``UV_INDEX_URL`` /
``UV_DEFAULT_INDEX``, pip's configuration files, then pip's own default index.
Indexes that are not HTTP (``file://`` mirrors, local folders) are skipped.

Configuration files are read, and PATH searched, in a worker thread; npm and pip are
asked as children octo owns. Discovery never blocks the event loop.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from urllib.parse import unquote
from urllib.parse import urlsplit
from urllib.parse import urlunsplit

import anyio

from octo.core.registries import env_lookup
from octo.core.registries import npmrc_files
from octo.core.registries import parse_npmrc
from octo.core.registries import pip_config_files
from octo.core.registries import pip_file_values
from octo.core.registries import read_text
from octo.transports.processes import command_output

logger = logging.getLogger("octo.packages")

#: How long a configuration command (npm, pip) may take before we give up on it.
COMMAND_TIMEOUT = 10.0

# Asks pip for its built-in default index, so no hostname is written here.
_PIP_DEFAULT_INDEX_SCRIPT = "from pip._internal.models.index import PyPI; print(PyPI.simple_url)"


def is_http_url(url: str) -> bool:
    """True for an http(s) URL with a host; file:// indexes and local paths are not."""
    parts = urlsplit(url.strip())
    return parts.scheme in ("http", "https") and bool(parts.netloc)


#: ``(user, password)`` of an index URL written ``https://user:password@host/...``.
Credentials = tuple[str, str]


def split_credentials(url: str) -> tuple[str, Credentials | None]:
    """``url`` without its ``user:password@`` part, and that part (pip's form for private
    indexes), so the password never travels in a URL that may be logged or shown."""
    parts = urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if not at:
        return url, None
    user, _, password = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=host)), (unquote(user), unquote(password))


@dataclass(frozen=True)
class NpmRegistry:
    """The npm registry to ask, where that setting came from, and its scoped overrides."""

    url: str
    source: str
    scopes: Mapping[str, str] = field(default_factory=dict)
    auth_tokens: Mapping[str, str] = field(default_factory=dict, repr=False)
    #: ``user:password@`` of the configured URL, taken out of it.
    credentials: Credentials | None = field(default=None, repr=False)

    def for_package(self, name: str) -> str:
        """The registry URL serving ``name`` (``@scope:registry`` wins for scoped names)."""
        if name.startswith("@") and "/" in name:
            return self.scopes.get(name.split("/", 1)[0], self.url)
        return self.url

    def token_for(self, registry_url: str) -> str | None:
        """The ``//host/path/:_authToken`` that covers ``registry_url``, longest match first."""
        parts = urlsplit(registry_url)
        nerf = f"//{parts.netloc}{parts.path}"
        for prefix in sorted(self.auth_tokens, key=len, reverse=True):
            if nerf.startswith(prefix):
                return self.auth_tokens[prefix]
        return None


@dataclass(frozen=True)
class PythonIndex:
    """A Python package index: its simple (PEP 503/691) URL and its JSON API base."""

    simple_url: str
    source: str
    #: ``user:password@`` of the configured URL, taken out of it.
    credentials: Credentials | None = field(default=None, repr=False)

    @classmethod
    def from_url(cls, url: str, source: str) -> PythonIndex:
        """The index at ``url``; credentials in the URL are kept apart."""
        plain, credentials = split_credentials(url.strip())
        return cls(with_trailing_slash(plain), source, credentials)

    @property
    def json_api_url(self) -> str:
        """``{base}/pypi``: where ``/{name}/json`` lives when the index offers the JSON API."""
        base = self.simple_url.rstrip("/")
        for suffix in ("/+simple", "/simple"):
            if base.endswith(suffix):
                return base[: -len(suffix)] + "/pypi"
        return base + "/pypi"


def with_trailing_slash(url: str) -> str:
    return url if url.endswith("/") else url + "/"


# --- npm ----------------------------------------------------------------------------------


@dataclass
class _NpmSettings:
    """What npm's environment settings and ``.npmrc`` files say."""

    found: tuple[str, str] | None = None
    scopes: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    #: The npm executable to ask when nothing named a registry.
    npm: str | None = None


def _read_npm_settings(env: Mapping[str, str], cwd: Path) -> _NpmSettings:
    """The environment and ``.npmrc`` files, in npm's precedence (blocking: file reads)."""
    settings = _NpmSettings()
    for name in ("OCTO_NPM_REGISTRY", "NPM_CONFIG_REGISTRY"):
        value = env_lookup(env, name)
        if value and is_http_url(value):
            settings.found = (value, name)
            break
    # Lower files never override what a higher one set; tokens and scopes merge.
    for path in npmrc_files(env, cwd):
        text = read_text(path)
        if text is None:
            continue
        for key, value in parse_npmrc(text, env).items():
            if key == "registry" and settings.found is None and is_http_url(value):
                settings.found = (value, str(path))
            elif key.startswith("@") and key.endswith(":registry") and is_http_url(value):
                settings.scopes.setdefault(
                    key.removesuffix(":registry"), with_trailing_slash(value)
                )
            elif key.startswith("//") and key.endswith(":_authToken") and value:
                settings.tokens.setdefault(key.removesuffix(":_authToken"), value)
    if settings.found is None:
        settings.npm = shutil.which("npm", path=env.get("PATH", ""))
    return settings


async def discover_npm_registry(env: Mapping[str, str], cwd: Path) -> NpmRegistry | None:
    """The npm registry the user configured, or npm's default; None when neither is known."""
    settings = await anyio.to_thread.run_sync(_read_npm_settings, env, cwd)
    found = settings.found
    if found is None and settings.npm is not None:
        answer = None
        with anyio.move_on_after(COMMAND_TIMEOUT):
            answer = await command_output([settings.npm, "config", "get", "registry"], env, cwd=cwd)
        if answer and is_http_url(answer):
            found = (answer, "npm config get registry")
    if found is None:
        return None
    url, source = found
    plain, credentials = split_credentials(url.strip())
    return NpmRegistry(
        with_trailing_slash(plain), source, settings.scopes, settings.tokens, credentials
    )


# --- Python -------------------------------------------------------------------------------


def _first_http(values: Iterable[str]) -> str | None:
    for value in values:
        for url in value.split():
            if is_http_url(url):
                return url
    return None


_INDEX_KEYS = ("index-url", "index_url")
_EXTRA_INDEX_KEYS = ("extra-index-url", "extra_index_url")


def _read_pip_settings(env: Mapping[str, str]) -> tuple[PythonIndex | None, str | None]:
    """The index pip's configuration files name, else the interpreter to ask for pip's
    default (blocking: file reads and a PATH search)."""
    # Any file's index-url beats every extra-index-url; among files the later one wins.
    files = list(reversed(pip_config_files(env)))
    for keys in (_INDEX_KEYS, _EXTRA_INDEX_KEYS):
        for path in files:
            if url := _first_http(pip_file_values(path, keys)):
                return PythonIndex.from_url(url, str(path)), None
    for interpreter in ("python3", "python"):
        python = shutil.which(interpreter, path=env.get("PATH", ""))
        if python is not None:
            return None, python
    return None, None


async def discover_python_index(env: Mapping[str, str], cwd: Path) -> PythonIndex | None:
    """The Python index the user configured, or pip's default; None when neither is known."""
    for name in ("OCTO_PYPI_INDEX", "PIP_INDEX_URL", "UV_INDEX_URL", "UV_DEFAULT_INDEX"):
        value = env.get(name)
        if value and (url := _first_http([value])):
            return PythonIndex.from_url(url, name)
    configured, python = await anyio.to_thread.run_sync(_read_pip_settings, env)
    if configured is not None or python is None:
        return configured
    answer = None
    with anyio.move_on_after(COMMAND_TIMEOUT):
        answer = await command_output([python, "-c", _PIP_DEFAULT_INDEX_SCRIPT], env, cwd=cwd)
    if answer and is_http_url(answer):
        return PythonIndex.from_url(answer, "pip's default index")
    return None
