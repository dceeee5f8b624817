"""The local code tools (search, read, listing, finding, finding then searching); their words
are in tools.toml."""

from __future__ import annotations

from octo.contract import ToolCategory
from octo.contract.family import Binding
from octo.contract.family import family_tools
from octo.local.find_search_models import FindAndSearchQuery
from octo.local.find_search_models import FindAndSearchResult
from octo.local.listing_models import FindFilesQuery
from octo.local.listing_models import FindFilesResult
from octo.local.listing_models import ViewStructureQuery
from octo.local.listing_models import ViewStructureResult
from octo.local.models import LocalGetFileContentQuery
from octo.local.models import LocalGetFileContentResult
from octo.local.search_models import LocalSearchCodeQuery
from octo.local.search_models import LocalSearchCodeResult

TOOLS = family_tools(
    __package__,
    ToolCategory.LOCAL,
    {
        "localSearchCode": Binding(
            LocalSearchCodeQuery, LocalSearchCodeResult, "octo.local.search:search_code", 5
        ),
        "localGetFileContent": Binding(
            LocalGetFileContentQuery,
            LocalGetFileContentResult,
            "octo.local.read:get_file_content",
            5,
        ),
        "localViewStructure": Binding(
            ViewStructureQuery, ViewStructureResult, "octo.local.view_structure:view_structure", 5
        ),
        "localFindFiles": Binding(
            FindFilesQuery, FindFilesResult, "octo.local.find_files:find_files", 5
        ),
        "localFindAndSearchCode": Binding(
            FindAndSearchQuery,
            FindAndSearchResult,
            "octo.local.find_and_search:find_and_search_code",
            5,
        ),
    },
)
