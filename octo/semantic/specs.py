"""The semantic code search tools, defined once (spec 004)."""

from __future__ import annotations

from octo.contract import ToolCategory, ToolSpec, lazy
from octo.semantic.models import (
    ClearIndexResult,
    IndexCodebaseQuery,
    IndexCodebaseResult,
    IndexNameQuery,
    IndexStatsResult,
    ListIndexesQuery,
    ListIndexesResult,
    SemanticSearchQuery,
    SemanticSearchResult,
)

#: Indexing a large tree writes its keyword side in seconds to minutes; waiting for every
#: vector (waitForEmbeddings) may take far longer, and the work is resumable.
INDEX_TIMEOUT = 3600.0

_NEEDS = (
    ' Needs the semantic extra (pip install "octo-gateway[semantic]"). Indexes live in SQLite'
    " under the user's cache directory, or in PostgreSQL + pgvector when OCTO_INDEX_URL is set."
)

TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="semanticSearchCode",
        title="Search code by meaning",
        category=ToolCategory.SEMANTIC,
        description=(
            "Search an index built by semanticIndexCodebase in natural language: vector"
            " similarity (a CPU model bundled with octo, or OCTO_EMBED_URL) fused with BM25"
            " keywords by reciprocal rank fusion. The index is found from path or the allowed"
            " root when indexName is left out (searchContext says which). Filters: language"
            " (aliases terraform = hcl, shell/sh = bash), symbolType, symbolName glob, path."
            " Each hit: path, lines, score, content widened to its function or class"
            " (smartContext), symbol, signature, hierarchy, matchType semantic | keyword |"
            " both. searchContext.embeddedChunks/totalChunks says how much has vectors; the"
            " rest ranks by keyword only. A stale index (7 days, or files changed) gets a"
            " hint naming the re-index call." + _NEEDS
        ),
        query_model=SemanticSearchQuery,
        result_model=SemanticSearchResult,
        handler=lazy("octo.semantic.search:search_code"),
        max_queries=5,
        example={"query": "load the configuration from a JSON file", "path": ".", "limit": 5},
    ),
    ToolSpec(
        name="semanticIndexCodebase",
        title="Index code for semantic search",
        category=ToolCategory.SEMANTIC,
        description=(
            "Index (or update) the tree under an allowed root for semanticSearchCode."
            " Incremental: unchanged files are not re-read and a chunk embedded before keeps"
            " its vector. Files come from the local tools' walk (.gitignore, hidden and"
            " credential files skipped, files over 1 MB too); secrets are redacted before"
            " anything is stored."
            " Chunks follow functions, classes and methods (tree-sitter: Python, JavaScript,"
            " TypeScript/TSX, Go, Rust, Java), other text files go in windows of lines. Answers"
            " once the keyword index is written, while vectors are computed in the background"
            " (embedding.status background); waitForEmbeddings: true answers when every chunk"
            " has one. Reports progress." + _NEEDS
        ),
        query_model=IndexCodebaseQuery,
        result_model=IndexCodebaseResult,
        handler=lazy("octo.semantic.indexing:index_codebase"),
        max_queries=3,
        example={"path": "."},
        timeout=INDEX_TIMEOUT,
        read_only=False,
    ),
    ToolSpec(
        name="semanticListIndexes",
        title="List semantic indexes",
        category=ToolCategory.SEMANTIC,
        description=(
            "List the semantic indexes (all, or those covering or inside path): name, root,"
            " model and last update, and where they are stored (sqlite:DIR or postgresql)."
        ),
        query_model=ListIndexesQuery,
        result_model=ListIndexesResult,
        handler=lazy("octo.semantic.indexes:list_indexes"),
        max_queries=3,
        example={"path": "."},
    ),
    ToolSpec(
        name="semanticIndexStats",
        title="Semantic index statistics",
        category=ToolCategory.SEMANTIC,
        description=(
            "Statistics of one semantic index: files, chunks, chunks with vectors, languages,"
            " bytes, model, createdAt, updatedAt. An unknown name is NOT_FOUND with the calls"
            " that list or build indexes."
        ),
        query_model=IndexNameQuery,
        result_model=IndexStatsResult,
        handler=lazy("octo.semantic.indexes:index_stats"),
        max_queries=5,
        example={"indexName": "project-1a2b3c"},
    ),
    ToolSpec(
        name="semanticClearIndex",
        title="Delete a semantic index",
        category=ToolCategory.SEMANTIC,
        description=(
            "Delete one semantic index (its files, chunks and vectors); the code itself is"
            " untouched. Cannot be undone; semanticIndexCodebase rebuilds it."
        ),
        query_model=IndexNameQuery,
        result_model=ClearIndexResult,
        handler=lazy("octo.semantic.indexes:clear_index"),
        max_queries=5,
        example={"indexName": "project-1a2b3c"},
        read_only=False,
    ),
]
