"""Package lookups on the user's npm registry and Python index, through the shared transport.

npm: ``{registry}{name}/latest`` (one manifest), the whole packument for version
dates or when a mirror has no ``/latest``, and ``-/v1/search`` for similar names
when the registry offers it. Python: the index's JSON API (``{base}/pypi/{name}/json``),
falling back to the standard JSON simple index (PEP 691) and the release's core
metadata file (PEP 658). Answers are cached (4 h by default) per URL by the
shared :class:`~octo.providers.http.RemoteClient`.
"""

from __future__ import annotations

import base64
import difflib
import email.parser
import email.utils
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urljoin, urlsplit

import anyio
import httpx
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from octo.core.config import env_seconds
from octo.core.errors import NotFoundError, ToolNotAvailableError
from octo.legacy import HostAnswer
from octo.packages.models import (
    MAX_LISTED_VERSIONS,
    PackageInfo,
    PackageRepository,
    PackageSearchQuery,
    PackageSearchResult,
    PackageVersion,
)
from octo.providers.registry_config import (
    Credentials,
    NpmRegistry,
    PythonIndex,
    discover_npm_registry,
    discover_python_index,
)
from octo.providers.repository_url import (
    SourceRepository,
    normalize_label,
    normalize_repository,
    repository_from_project_urls,
)
from octo.transports.http_client import RemoteClient
from octo.transports.http_policy import HostPolicy

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

#: Default cache lifetime of registry answers (OCTO_PACKAGE_CACHE_TTL overrides it).
PACKAGE_CACHE_TTL = 4 * 3600.0

_PEP691_JSON = "application/vnd.pypi.simple.v1+json"
_INACTIVE_CLASSIFIER = "Development Status :: 7 - Inactive"


class RegistryPolicy(HostPolicy):
    """A package registry: no rate-limit headers to read; a bearer token or basic credentials."""

    def __init__(
        self, name: str, token: str | None = None, credentials: Credentials | None = None
    ) -> None:
        self.name = name
        self._authorization: str | None = None
        self._secrets: tuple[str, ...] = ()
        if token:
            self._authorization = f"Bearer {token}"
            self._secrets = (token,)
        elif credentials:
            basic = base64.b64encode(":".join(credentials).encode()).decode()
            self._authorization = f"Basic {basic}"
            self._secrets = tuple(s for s in (credentials[1], basic) if s)

    async def headers(self) -> dict[str, str]:
        return {"Authorization": self._authorization} if self._authorization else {}

    def secrets(self) -> tuple[str, ...]:
        return self._secrets

    def auth_hints(self) -> list[str]:
        return ["The registry wants credentials: configure them where npm or pip reads them."]


# --- shared field readers -----------------------------------------------------------------


