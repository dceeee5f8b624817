"""Query and result models of localSearchStructure."""

from __future__ import annotations

import json
from typing import Any
from typing import ClassVar
from typing import Literal

from pydantic import BaseModel
from pydantic import Field
from pydantic import field_validator
from pydantic import model_validator

from octo.core.budget import Pagination
from octo.core.budget import TokenInfo
from octo.core.queries import PageNumber
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import optional
from octo.core.secrets.sensitive import HIDDEN_DESCRIPTION
from octo.core.secrets.sensitive import SENSITIVE_DESCRIPTION

#: The languages ast-grep's bindings parse, and the file names each one reads.
LANGUAGE_GLOBS: dict[str, tuple[str, ...]] = {
    "python": ("*.py", "*.pyi"),
    "javascript": ("*.js", "*.mjs", "*.cjs", "*.jsx"),
    "typescript": ("*.ts", "*.mts", "*.cts"),
    "tsx": ("*.tsx",),
    "go": ("*.go",),
    "rust": ("*.rs",),
    "java": ("*.java",),
    "c": ("*.c", "*.h"),
    "cpp": ("*.cc", "*.cpp", "*.cxx", "*.hpp", "*.hh", "*.h"),
    "csharp": ("*.cs",),
    "kotlin": ("*.kt", "*.kts"),
    "ruby": ("*.rb",),
    "php": ("*.php",),
    "swift": ("*.swift",),
    "lua": ("*.lua",),
    "bash": ("*.sh", "*.bash"),
    "scala": ("*.scala",),
    "elixir": ("*.ex", "*.exs"),
    "haskell": ("*.hs",),
    "html": ("*.html", "*.htm"),
    "css": ("*.css",),
    "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"),
}

Language = Literal[
    "python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "csharp",
    "kotlin", "ruby", "php", "swift", "lua", "bash", "scala", "elixir", "haskell", "html",
    "css", "json", "yaml",
]  # fmt: skip


class SearchStructureQuery(ToolQuery):
    """One localSearchStructure query."""

    pattern: str | None = optional(
        ("Code with meta-variables: $NAME one node, $$$ARGS any number (e.g. 'console.log($X)')."),
        min_length=1,
        max_length=2000,
    )
    rule: dict[str, Any] | None = optional(
        "Instead of pattern, an ast-grep JSON rule: pattern, kind, regex, has, inside, not,"
        ' all, any (e.g. {"kind": "call", "inside": {"kind": "class_definition"}}).'
    )
    language: Language = Field(description="Language the files are parsed as.")
    path: str | list[str] = Field(
        default=".",
        description="A directory or file (absolute or root-relative), or a list of up to 10.",
    )
    include: list[str] | None = optional("Only these globs (default: the language's extensions).")
    exclude: list[str] | None = optional("Globs to skip.")
    noIgnore: bool = Field(default=False, description=".gitignored files too.")
    hidden: bool = Field(default=False, description=HIDDEN_DESCRIPTION)
    includeSensitive: bool = Field(default=False, description=SENSITIVE_DESCRIPTION)
    matchesPerPage: int = Field(default=20, ge=1, le=100, description="Matches per page.")
    page: PageNumber = 1

    @field_validator("path")
    @classmethod
    def _some_places(cls, value: str | list[str]) -> str | list[str]:
        paths = [value] if isinstance(value, str) else value
        if not 1 <= len(paths) <= 10 or not all(paths):
            raise ValueError("path takes 1 to 10 non-empty places")
        return value

    @field_validator("rule")
    @classmethod
    def _small_rule(cls, rule: dict[str, Any] | None) -> dict[str, Any] | None:
        if rule is not None and len(json.dumps(rule)) > 10_000:
            raise ValueError("rule is longer than 10,000 characters of JSON")
        return rule

    @model_validator(mode="after")
    def _pattern_or_rule(self) -> SearchStructureQuery:
        if (self.pattern is None) == (self.rule is None):
            raise ValueError("give exactly one of pattern and rule")
        return self


class StructureMatch(BaseModel):
    """One match: where it is, its text, and what its meta-variables captured."""

    path: str = Field(description="The file, relative to the common directory of the places.")
    startLine: int = Field(description="1-based.")
    startColumn: int = Field(description="0-based, in characters.")
    endLine: int
    endColumn: int
    text: str = Field(description="The matched code (cut at 400 characters).")
    captures: dict[str, str] = Field(
        default_factory=dict,
        description="Meta-variable -> captured code ($$$ ones joined with ', ').",
    )


class SearchStructureResult(ToolResult):
    items_field: ClassVar[str] = "matches"

    matches: list[StructureMatch]
    totalMatches: int
    filesSearched: int
    root: str = Field(description="The directory paths are relative to.")
    pagination: Pagination
    partial: bool | None = optional(
        "True when the deadline or the match cap stopped the search early."
    )
    tokens: TokenInfo | None = None
