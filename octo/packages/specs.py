"""packageSearch, defined once."""

from __future__ import annotations

from octo.contract import ToolCategory, ToolSpec, lazy
from octo.packages.models import PackageSearchQuery, PackageSearchResult

TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="packageSearch",
        title="Search npm and Python packages",
        category=ToolCategory.PACKAGE,
        description=(
            "Look up packages on the npm registry or the Python index the user configured"
            " (OCTO_NPM_REGISTRY / .npmrc / npm; OCTO_PYPI_INDEX / PIP_INDEX_URL / pip.conf /"
            " pip): name, latest version, description, source repository {url, owner, repo,"
            " directory} normalised from every form registries use, homepage, author,"
            " license, deprecation. npmFetchMetadata / pythonFetchMetadata add versions with"
            " dates. searchLimit above 1 also lists similar names where the registry can"
            " search. A missing package is NOT_FOUND with close names when known. Cached 4 h."
        ),
        query_model=PackageSearchQuery,
        result_model=PackageSearchResult,
        handler=lazy("octo.packages.search:package_search"),
        max_queries=3,
        example={"name": "axios", "ecosystem": "npm", "searchLimit": 1},
    )
]
