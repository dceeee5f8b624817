"""packageSearch: the handler and its backend, which finds the user's npm registry and Python
index once per runtime and asks them through the shared transport.

Answers are cached (4 h by default) per URL by the shared
:class:`~octo.transports.http.client.RemoteClient`.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import Generic
from typing import TypeVar
from urllib.parse import urlsplit

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.contract import Runtime
from octo.core.config import env_seconds
from octo.core.errors import InvalidQueryError
from octo.core.errors import ToolNotAvailableError
from octo.packages.endpoints import NpmRegistry
from octo.packages.endpoints import PythonIndex
from octo.packages.endpoints import discover_npm_registry
from octo.packages.endpoints import discover_python_index
from octo.packages.index_policy import PackageIndexPolicy
from octo.packages.models import PackageInfo
from octo.packages.models import PackageSearchQuery
from octo.packages.models import PackageSearchResult
from octo.packages.npm import NpmLookup
from octo.packages.python_index import PythonIndexLookup
from octo.packages.python_index import SimpleProject
from octo.transports.http.client import RemoteClient

#: Default cache lifetime of npm registry and Python index answers
#: (OCTO_PACKAGE_CACHE_TTL overrides it).
PACKAGE_CACHE_TTL = 4 * 3600.0

EndpointT = TypeVar("EndpointT", NpmRegistry, PythonIndex)


async def package_search(
    ctx: QueryContext, query: PackageSearchQuery
) -> Answer[PackageSearchResult]:
    """Look a package up on the npm registry or the Python index the user configured."""
    return await ctx.backend(PackageIndexes).search(query)


def _forge_hosts(env: Mapping[str, str]) -> frozenset[str]:
    """Self-hosted forges the user configured, so their URLs count as repositories."""
    hosts = set()
    for name in ("GITLAB_HOST", "GITHUB_API_URL"):
        host = urlsplit(env.get(name, "")).hostname
        if host:
            hosts.add(host.removeprefix("api.").lower())
    return frozenset(hosts)


#: The type of each kind of answer the index clients cache, by the ``kind`` their fetches
#: name: how a team's replicas read back what another one shared.
SHARED_SHAPES: Mapping[str, Any] = {
    "npm-manifest": PackageInfo,
    "npm-packument": PackageInfo,
    "npm-search": list[PackageInfo],
    "pypi-json": PackageInfo,
    "pypi-simple": SimpleProject,
    "pypi-core-metadata": dict[str, Any],
}


@dataclass
class _Discovered(Generic[EndpointT]):
    """An endpoint found in the user's configuration on first use; while none is found,
    each use looks again (the user may configure one meanwhile)."""

    discover: Callable[[Mapping[str, str], Path], Awaitable[EndpointT | None]]
    missing: str
    hint: str
    found: EndpointT | None = None
    lock: anyio.Lock = field(default_factory=anyio.Lock)

    async def get(self, env: Mapping[str, str], cwd: Path) -> EndpointT:
        """The endpoint; TOOL_NOT_AVAILABLE saying how to configure one when there is none."""
        async with self.lock:
            if self.found is None:
                self.found = await self.discover(env, cwd)
        if self.found is None:
            raise ToolNotAvailableError(self.missing, hints=[self.hint])
        return self.found


class PackageIndexes:
    """packageSearch's backend: one per runtime, endpoints discovered once."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.env = runtime.config.env
        # Read once: discovery looks for the project's .npmrc from here.
        self.cwd = Path.cwd()
        self.ttl = env_seconds(self.env, "OCTO_PACKAGE_CACHE_TTL", PACKAGE_CACHE_TTL, zero_ok=True)
        self.forge_hosts = _forge_hosts(self.env)
        self._npm = _Discovered(
            discover_npm_registry,
            "No npm registry is configured",
            "Set OCTO_NPM_REGISTRY to the registry URL (or registry= in .npmrc), "
            "or install npm so `npm config get registry` can answer.",
        )
        self._python = _Discovered(
            discover_python_index,
            "No Python package index is configured",
            "Set OCTO_PYPI_INDEX to the index URL (or PIP_INDEX_URL / index-url in "
            "pip.conf); file:// indexes are not used.",
        )
        self._clients: dict[str, RemoteClient] = {}
        self._python_lookups: dict[str, PythonIndexLookup] = {}

    async def npm_registry(self) -> NpmRegistry:
        """The configured npm registry; a clear error when none is configured."""
        return await self._npm.get(self.env, self.cwd)

    async def python_index(self) -> PythonIndex:
        """The configured Python index; a clear error when none is configured."""
        return await self._python.get(self.env, self.cwd)

    def client(self, base_url: str, policy: PackageIndexPolicy) -> RemoteClient:
        """The transport for one npm registry or Python index URL, built once (with the
        first policy given)."""
        found = self._clients.get(base_url)
        if found is None:
            found = self._clients[base_url] = RemoteClient(
                self.runtime.http,
                self.runtime.cache,
                base_url,
                policy,
                shared=self.runtime.shared,
                meters=self.runtime.meters,
                shapes=SHARED_SHAPES,
            )
        return found

    async def search(self, query: PackageSearchQuery) -> Answer[PackageSearchResult]:
        """Answer one packageSearch query."""
        lookup: NpmLookup | PythonIndexLookup
        if query.keywords is not None:
            return await self._keyword_search(query)
        if query.ecosystem == "npm":
            lookup = await self._npm_lookup(query.package_name)
        else:
            lookup = await self._python_lookup()
        answer = await lookup.search(query)
        other_flag = "pythonFetchMetadata" if query.ecosystem == "npm" else "npmFetchMetadata"
        if getattr(query, other_flag):
            answer.hint(
                f"{other_flag} applies to the other ecosystem and was not used; "
                f"set {'npm' if query.ecosystem == 'npm' else 'python'}FetchMetadata instead."
            )
        answer.hint(*_next_steps(answer.result.packages[0], self.forge_hosts))
        return answer

    async def _keyword_search(self, query: PackageSearchQuery) -> Answer[PackageSearchResult]:
        """Packages found by words: the npm registry's search endpoint (the user's configured
        registry); Python indexes have no search API."""
        if query.ecosystem == "python":
            raise InvalidQueryError(
                "Python indexes have no search API: keywords works with ecosystem npm only",
                hints=[
                    "Look a Python package up by its exact name (name=...).",
                    "Find candidates with githubSearchRepositories (keywordsToSearch, "
                    'topicsToSearch ["python"]).',
                ],
            )
        lookup = await self._npm_lookup("")
        answer = await lookup.search_keywords(query)
        if answer.result.packages:
            answer.hint(*_next_steps(answer.result.packages[0], self.forge_hosts))
        return answer

    async def _npm_lookup(self, name: str) -> NpmLookup:
        registry = await self.npm_registry()
        base = registry.for_package(name)
        credentials = registry.credentials if base == registry.url else None
        policy = PackageIndexPolicy("the npm registry", registry.token_for(base), credentials)
        return NpmLookup(self.client(base, policy), self.ttl)

    async def _python_lookup(self) -> PythonIndexLookup:
        index = await self.python_index()
        found = self._python_lookups.get(index.simple_url)
        if found is None:
            policy = PackageIndexPolicy("the Python index", credentials=index.credentials)
            found = self._python_lookups[index.simple_url] = PythonIndexLookup(
                self.client(index.simple_url, policy), index, self.ttl, self.forge_hosts
            )
        return found


def _next_steps(package: PackageInfo, forge_hosts: frozenset[str]) -> list[str]:
    """Where to go from a package: its source on GitHub or GitLab, or a repository search."""
    hints: list[str] = []
    if package.deprecated:
        hints.append(f"{package.name} is deprecated: {package.deprecationMessage}")
    repository = package.repository
    if repository is None or repository.owner is None:
        hints.append(
            f"No source repository is listed for {package.name}; try githubSearchRepositories "
            f'with keywordsToSearch ["{package.name}"].'
        )
        return hints
    host = (urlsplit(repository.url).hostname or "").lower()
    where = f'owner "{repository.owner}", repo "{repository.repo}"'
    if repository.directory:
        where += f', path "{repository.directory}"'
    if "gitlab" in host or (host in forge_hosts and "github" not in host):
        hints.append(
            f'Explore the source with githubViewRepoStructure, provider "gitlab", {where}.'
        )
    elif "github" in host or host in forge_hosts:
        hints.append(f"Explore the source with githubViewRepoStructure, {where}.")
    return hints
