"""The local code tools (search, read, listing, finding, finding then searching, structural
search); their words
are in tools.toml."""

from __future__ import annotations

from octo.contract import ToolCategory
from octo.contract.family import Binding
from octo.contract.family import family_tools
from octo.local.find_search_models import FindAndSearchResult
from octo.local.listing_models import FindFilesResult
from octo.local.listing_models import ViewStructureResult
from octo.local.models import LocalGetFileContentQuery
from octo.local.models import LocalGetFileContentResult
from octo.local.place_models import FindAndSearchPlaces
from octo.local.place_models import FindFilesPlaces
from octo.local.place_models import SearchCodePlaces
from octo.local.place_models import ViewStructurePlaces
from octo.local.search_models import LocalSearchCodeResult
from octo.local.structure.models import SearchStructureQuery
from octo.local.structure.models import SearchStructureResult

TOOLS = family_tools(
    __package__,
    ToolCategory.LOCAL,
    {
        "localSearchCode": Binding(
            SearchCodePlaces, LocalSearchCodeResult, "octo.local.place_tools:search_code", 5
        ),
        "localGetFileContent": Binding(
            LocalGetFileContentQuery,
            LocalGetFileContentResult,
            "octo.local.read:get_file_content",
            5,
        ),
        "localViewStructure": Binding(
            ViewStructurePlaces,
            ViewStructureResult,
            "octo.local.place_tools:view_structure",
            5,
        ),
        "localFindFiles": Binding(
            FindFilesPlaces, FindFilesResult, "octo.local.place_tools:find_files", 5
        ),
        "localFindAndSearchCode": Binding(
            FindAndSearchPlaces,
            FindAndSearchResult,
            "octo.local.place_tools:find_and_search_code",
            5,
        ),
        "localSearchStructure": Binding(
            SearchStructureQuery,
            SearchStructureResult,
            "octo.local.structure.search:search_structure",
            5,
        ),
    },
)
