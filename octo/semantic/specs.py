"""The semantic code search tools (spec 004); their words are in tools.toml."""

from __future__ import annotations

from octo.contract import ToolCategory
from octo.contract.family import Binding
from octo.contract.family import family_tools
from octo.semantic.models import ClearIndexResult
from octo.semantic.models import IndexCodebaseQuery
from octo.semantic.models import IndexCodebaseResult
from octo.semantic.models import IndexNameQuery
from octo.semantic.models import IndexStatsQuery
from octo.semantic.models import IndexStatsResult
from octo.semantic.models import ListIndexesQuery
from octo.semantic.models import ListIndexesResult
from octo.semantic.models import SemanticSearchQuery
from octo.semantic.models import SemanticSearchResult

#: Indexing a large tree writes its keyword side in seconds to minutes; waiting for every
#: vector (waitForEmbeddings) may take far longer, and the work is resumable.
INDEX_TIMEOUT = 3600.0

TOOLS = family_tools(
    __package__,
    ToolCategory.SEMANTIC,
    {
        "semanticSearchCode": Binding(
            SemanticSearchQuery, SemanticSearchResult, "octo.semantic.search_code:search_code", 5
        ),
        "semanticIndexCodebase": Binding(
            IndexCodebaseQuery,
            IndexCodebaseResult,
            "octo.semantic.index_codebase:index_codebase",
            3,
            timeout=INDEX_TIMEOUT,
            read_only=False,
        ),
        "semanticListIndexes": Binding(
            ListIndexesQuery, ListIndexesResult, "octo.semantic.indexes:list_indexes", 3
        ),
        "semanticIndexStats": Binding(
            IndexStatsQuery, IndexStatsResult, "octo.semantic.indexes:index_stats", 5
        ),
        "semanticClearIndex": Binding(
            IndexNameQuery,
            ClearIndexResult,
            "octo.semantic.indexes:clear_index",
            5,
            read_only=False,
        ),
    },
)
