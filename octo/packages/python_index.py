"""Package lookups on a Python index, and reading what it answers.

The index's JSON API (``{base}/pypi/{name}/json``) first; an index without it is asked
through the standard JSON simple index (PEP 691) and the latest release's core metadata
file (PEP 658).
"""

from __future__ import annotations

import email.parser
import email.utils
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote
from urllib.parse import urljoin

import httpx
from packaging.utils import InvalidSdistFilename
from packaging.utils import InvalidWheelFilename
from packaging.utils import canonicalize_name
from packaging.utils import parse_sdist_filename
from packaging.utils import parse_wheel_filename
from packaging.version import InvalidVersion
from packaging.version import Version

from octo.contract import Answer
from octo.core.errors import NotFoundError
from octo.core.errors import ToolNotAvailableError
from octo.packages.documents import METADATA_MAX_BYTES
from octo.packages.documents import json_body
from octo.packages.documents import listed_versions
from octo.packages.documents import mapping
from octo.packages.documents import text
from octo.packages.endpoints import PythonIndex
from octo.packages.models import PackageInfo
from octo.packages.models import PackageSearchQuery
from octo.packages.models import PackageSearchResult
from octo.packages.repository_url import normalize_label
from octo.packages.repository_url import repository_from_project_urls
from octo.transports.http.client import RemoteClient

_PEP691_JSON = "application/vnd.pypi.simple.v1+json"
_INACTIVE_CLASSIFIER = "Development Status :: 7 - Inactive"


def _person(value: object) -> str | None:
    """Display names from a core-metadata person field, e.g. "A <a@x>, B <b@x>"."""
    found = text(value)
    if found is None or "@" not in found:
        return found
    names = [name or address for name, address in email.utils.getaddresses([found])]
    return ", ".join(n for n in names if n) or found


def _classifier_license(classifiers: list[str]) -> str | None:
    for classifier in classifiers:
        if classifier.startswith("License ::"):
            return classifier.rsplit("::", 1)[-1].strip()
    return None


def python_info(
    meta: Mapping[str, Any], *, forge_hosts: frozenset[str] = frozenset()
) -> PackageInfo:
    """A package from the JSON API's ``info`` (core metadata is converted to that shape)."""
    project_urls = mapping(meta, "project_urls")
    home_page = text(meta.get("home_page"))
    labelled = {normalize_label(k): v for k, v in project_urls.items() if isinstance(v, str)}
    classifiers = [c for c in meta.get("classifiers") or [] if isinstance(c, str)]
    license_text = text(meta.get("license"))
    if license_text and ("\n" in license_text or len(license_text) > 80):
        license_text = None  # the whole licence text, not a name
    keywords = text(meta.get("keywords"))
    return PackageInfo(
        name=str(meta.get("name") or ""),
        version=text(meta.get("version")),
        description=text(meta.get("summary")),
        repository=repository_from_project_urls(project_urls, home_page, forge_hosts=forge_hosts),
        homepage=text(labelled.get("homepage")) or home_page,
        author=_person(meta.get("author"))
        or _person(meta.get("author_email"))
        or _person(meta.get("maintainer"))
        or _person(meta.get("maintainer_email")),
        license=text(meta.get("license_expression"))
        or license_text
        or _classifier_license(classifiers),
        deprecated=True if _INACTIVE_CLASSIFIER in classifiers else None,
        deprecationMessage=_INACTIVE_CLASSIFIER if _INACTIVE_CLASSIFIER in classifiers else None,
        keywords=[k.strip() for k in keywords.replace(",", " ").split() if k.strip()]
        if keywords
        else None,
        requiresPython=text(meta.get("requires_python")),
    )


