"""Package lookups on an npm registry, and reading what it answers.

``{registry}{name}/latest`` gives one manifest; the whole packument gives version dates,
and answers when a mirror has no ``/latest``; ``-/v1/search`` finds similar names where
the registry offers it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from octo.contract import Answer
from octo.core.errors import NotFoundError
from octo.core.errors import ToolNotAvailableError
from octo.packages.documents import METADATA_MAX_BYTES
from octo.packages.documents import json_body
from octo.packages.documents import listed_versions
from octo.packages.documents import mapping
from octo.packages.documents import text
from octo.packages.documents import version_key
from octo.packages.models import KeywordPagination
from octo.packages.models import PackageInfo
from octo.packages.models import PackageSearchQuery
from octo.packages.models import PackageSearchResult
from octo.packages.repository_url import normalize_repository
from octo.transports.http.client import RemoteClient


def _person(value: object) -> str | None:
    """A display name from npm's "Name <mail> (url)" or {name, email}."""
    if isinstance(value, Mapping):
        return text(value.get("name")) or text(value.get("email"))
    found = text(value)
    if found is None:
        return None
    return text(re.sub(r"<[^>]*>|\([^)]*\)", "", found)) or found


def _license(doc: Mapping[str, Any]) -> str | None:
    value = doc.get("license")
    if isinstance(value, Mapping):
        return text(value.get("type"))
    if value is None and isinstance(doc.get("licenses"), list):
        types = [text(x.get("type")) for x in doc["licenses"] if isinstance(x, Mapping)]
        return " OR ".join(t for t in types if t) or None
    return text(value)


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
        version=text(manifest.get("version")),
        description=text(pick("description")),
        repository=normalize_repository(pick("repository")),
        homepage=text(pick("homepage")),
        author=_person(pick("author")),
        license=_license(manifest) or _license(fallback),
        deprecated=True if isinstance(deprecated, str) and deprecated else None,
        deprecationMessage=text(deprecated),
        keywords=[str(k) for k in keywords] if isinstance(keywords, list) and keywords else None,
    )


def _document(response: httpx.Response) -> Mapping[str, Any]:
    doc = json_body(response, "The npm registry")
    if not isinstance(doc, Mapping):
        raise ToolNotAvailableError("The npm registry answered an unexpected document")
    return doc


def parse_npm_manifest(response: httpx.Response) -> PackageInfo:
    """The package of a ``{name}/latest`` manifest."""
    return npm_info(_document(response))


def parse_npm_packument(response: httpx.Response) -> PackageInfo:
    """The latest version of a packument, with its version list and dates."""
    doc = _document(response)
    versions = mapping(doc, "versions")
    if not versions:
        # Unpublished packages (and some mirrors' stubs for unknown names) list no versions.
        raise NotFoundError(f"npm package '{doc.get('name')}' has no published versions")
    tags = mapping(doc, "dist-tags")
    latest = tags.get("latest") or (max(versions, key=version_key) if versions else None)
    manifest = versions.get(latest) if latest else None
    info = npm_info(manifest if isinstance(manifest, Mapping) else {"version": latest}, doc)
    times = mapping(doc, "time")
    dates = {v: text(times.get(v)) for v in versions}
    published = sorted(d for d in dates.values() if d)
    return info.model_copy(
        update={
            "versions": listed_versions(dates),
            "versionCount": len(versions),
            "created": text(times.get("created")) or (published[0] if published else None),
            "lastPublished": dates.get(latest) if latest else None,
        }
    )


def parse_npm_search(response: httpx.Response) -> list[PackageInfo]:
    """Packages of a ``-/v1/search`` answer, best match first."""
    doc = json_body(response, "The npm registry search")
    found: list[PackageInfo] = []
    for item in doc.get("objects", []) if isinstance(doc, Mapping) else []:
        package = item.get("package") if isinstance(item, Mapping) else None
        if not isinstance(package, Mapping) or not package.get("name"):
            continue
        links = mapping(package, "links")
        found.append(
            PackageInfo(
                name=str(package["name"]),
                version=text(package.get("version")),
                description=text(package.get("description")),
                repository=normalize_repository(links.get("repository")),
                homepage=text(links.get("homepage")),
                author=_person(package.get("author") or package.get("publisher")),
                license=text(package.get("license")),
            )
        )
    return found


def npm_package_path(name: str) -> str:
    """The URL path of a package document: a scoped name keeps its @ and encodes its slash."""
    return quote(name, safe="@")


