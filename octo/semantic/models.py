"""Query and result models of the semantic tools (spec 004, with octo's names and envelope)."""

from __future__ import annotations

from typing import Any
from typing import ClassVar
from typing import Literal

from pydantic import BaseModel
from pydantic import Field
from pydantic import field_validator

from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import optional

SymbolType = Literal["function", "class", "method", "interface"]
MatchType = Literal["semantic", "keyword", "both"]
SearchMode = Literal["hybrid", "semantic", "keyword"]
_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
_INDEX_NAME = (
    "Index name (letters, digits, '.', '_', '-'; at most 64). Default: the folder's name and a"
    " short hash of its absolute path."
)


class SemanticSearchQuery(ToolQuery):
    """One natural-language search of an index."""

    query: str = Field(min_length=1, max_length=2000, description="What to find, in words.")
    indexName: str | None = optional(
        "Default: the index covering path, else the allowed root.",
        pattern=_NAME_PATTERN,
    )
    path: str | None = optional("Directory or file: its index, hits under it.", min_length=1)
    limit: int = Field(default=10, ge=1, le=50, description="Results to return (1-50).")
    language: list[str] | str | None = optional(
        "One or a list or comma-separated (python, go...); terraform = hcl, sh = bash."
    )
    useHybridSearch: bool | None = optional(
        "Unset: hybrid once vectors exist; true: vectors fused with keywords; false: vectors"
        " only (chunks not embedded yet rank by keyword)."
    )
    symbolType: list[SymbolType] | SymbolType | None = optional(
        "function | class | method | interface, one or a list."
    )
    symbolName: str | None = optional(
        "Case-insensitive glob on the symbol name: get*, User*Service, *Handler.",
        min_length=1,
        max_length=200,
    )
    contextBefore: int | None = optional(
        "Lines before each hit (overrides smartContext).", ge=0, le=50
    )
    contextAfter: int | None = optional(
        "Lines after each hit (overrides smartContext).", ge=0, le=50
    )
    smartContext: bool = Field(
        default=True, description="Widen each hit to its enclosing function or class."
    )

    @field_validator("language", mode="before")
    @classmethod
    def _split_languages(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.split(",")
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            value = [item.strip() for item in value if item.strip()]
            if not value:
                raise ValueError("name at least one language")
        return value

    @field_validator("symbolType", mode="before")
    @classmethod
    def _one_symbol_type(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @property
    def languages(self) -> list[str]:
        """The language filter as a list (the validators turn a string into one)."""
        return [self.language] if isinstance(self.language, str) else list(self.language or [])

    @property
    def symbol_types(self) -> list[str]:
        """The symbol-type filter as a list."""
        kinds = self.symbolType
        return [kinds] if isinstance(kinds, str) else list(kinds or [])


class IndexCodebaseQuery(ToolQuery):
    """Index (or update) one tree."""

    path: str = Field(min_length=1, description="Directory to index: absolute or root-relative.")
    indexName: str | None = optional(_INDEX_NAME, pattern=_NAME_PATTERN)
    waitForEmbeddings: bool = Field(
        default=False,
        description="false: answer once the keyword index is written (seconds) while vectors"
        " are computed in the background; true: answer when every chunk is embedded.",
    )


class ListIndexesQuery(ToolQuery):
    """All indexes, or those of one tree."""

    path: str | None = optional(
        "octo extension: only indexes covering this directory or inside it.", min_length=1
    )


class IndexNameQuery(ToolQuery):
    """One index, by name."""

    indexName: str = Field(pattern=_NAME_PATTERN, description="Name of the index.")


class IndexStatsQuery(ToolQuery):
    """One index by name, or every index under the allowed roots."""

    indexName: str | None = optional(
        "Name of the index. Default: every index under the allowed roots.", pattern=_NAME_PATTERN
    )


class SearchHit(BaseModel):
    """One ranked piece of code; lines are 1-based and inclusive, path relative to the root."""

    path: str
    startLine: int
    endLine: int
    score: float = Field(description="Fused rank score (reciprocal rank fusion), higher first.")
    content: str
    blockType: str = Field(description="Syntax node (function_definition...) or 'lines'.")
    hierarchy: str = Field(description="Enclosing symbols, dotted: Class.method.")
    language: str
    symbolType: str | None = None
    symbolName: str | None = None
    symbolSignature: str | None = None
    contextBefore: str | None = None
    contextAfter: str | None = None
    matchType: MatchType
    vectorScore: float | None = optional("Cosine similarity.")
    keywordScore: float | None = optional("BM25 relative to the best keyword hit (0-1).")
    truncated: bool | None = optional("True when the token budget cut the content.")
    weak: bool | None = optional(
        "True when the hit holds few of the query's words and is far from it in"
        " meaning: the best of a bad lot, not an answer."
    )


class SearchContext(BaseModel):
    """Which index answered, how it was found, and how much of it has vectors."""

    indexName: str
    root: str
    resolvedFrom: Literal["indexName", "path", "root"]
    path: str | None = optional("Hits are limited to this sub-path.")
    mode: SearchMode
    ranking: str = Field(description="How the hits were ranked (fusion while partly embedded).")
    model: str
    embeddedChunks: int
    totalChunks: int
    embeddingRunning: bool = False
    updatedAt: str
    stale: bool = False
    staleReason: str | None = None


class SemanticSearchResult(ToolResult):
    items_field: ClassVar[str] = "results"

    searchContext: SearchContext
    results: list[SearchHit]


class IndexRunStats(BaseModel):
    filesAdded: int
    filesUpdated: int
    filesRemoved: int
    filesSkipped: int = Field(
        default=0, description="Listed files left out: unreadable, binary, replaced by a link."
    )
    skipped: list[str] = Field(
        default_factory=list, description="The first skipped files, each with its reason."
    )
    chunks: int = Field(description="Chunks in the index after this run.")


class EmbeddingState(BaseModel):
    """How far the vectors of an index are."""

    status: Literal["complete", "background", "not started", "unavailable"]
    model: str
    embeddedChunks: int
    totalChunks: int
    message: str | None = None


class IndexCodebaseResult(ToolResult):
    indexName: str
    path: str
    stats: IndexRunStats
    elapsedMs: int
    embedding: EmbeddingState


class IndexSummary(BaseModel):
    name: str
    root: str
    model: str
    updatedAt: str


class IndexesResult(ToolResult):
    """What the tools that list indexes answer: where they live, then the indexes."""

    items_field: ClassVar[str] = "indexes"

    storage: str = Field(description="Where indexes live: sqlite:DIR or postgresql.")


class ListIndexesResult(IndexesResult):
    indexes: list[IndexSummary]


class IndexDetails(BaseModel):
    """Totals of one index."""

    indexName: str
    root: str
    files: int
    chunks: int
    embeddedChunks: int
    embeddingRunning: bool = Field(
        description="True while some process (this one or another) embeds the index."
    )
    languages: list[str] = Field(description="Languages, most files first.")
    filesByLanguage: dict[str, int]
    bytes: int
    model: str
    createdAt: str
    updatedAt: str


class IndexStatsResult(IndexesResult):
    indexes: list[IndexDetails]


class ClearIndexResult(ToolResult):
    indexName: str
    cleared: bool
    message: str
