"""The local code tools (search, read, listing, finding, finding then searching, structural
search, git history and blame, the import graph); their words
are in tools.toml."""

from __future__ import annotations

from octo.contract import ToolCategory
from octo.contract.family import Binding
from octo.contract.family import family_tools
from octo.local.find_and_search import FindAndSearchResult
from octo.local.graph.models import DependencyGraphQuery
from octo.local.graph.models import DependencyGraphResult
from octo.local.history.models import GitBlameQuery
from octo.local.history.models import GitBlameResult
from octo.local.history.models import GitHistoryQuery
from octo.local.history.models import GitHistoryResult
from octo.local.listing.models import FindFilesResult
from octo.local.listing.models import ViewStructureResult
from octo.local.models import LocalGetFileContentQuery
from octo.local.models import LocalGetFileContentResult
from octo.local.places.paths import FindAndSearchPlaces
from octo.local.places.paths import FindFilesPlaces
from octo.local.places.paths import SearchCodePlaces
from octo.local.places.paths import ViewStructurePlaces
from octo.local.search.models import LocalSearchCodeResult
from octo.local.structure.models import SearchStructureQuery
from octo.local.structure.models import SearchStructureResult

TOOLS = family_tools(
    __package__,
    ToolCategory.LOCAL,
    {
        "localSearchCode": Binding(
            SearchCodePlaces,
            LocalSearchCodeResult,
            "octo.local.search.handler:search_code",
            5,
            places="octo.local.places.tools:SEARCH_CODE",
        ),
        "localGetFileContent": Binding(
            LocalGetFileContentQuery,
            LocalGetFileContentResult,
            "octo.local.read.handler:get_file_content",
            5,
        ),
        "localViewStructure": Binding(
            ViewStructurePlaces,
            ViewStructureResult,
            "octo.local.listing.view_structure:view_structure",
            5,
            places="octo.local.places.tools:VIEW_STRUCTURE",
        ),
        "localFindFiles": Binding(
            FindFilesPlaces,
            FindFilesResult,
            "octo.local.listing.find_files:find_files",
            5,
            places="octo.local.places.tools:FIND_FILES",
        ),
        "localFindAndSearchCode": Binding(
            FindAndSearchPlaces,
            FindAndSearchResult,
            "octo.local.find_and_search:find_and_search_code",
            5,
            places="octo.local.places.tools:FIND_AND_SEARCH_CODE",
        ),
        "localSearchStructure": Binding(
            SearchStructureQuery,
            SearchStructureResult,
            "octo.local.structure.search:search_structure",
            5,
        ),
        "localGitHistory": Binding(
            GitHistoryQuery, GitHistoryResult, "octo.local.history.log:git_history", 5
        ),
        "localGitBlame": Binding(
            GitBlameQuery, GitBlameResult, "octo.local.history.blame:git_blame", 5
        ),
        "localDependencyGraph": Binding(
            DependencyGraphQuery,
            DependencyGraphResult,
            "octo.local.graph.handler:dependency_graph",
            5,
        ),
    },
)
