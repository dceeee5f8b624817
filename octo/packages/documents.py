"""Reading the JSON documents an npm registry and a Python index answer: fields that may be
missing or of the wrong type, version lists, the source repository."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
from packaging.version import InvalidVersion
from packaging.version import Version

from octo.core.errors import ToolNotAvailableError
from octo.packages.models import MAX_LISTED_VERSIONS
from octo.packages.models import PackageVersion

#: The most a package's whole metadata may hold (an npm packument, a PyPI JSON document,
#: every release listed): larger than one API page, far below what would strain memory.
METADATA_MAX_BYTES = 32 * 1024 * 1024


def mapping(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """``doc[key]`` when it is an object, else an empty one."""
    value = doc.get(key)
    return value if isinstance(value, Mapping) else {}


def text(value: object) -> str | None:
    """A non-blank string, stripped; None for anything else."""
    return (value.strip() or None) if isinstance(value, str) else None


def version_key(version: str) -> tuple[int, Version | str]:
    """Sort key of a version: valid versions by PEP 440 order, above any invalid one."""
    try:
        return (1, Version(version))
    except InvalidVersion:
        return (0, version)


def listed_versions(dates: Mapping[str, str | None]) -> list[PackageVersion]:
    """The newest versions with their dates, newest first."""
    newest_first = sorted(dates, key=version_key, reverse=True)
    return [PackageVersion(version=v, date=dates[v]) for v in newest_first[:MAX_LISTED_VERSIONS]]


def json_body(response: httpx.Response, what: str) -> Any:
    """The response's JSON; TOOL_NOT_AVAILABLE naming ``what`` when it is not JSON."""
    try:
        return response.json()
    except ValueError:
        raise ToolNotAvailableError(
            f"{what} at {response.request.url.copy_with(query=None)} did not answer JSON",
            hints=["Check that the configured registry URL points at a package registry."],
        ) from None