def parse_pypi_json(
    response: httpx.Response, *, forge_hosts: frozenset[str] = frozenset()
) -> PackageInfo:
    """A package from ``{base}/pypi/{name}/json``, with versions dated by their first upload."""
    doc = json_body(response, "The Python index")
    info_doc = doc.get("info") if isinstance(doc, Mapping) else None
    if not isinstance(info_doc, Mapping):
        raise ToolNotAvailableError("The Python index answered an unexpected JSON document")
    info = python_info(info_doc, forge_hosts=forge_hosts)
    releases = mapping(doc, "releases")
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
            "versions": listed_versions(dates),
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
    doc = json_body(response, "The Python index")
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
        status=text(status.get("status")) if isinstance(status, Mapping) else None,
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


def _not_found(name: str) -> NotFoundError:
    return NotFoundError(
        f"No package named '{name}' on the Python index",
        hints=[
            "Distribution names can differ from import names (import yaml is PyYAML); "
            "check the spelling, or try ecosystem npm."
        ],
    )


class PythonIndexLookup:
    """Lookups on one Python index; answers are cached ``ttl`` seconds.

    Remembers whether the index serves the JSON API once a lookup has told, so an index
    without it is asked only through the simple index from then on.
    """

    def __init__(
        self, client: RemoteClient, index: PythonIndex, ttl: float, forge_hosts: frozenset[str]
    ) -> None:
        self.client = client
        self.index = index
        self.ttl = ttl
        self.forge_hosts = forge_hosts
        #: Whether the index serves the JSON API; None until one lookup tells.
        self.json_api: bool | None = None

    async def search(self, query: PackageSearchQuery) -> Answer[PackageSearchResult]:
        """The package named exactly ``query.package_name`` (Python indexes cannot search)."""
        answer = Answer(PackageSearchResult(ecosystem="python", packages=[]), cached=True)
        info = None
        if self.json_api is not False:
            info = await self._from_json_api(query.package_name, answer)
        if info is None:
            info = await self._from_simple_index(query.package_name, answer)
        answer.result.packages.append(
            info if query.pythonFetchMetadata else info.without_metadata()
        )
        if query.searchLimit > 1:
            answer.hint(
                "Python indexes offer no search API: only the exact name was looked up "
                f"(searchLimit {query.searchLimit} could not be honoured)."
            )
        return answer

    async def _from_json_api(
        self, name: str, answer: Answer[PackageSearchResult]
    ) -> PackageInfo | None:
        """The JSON API's answer; None when the index may simply lack the JSON API."""
        try:
            found = await self.client.fetch(
                f"{self.index.json_api_url}/{quote(name)}/json",
                kind="pypi-json",
                ttl=self.ttl,
                parse=lambda r: parse_pypi_json(r, forge_hosts=self.forge_hosts),
                max_bytes=METADATA_MAX_BYTES,
            )
        except NotFoundError:
            if self.json_api:
                raise _not_found(name) from None
            return None
        self.json_api = True
        answer.cached &= found.cached
        answer.hint(*found.notes)
        return found.value

    async def _from_simple_index(
        self, name: str, answer: Answer[PackageSearchResult]
    ) -> PackageInfo:
        try:
            page = await self.client.fetch(
                f"{self.index.simple_url}{canonicalize_name(name)}/",
                headers={"Accept": _PEP691_JSON},
                kind="pypi-simple",
                ttl=self.ttl,
                parse=parse_simple_project,
            )
        except NotFoundError:
            raise _not_found(name) from None
        if self.json_api is None:
            self.json_api = False
        answer.cached &= page.cached
        answer.hint(*page.notes)
        project = page.value
        info = PackageInfo(name=project.name or name, version=project.version)
        if project.metadata_url is not None:
            try:
                meta = await self.client.fetch(
                    project.metadata_url,
                    kind="pypi-core-metadata",
                    ttl=self.ttl,
                    parse=parse_core_metadata,
                )
                answer.cached &= meta.cached
                answer.hint(*meta.notes)
                info = python_info(meta.value, forge_hosts=self.forge_hosts)
            except NotFoundError:
                answer.hint(
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
                "versions": listed_versions(dates) if dates else None,
                "versionCount": len(dates) or None,
                "created": published[0] if published else None,
                "lastPublished": dates.get(info.version or ""),
            }
        )
