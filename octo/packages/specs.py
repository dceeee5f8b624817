"""packageSearch, defined once; its words are in tools.toml beside this file."""

from __future__ import annotations

from octo.contract import ToolCategory
from octo.contract.family import Binding
from octo.contract.family import family_tools
from octo.packages.models import PackageSearchQuery
from octo.packages.models import PackageSearchResult

TOOLS = family_tools(
    __package__,
    ToolCategory.PACKAGE,
    {
        "packageSearch": Binding(
            PackageSearchQuery, PackageSearchResult, "octo.packages.search:package_search", 3
        ),
    },
)