def _mapping(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = doc.get(key)
    return value if isinstance(value, Mapping) else {}


def _text(value: object) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def _person(value: object) -> str | None:
    """A display name from npm's "Name <mail> (url)" or {name, email}."""
    if isinstance(value, Mapping):
        return _text(value.get("name")) or _text(value.get("email"))
    text = _text(value)
    if text is None:
        return None
    return _text(re.sub(r"<[^>]*>|\([^)]*\)", "", text)) or text


def _python_person(value: object) -> str | None:
    """Display names from a core-metadata person field, e.g. "A <a@x>, B <b@x>"."""
    text = _text(value)
    if text is None or "@" not in text:
        return text
    names = [name or address for name, address in email.utils.getaddresses([text])]
    return ", ".join(n for n in names if n) or text


def _npm_license(doc: Mapping[str, Any]) -> str | None:
    value = doc.get("license")
    if isinstance(value, Mapping):
        return _text(value.get("type"))
    if value is None and isinstance(doc.get("licenses"), list):
        types = [_text(x.get("type")) for x in doc["licenses"] if isinstance(x, Mapping)]
        return " OR ".join(t for t in types if t) or None
    return _text(value)


def _version_key(text: str) -> tuple[int, Version | str]:
    try:
        return (1, Version(text))
    except InvalidVersion:
        return (0, text)


def _listed_versions(dates: Mapping[str, str | None]) -> list[PackageVersion]:
    newest_first = sorted(dates, key=_version_key, reverse=True)
    return [PackageVersion(version=v, date=dates[v]) for v in newest_first[:MAX_LISTED_VERSIONS]]


def _repository_model(source: SourceRepository | None) -> PackageRepository | None:
    if source is None:
        return None
    return PackageRepository(
        url=source.url,
        owner=source.owner,
        repo=source.repo,
        directory=source.directory,
        webUrl=source.web_url,
    )


def _json_body(response: httpx.Response, what: str) -> Any:
    try:
        return response.json()
    except ValueError:
        raise ToolNotAvailableError(
            f"{what} at {response.request.url.copy_with(query=None)} did not answer JSON",
            hints=["Check that the configured registry URL points at a package registry."],
        ) from None


# --- npm ----------------------------------------------------------------------------------


def npm_info(manifest: Mapping[str, Any], fallback: Mapping[str, Any] | None = None) -> PackageInfo:
    """A package from an npm version manifest; ``fallback`` (the packument) fills gaps."""
    fallback = fallback or {}

    def pick(key: str) -> Any:
        value = manifest.get(key)
        return value if value not in (None, "", [], {}) else fallback.get(key)

    deprecated = manifest.get("deprecated")
    keywords = pick("keywords")
    return PackageInfo(
        name=str(pick("name") or ""),
        version=_text(manifest.get("version")),
        description=_text(pick("description")),
        repository=_repository_model(normalize_repository(pick("repository"))),
        homepage=_text(pick("homepage")),
        author=_person(pick("author")),
        license=_npm_license(manifest) or _npm_license(fallback),
        deprecated=True if isinstance(deprecated, str) and deprecated else None,
        deprecationMessage=_text(deprecated),
        keywords=[str(k) for k in keywords] if isinstance(keywords, list) and keywords else None,
    )


def parse_npm_manifest(response: httpx.Response) -> PackageInfo:
    doc = _json_body(response, "The npm registry")
    if not isinstance(doc, Mapping):
        raise ToolNotAvailableError("The npm registry answered an unexpected document")
    return npm_info(doc)


def parse_npm_packument(response: httpx.Response) -> PackageInfo:
    """The latest version of a packument, with its version list and dates."""
    doc = _json_body(response, "The npm registry")
    if not isinstance(doc, Mapping):
        raise ToolNotAvailableError("The npm registry answered an unexpected document")
    versions = _mapping(doc, "versions")
    if not versions:
        # Unpublished packages (and some mirrors' stubs for unknown names) list no versions.
        raise NotFoundError(f"npm package '{doc.get('name')}' has no published versions")
    tags = _mapping(doc, "dist-tags")
    latest = tags.get("latest") or (max(versions, key=_version_key) if versions else None)
    manifest = versions.get(latest) if latest else None
    info = npm_info(manifest if isinstance(manifest, Mapping) else {"version": latest}, doc)
    times = _mapping(doc, "time")
    dates = {v: _text(times.get(v)) for v in versions}
    published = sorted(d for d in dates.values() if d)
    return info.model_copy(
        update={
            "versions": _listed_versions(dates),
            "versionCount": len(versions),
            "created": _text(times.get("created")) or (published[0] if published else None),
            "lastPublished": dates.get(latest) if latest else None,
        }
    )


def parse_npm_search(response: httpx.Response) -> list[PackageInfo]:
    """Packages of a ``-/v1/search`` answer, best match first."""
    doc = _json_body(response, "The npm registry search")
    found: list[PackageInfo] = []
    for item in doc.get("objects", []) if isinstance(doc, Mapping) else []:
        package = item.get("package") if isinstance(item, Mapping) else None
        if not isinstance(package, Mapping) or not package.get("name"):
            continue
        links = _mapping(package, "links")
        found.append(
            PackageInfo(
                name=str(package["name"]),
                version=_text(package.get("version")),
                description=_text(package.get("description")),
                repository=_repository_model(normalize_repository(links.get("repository"))),
                homepage=_text(links.get("homepage")),
                author=_person(package.get("author") or package.get("publisher")),
                license=_text(package.get("license")),
            )
        )
    return found


def npm_package_path(name: str) -> str:
    """The URL path of a package document: a scoped name keeps its @ and encodes its slash."""
    return quote(name, safe="@")


# --- Python -------------------------------------------------------------------------------


def _classifier_license(classifiers: list[str]) -> str | None:
    for classifier in classifiers:
        if classifier.startswith("License ::"):
            return classifier.rsplit("::", 1)[-1].strip()
    return None


def python_info(
    meta: Mapping[str, Any], *, forge_hosts: frozenset[str] = frozenset()
) -> PackageInfo:
    """A package from the JSON API's ``info`` (core metadata is converted to that shape)."""
    project_urls = _mapping(meta, "project_urls")
    home_page = _text(meta.get("home_page"))
    labelled = {normalize_label(k): v for k, v in project_urls.items() if isinstance(v, str)}
    classifiers = [c for c in meta.get("classifiers") or [] if isinstance(c, str)]
    license_text = _text(meta.get("license"))
    if license_text and ("\n" in license_text or len(license_text) > 80):
        license_text = None  # the whole licence text, not a name
    keywords = _text(meta.get("keywords"))
    return PackageInfo(
        name=str(meta.get("name") or ""),
        version=_text(meta.get("version")),
        description=_text(meta.get("summary")),
        repository=_repository_model(
            repository_from_project_urls(project_urls, home_page, forge_hosts=forge_hosts)
        ),
        homepage=_text(labelled.get("homepage")) or home_page,
        author=_python_person(meta.get("author"))
        or _python_person(meta.get("author_email"))
        or _python_person(meta.get("maintainer"))
        or _python_person(meta.get("maintainer_email")),
        license=_text(meta.get("license_expression"))
        or license_text
        or _classifier_license(classifiers),
        deprecated=True if _INACTIVE_CLASSIFIER in classifiers else None,
        deprecationMessage=_INACTIVE_CLASSIFIER if _INACTIVE_CLASSIFIER in classifiers else None,
        keywords=[k.strip() for k in keywords.replace(",", " ").split() if k.strip()]
        if keywords
        else None,
        requiresPython=_text(meta.get("requires_python")),
    )


def parse_pypi_json(
    response: httpx.Response, *, forge_hosts: frozenset[str] = frozenset()
) -> PackageInfo:
    """A package from ``{base}/pypi/{name}/json``, with versions dated by their first upload."""
    doc = _json_body(response, "The Python index")
    info_doc = doc.get("info") if isinstance(doc, Mapping) else None
    if not isinstance(info_doc, Mapping):
        raise ToolNotAvailableError("The Python index answered an unexpected JSON document")
    info = python_info(info_doc, forge_hosts=forge_hosts)
    releases = _mapping(doc, "releases")
    dates: dict[str, str | None] = {}
    for version, files in releases.items():
        uploads = sorted(
            f["upload_time_iso_8601"]
            for f in files or []
            if isinstance(f, Mapping) and isinstance(f.get("upload_time_iso_8601"), str)
        )
        if uploads:
            dates[version] = uploads[0]
    if not dates:
        return info
    return info.model_copy(
        update={
            "versions": _listed_versions(dates),
            "versionCount": len(dates),
            "created": min(d for d in dates.values() if d),
            "lastPublished": dates.get(info.version or ""),
        }
    )


@dataclass(frozen=True)
class SimpleProject:
    """What the PEP 691 project page tells: versions with dates and the latest release's metadata."""

    name: str
    version: str | None
    metadata_url: str | None
    dates: Mapping[str, str | None]
    status: str | None = None


def _file_version(filename: str) -> Version | None:
    try:
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[1]
        return parse_sdist_filename(filename)[1]
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None


def parse_simple_project(response: httpx.Response) -> SimpleProject:
    """The latest final release of a PEP 691 project page, and where its metadata is."""
    content_type = response.headers.get("content-type", "")
    if "json" not in content_type:
        raise ToolNotAvailableError(
            "The Python index answered HTML, not the JSON simple API (PEP 691)",
            hints=["Point OCTO_PYPI_INDEX at an index that serves PEP 691 JSON or the JSON API."],
        )
    doc = _json_body(response, "The Python index")
    by_version: dict[Version, list[Mapping[str, Any]]] = {}
    for file in doc.get("files", []):
        if not isinstance(file, Mapping) or file.get("yanked"):
            continue
        version = _file_version(str(file.get("filename", "")))
        if version is not None:
            by_version.setdefault(version, []).append(file)
    dates: dict[str, str | None] = {}
    for version, files in by_version.items():
        uploads = sorted(f["upload-time"] for f in files if isinstance(f.get("upload-time"), str))
        dates[str(version)] = uploads[0] if uploads else None
    finals = [v for v in by_version if not v.is_prerelease and not v.is_devrelease]
    latest = max(finals or by_version, default=None)
    metadata_url = None
    if latest is not None:
        # Wheels carry static metadata; an sdist's .metadata may be missing.
        files = sorted(by_version[latest], key=lambda f: not str(f["filename"]).endswith(".whl"))
        with_metadata = [
            f for f in files if f.get("core-metadata") or f.get("dist-info-metadata")
        ] or files
        # File URLs may end in "#sha256=...": the metadata file sits beside the file itself.
        file_url = urljoin(str(response.url), str(with_metadata[0]["url"])).split("#", 1)[0]
        metadata_url = file_url + ".metadata"
    status = doc.get("project-status")
    return SimpleProject(
        name=str(doc.get("name") or ""),
        version=str(latest) if latest is not None else None,
        metadata_url=metadata_url,
        dates=dates,
        status=_text(status.get("status")) if isinstance(status, Mapping) else None,
    )


def parse_core_metadata(response: httpx.Response) -> dict[str, Any]:
    """A core metadata file (RFC 822) in the shape of the JSON API's ``info``."""
    message = email.parser.HeaderParser().parsestr(response.text)
    project_urls: dict[str, str] = {}
    for entry in message.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if url.strip():
            project_urls[label.strip()] = url.strip()
    return {
        "name": message.get("Name"),
        "version": message.get("Version"),
        "summary": message.get("Summary"),
        "home_page": message.get("Home-page"),
        "project_urls": project_urls,
        "license_expression": message.get("License-Expression"),
        "license": message.get("License"),
        "author": message.get("Author"),
        "author_email": message.get("Author-email"),
        "maintainer": message.get("Maintainer"),
        "maintainer_email": message.get("Maintainer-email"),
        "classifiers": message.get_all("Classifier") or [],
        "keywords": message.get("Keywords"),
        "requires_python": message.get("Requires-Python"),
    }


# --- the provider -------------------------------------------------------------------------


def _forge_hosts(env: Mapping[str, str]) -> frozenset[str]:
    """Self-hosted forges the user configured, so their URLs count as repositories."""
    hosts = set()
    for name in ("GITLAB_HOST", "GITHUB_API_URL"):
        host = urlsplit(env.get(name, "")).hostname
        if host:
            hosts.add(host.removeprefix("api.").lower())
    return frozenset(hosts)


class PackageRegistries:
    """packageSearch's backend: one per runtime, endpoints discovered once."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.env = runtime.config.env
        self.cwd = Path.cwd()
        self.ttl = env_seconds(self.env, "OCTO_PACKAGE_CACHE_TTL", PACKAGE_CACHE_TTL, zero_ok=True)
        self.forge_hosts = _forge_hosts(self.env)
        self._lock = anyio.Lock()
        self._npm: NpmRegistry | None = None
        self._python: PythonIndex | None = None
        self._clients: dict[str, RemoteClient] = {}
        # Whether a Python index serves the JSON API; None until one lookup tells.
        self._json_api: dict[str, bool] = {}

    async def npm_registry(self) -> NpmRegistry:
        """The configured npm registry; a clear error when none is configured."""
        async with self._lock:
            if self._npm is None:
                self._npm = await discover_npm_registry(self.env, self.cwd)
        if self._npm is None:
            raise ToolNotAvailableError(
                "No npm registry is configured",
                hints=[
                    "Set OCTO_NPM_REGISTRY to the registry URL (or registry= in .npmrc), "
                    "or install npm so `npm config get registry` can answer."
                ],
            )
        return self._npm

    async def python_index(self) -> PythonIndex:
        """The configured Python index; a clear error when none is configured."""
        async with self._lock:
            if self._python is None:
                self._python = await discover_python_index(self.env, self.cwd)
        if self._python is None:
            raise ToolNotAvailableError(
                "No Python package index is configured",
                hints=[
                    "Set OCTO_PYPI_INDEX to the index URL (or PIP_INDEX_URL / index-url in "
                    "pip.conf); file:// indexes are not used."
                ],
            )
        return self._python

    def client(self, base_url: str, policy: RegistryPolicy) -> RemoteClient:
        """The transport for one registry URL, built once (with the first policy given)."""
        found = self._clients.get(base_url)
        if found is None:
            found = self._clients[base_url] = RemoteClient(
                self.runtime.http, self.runtime.cache, base_url, policy
            )
        return found

    async def search(self, query: PackageSearchQuery) -> HostAnswer[PackageSearchResult]:
        """Answer one packageSearch query."""
        if query.ecosystem == "npm":
            answer = await self._search_npm(query)
        else:
            answer = await self._search_python(query)
        other_flag = "pythonFetchMetadata" if query.ecosystem == "npm" else "npmFetchMetadata"
        if getattr(query, other_flag):
            answer.hints.append(
                f"{other_flag} applies to the other ecosystem and was not used; "
                f"set {'npm' if query.ecosystem == 'npm' else 'python'}FetchMetadata instead."
            )
        answer.hints.extend(_next_steps(answer.result.packages[0], self.forge_hosts))
        return answer

    # npm

    async def _search_npm(self, query: PackageSearchQuery) -> HostAnswer[PackageSearchResult]:
        registry = await self.npm_registry()
        base = registry.for_package(query.name)
        credentials = registry.credentials if base == registry.url else None
        policy = RegistryPolicy("the npm registry", registry.token_for(base), credentials)
        client = self.client(base, policy)
        answer = HostAnswer(PackageSearchResult(ecosystem="npm", packages=[]), cached=True)
        exact: PackageInfo | None = None
        try:
            exact = await self._npm_package(client, query.name, query.npmFetchMetadata, answer)
        except NotFoundError:
            exact = None
        if query.searchLimit == 1 and exact is not None:
            answer.result.packages.append(exact)
            return answer
        similar = await self._npm_similar(client, query.name, max(query.searchLimit, 5), answer)
        if exact is None and (query.searchLimit == 1 or not similar):
            raise self._not_found("npm", query.name, [p.name for p in similar or []])
        packages = [exact] if exact is not None else []
        if similar is None:
            answer.hints.append(
                "This npm registry has no search endpoint: only the exact name was looked up."
            )
        else:
            if exact is None:
                answer.hints.append(f"No npm package is named exactly '{query.name}'.")
            packages += [p for p in similar if p.name != query.name]
        answer.result.packages.extend(packages[: query.searchLimit])
        return answer

    async def _npm_package(
        self,
        client: RemoteClient,
        name: str,
        with_metadata: bool,
        answer: HostAnswer[PackageSearchResult],
    ) -> PackageInfo:
        path = npm_package_path(name)
        if not with_metadata:
            try:
                latest = await client.fetch(
                    f"{path}/latest", kind="npm-manifest", ttl=self.ttl, parse=parse_npm_manifest
                )
                answer.cached &= latest.cached
                return latest.value.without_metadata()
            except NotFoundError:
                pass  # a missing package, or a mirror without /latest: the packument tells
        whole = await client.fetch(
            path, kind="npm-packument", ttl=self.ttl, parse=parse_npm_packument
        )
        answer.cached &= whole.cached
        return whole.value if with_metadata else whole.value.without_metadata()

    async def _npm_similar(
        self, client: RemoteClient, name: str, size: int, answer: HostAnswer[PackageSearchResult]
    ) -> list[PackageInfo] | None:
        """Packages the registry's search finds for ``name``; None without a search endpoint."""
        try:
            found = await client.fetch(
                "-/v1/search",
                params={"text": name, "size": size},
                kind="npm-search",
                ttl=self.ttl,
                parse=parse_npm_search,
            )
        except NotFoundError:
            return None
        answer.cached &= found.cached
        return found.value

    # Python

    async def _search_python(self, query: PackageSearchQuery) -> HostAnswer[PackageSearchResult]:
        index = await self.python_index()
        client = self.client(
            index.simple_url, RegistryPolicy("the Python index", credentials=index.credentials)
        )
        answer = HostAnswer(PackageSearchResult(ecosystem="python", packages=[]), cached=True)
        info = None
        if self._json_api.get(index.simple_url, True):
            info = await self._python_json(client, index, query.name, answer)
        if info is None:
            info = await self._python_simple(client, index, query.name, answer)
        answer.result.packages.append(
            info if query.pythonFetchMetadata else info.without_metadata()
        )
        if query.searchLimit > 1:
            answer.hints.append(
                "Python indexes offer no search API: only the exact name was looked up "
                f"(searchLimit {query.searchLimit} could not be honoured)."
            )
        return answer

    async def _python_json(
        self,
        client: RemoteClient,
        index: PythonIndex,
        name: str,
        answer: HostAnswer[PackageSearchResult],
    ) -> PackageInfo | None:
        """The JSON API's answer; None when the index may simply lack the JSON API."""
        try:
            found = await client.fetch(
                f"{index.json_api_url}/{quote(name)}/json",
                kind="pypi-json",
                ttl=self.ttl,
                parse=lambda r: parse_pypi_json(r, forge_hosts=self.forge_hosts),
            )
        except NotFoundError:
            if self._json_api.get(index.simple_url):
                raise self._not_found("python", name, []) from None
            return None
        self._json_api[index.simple_url] = True
        answer.cached &= found.cached
        return found.value

    async def _python_simple(
        self,
        client: RemoteClient,
        index: PythonIndex,
        name: str,
        answer: HostAnswer[PackageSearchResult],
    ) -> PackageInfo:
        try:
            page = await client.fetch(
                f"{index.simple_url}{canonicalize_name(name)}/",
                headers={"Accept": _PEP691_JSON},
                kind="pypi-simple",
                ttl=self.ttl,
                parse=parse_simple_project,
            )
        except NotFoundError:
            raise self._not_found("python", name, []) from None
        self._json_api.setdefault(index.simple_url, False)
        answer.cached &= page.cached
        project = page.value
        info = PackageInfo(name=project.name or name, version=project.version)
        if project.metadata_url is not None:
            try:
                meta = await client.fetch(
                    project.metadata_url,
                    kind="pypi-core-metadata",
                    ttl=self.ttl,
                    parse=parse_core_metadata,
                )
                answer.cached &= meta.cached
                info = python_info(meta.value, forge_hosts=self.forge_hosts)
            except NotFoundError:
                answer.hints.append(
                    f"The index has no core metadata file for {info.name} {info.version}: "
                    "description, licence and repository are unknown."
                )
        if project.status in ("archived", "deprecated"):
            info = info.model_copy(
                update={"deprecated": True, "deprecationMessage": f"project {project.status}"}
            )
        dates = project.dates
        published = sorted(d for d in dates.values() if d)
        return info.model_copy(
            update={
                "versions": _listed_versions(dates) if dates else None,
                "versionCount": len(dates) or None,
                "created": published[0] if published else None,
                "lastPublished": dates.get(info.version or ""),
            }
        )

    @staticmethod
    def _not_found(ecosystem: str, name: str, similar: list[str]) -> NotFoundError:
        close = difflib.get_close_matches(name, similar, n=3, cutoff=0.6) or similar[:3]
        hints = [f"Did you mean: {', '.join(close)}?"] if close else []
        if ecosystem == "python":
            hints.append(
                "Distribution names can differ from import names (import yaml is PyYAML); "
                "check the spelling, or try ecosystem npm."
            )
        else:
            hints.append("Check the spelling and the scope (@scope/name), or try ecosystem python.")
        where = "on the npm registry" if ecosystem == "npm" else "on the Python index"
        return NotFoundError(f"No package named '{name}' {where}", hints=hints)


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
