"""Query and result models of packageSearch (npm registry and Python index)."""

from __future__ import annotations

import re
from typing import ClassVar
from typing import Literal

from pydantic import BaseModel
from pydantic import Field
from pydantic import model_validator

from octo.core.budget import TokenInfo
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import optional

Ecosystem = Literal["npm", "python"]

# npm allows legacy upper-case names; both patterns keep names out of URL paths' way.
_NPM_NAME = re.compile(r"^(?:@[A-Za-z0-9~][\w.~-]*/)?[A-Za-z0-9~][\w.~-]*$")
_PYTHON_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")

#: How many versions a fetch-metadata answer lists (newest first).
MAX_LISTED_VERSIONS = 20


class PackageSearchQuery(ToolQuery):
    """Look up a package by name on the configured npm registry or Python index."""

    name: str | None = optional(
        'Package name, e.g. "axios", "@babel/core", "requests".', min_length=1, max_length=214
    )
    ecosystem: Ecosystem = Field(description='"npm" or "python".')
    keywords: list[str] | None = optional(
        "npm: find packages by words (names, descriptions, keywords) instead of name.",
        min_length=1,
        max_length=5,
    )
    page: int = Field(default=1, ge=1, le=10, description="keywords: page of searchLimit results.")
    searchLimit: int = Field(
        default=1,
        ge=1,
        le=10,
        description="Max packages to return (1-10); above 1, similar names are searched too.",
    )
    npmFetchMetadata: bool = Field(
        default=False, description="npm: also list versions with their publish dates."
    )
    pythonFetchMetadata: bool = Field(
        default=False, description="python: also list versions with their upload dates."
    )

    @model_validator(mode="after")
    def _check_name(self) -> PackageSearchQuery:
        if (self.name is None) == (self.keywords is None):
            raise ValueError("give name (one package) or keywords (a search), one of them")
        if self.keywords is not None:
            if any(not k.strip() or len(k) > 100 for k in self.keywords):
                raise ValueError("keywords: each 1-100 characters, not blank")
            return self
        assert self.name is not None
        self.name = self.name.strip()
        pattern = _NPM_NAME if self.ecosystem == "npm" else _PYTHON_NAME
        if not pattern.match(self.name):
            example = '"lodash" or "@scope/name"' if self.ecosystem == "npm" else '"requests"'
            raise ValueError(
                f"name: '{self.name}' is not a valid {self.ecosystem} package name (e.g. {example})"
            )
        return self

    @property
    def package_name(self) -> str:
        """The name a name query looks up (keyword queries search instead)."""
        assert self.name is not None, "a keyword query has no package name"
        return self.name


class PackageRepository(BaseModel):
    """A package's source repository, normalised from whatever form the index gave."""

    type: str = "git"
    url: str = Field(description="Browsable repository root, https://host/owner/repo.")
    owner: str | None = optional("Owner; a group path on GitLab.")
    repo: str | None = None
    directory: str | None = optional("The package's folder in a monorepo.")
    webUrl: str | None = optional("Browsable URL of that folder.")


class PackageVersion(BaseModel):
    version: str
    date: str | None = optional("Publish or upload time (ISO 8601).")


class PackageInfo(BaseModel):
    """One package as the npm registry or Python index describes it."""

    name: str
    version: str | None = optional("Latest version.")
    description: str | None = None
    repository: PackageRepository | None = None
    homepage: str | None = None
    author: str | None = None
    license: str | None = None
    deprecated: bool | None = None
    deprecationMessage: str | None = None
    # Filled with npmFetchMetadata / pythonFetchMetadata:
    versions: list[PackageVersion] | None = optional(
        f"Up to {MAX_LISTED_VERSIONS} versions, newest first."
    )
    versionCount: int | None = None
    created: str | None = optional("First publish time.")
    lastPublished: str | None = optional("Latest publish time.")
    keywords: list[str] | None = None
    requiresPython: str | None = None

    def without_metadata(self) -> PackageInfo:
        """This package without the fetch-metadata fields."""
        return self.model_copy(
            update={
                "versions": None,
                "versionCount": None,
                "created": None,
                "lastPublished": None,
                "keywords": None,
                "requiresPython": None,
            }
        )


class KeywordPagination(BaseModel):
    currentPage: int
    hasMore: bool


class PackageSearchResult(ToolResult):
    items_field: ClassVar[str] = "packages"

    ecosystem: Ecosystem
    packages: list[PackageInfo]
    pagination: KeywordPagination | None = optional(
        "keywords: the page shown and whether more follow."
    )
    tokens: TokenInfo | None = None