def _not_found(name: str, similar: list[str]) -> NotFoundError:
    close = difflib.get_close_matches(name, similar, n=3, cutoff=0.6) or similar[:3]
    hints = [f"Did you mean: {', '.join(close)}?"] if close else []
    hints.append("Check the spelling and the scope (@scope/name), or try ecosystem python.")
    return NotFoundError(f"No package named '{name}' on the npm registry", hints=hints)


@dataclass(frozen=True)
class NpmLookup:
    """Lookups on one npm registry URL; answers are cached ``ttl`` seconds."""

    client: RemoteClient
    ttl: float

    async def search(self, query: PackageSearchQuery) -> Answer[PackageSearchResult]:
        """The package named ``query.package_name`` and, with ``searchLimit`` above 1, similar ones."""
        answer = Answer(PackageSearchResult(ecosystem="npm", packages=[]), cached=True)
        exact: PackageInfo | None = None
        try:
            exact = await self._package(query.package_name, query.npmFetchMetadata, answer)
        except NotFoundError:
            exact = None
        if query.searchLimit == 1 and exact is not None:
            answer.result.packages.append(exact)
            return answer
        similar = await self._similar(query.package_name, max(query.searchLimit, 5), answer)
        if exact is None and (query.searchLimit == 1 or not similar):
            raise _not_found(query.package_name, [p.name for p in similar or []])
        packages = [exact] if exact is not None else []
        if similar is None:
            answer.hint(
                "This npm registry has no search endpoint: only the exact name was looked up."
            )
        else:
            if exact is None:
                answer.hint(f"No npm package is named exactly '{query.package_name}'.")
            packages += [p for p in similar if p.name != query.package_name]
        answer.result.packages.extend(packages[: query.searchLimit])
        return answer

    async def search_keywords(self, query: PackageSearchQuery) -> Answer[PackageSearchResult]:
        """One page (``searchLimit`` packages) of the registry's search for ``query.keywords``."""
        assert query.keywords is not None
        size = query.searchLimit
        try:
            found = await self.client.fetch(
                "-/v1/search",
                params={
                    "text": " ".join(query.keywords),
                    "size": size,
                    "from": (query.page - 1) * size,
                },
                kind="npm-search",
                ttl=self.ttl,
                parse=parse_npm_search,
            )
        except NotFoundError:
            raise ToolNotAvailableError(
                "This npm registry has no search endpoint (-/v1/search)",
                hints=[
                    "Look packages up by exact name instead (name=...).",
                    "Or point npm at a registry that searches (npm config set registry URL).",
                ],
            ) from None
        more = len(found.value) == size
        answer = Answer(
            PackageSearchResult(
                ecosystem="npm",
                packages=found.value,
                pagination=KeywordPagination(currentPage=query.page, hasMore=more),
            ),
            cached=found.cached,
        )
        answer.hint(*found.notes)
        if not found.value:
            answer.hint("Nothing found: use fewer or more general words.")
        if more and query.page < 10:
            answer.hint(f"More packages: page={query.page + 1}.")
        return answer

    async def _package(
        self, name: str, with_metadata: bool, answer: Answer[PackageSearchResult]
    ) -> PackageInfo:
        path = npm_package_path(name)
        if not with_metadata:
            try:
                latest = await self.client.fetch(
                    f"{path}/latest", kind="npm-manifest", ttl=self.ttl, parse=parse_npm_manifest
                )
                answer.cached &= latest.cached
                answer.hint(*latest.notes)
                return latest.value.without_metadata()
            except NotFoundError:
                pass  # a missing package, or a mirror without /latest: the packument tells
        whole = await self.client.fetch(
            path,
            kind="npm-packument",
            ttl=self.ttl,
            parse=parse_npm_packument,
            max_bytes=METADATA_MAX_BYTES,
        )
        answer.cached &= whole.cached
        answer.hint(*whole.notes)
        return whole.value if with_metadata else whole.value.without_metadata()

    async def _similar(
        self, name: str, size: int, answer: Answer[PackageSearchResult]
    ) -> list[PackageInfo] | None:
        """Packages the registry's search finds for ``name``; None without a search endpoint."""
        try:
            found = await self.client.fetch(
                "-/v1/search",
                params={"text": name, "size": size},
                kind="npm-search",
                ttl=self.ttl,
                parse=parse_npm_search,
            )
        except NotFoundError:
            return None
        answer.cached &= found.cached
        answer.hint(*found.notes)
        return found.value
