"""Query and result models of localDependencyGraph."""

from __future__ import annotations

from typing import ClassVar
from typing import Literal

from pydantic import BaseModel
from pydantic import Field
from pydantic import model_validator

from octo.core.budget import Pagination
from octo.core.budget import TokenInfo
from octo.core.queries import PageNumber
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import optional
from octo.core.secrets.sensitive import HIDDEN_DESCRIPTION
from octo.core.secrets.sensitive import SENSITIVE_DESCRIPTION

Operation = Literal["dependencies", "dependents", "path", "cycles", "unreachable", "hotspots"]
#: The operations that ask about one file.
FILE_OPERATIONS = frozenset({"dependencies", "dependents", "path"})


class DependencyGraphQuery(ToolQuery):
    """One localDependencyGraph query: one operation over the import graph of a root."""

    described_here: ClassVar[frozenset[str] | None] = frozenset(
        {"operation", "path", "file", "target", "depth", "entryPoints", "includeTests"}
    )

    operation: Operation
    path: str = Field(default=".", description="The root folder.")
    file: str | None = optional("A file, or a dotted Python module.")
    target: str | None = optional("path: the file to reach.")
    depth: int = Field(default=1, ge=1, le=10, description="Transitive steps.")
    entryPoints: list[str] | None = optional("unreachable: entry files (default detected).")
    includeTests: bool = Field(default=True, description="unreachable: tests are entries.")
    noIgnore: bool = False
    hidden: bool = Field(default=False, description=HIDDEN_DESCRIPTION)
    includeSensitive: bool = Field(default=False, description=SENSITIVE_DESCRIPTION)
    page: PageNumber = 1

    @model_validator(mode="after")
    def _file_when_needed(self) -> DependencyGraphQuery:
        if self.operation in FILE_OPERATIONS and not self.file:
            raise ValueError(f"{self.operation} needs file")
        if self.operation == "path" and not self.target:
            raise ValueError("path needs target")
        return self


class Hop(BaseModel):
    """One import of a chain: ``file`` imports ``imports`` at ``line``."""

    file: str
    line: int
    text: str
    imports: str


class GraphItem(BaseModel):
    """One answer item: a file reached, a chain, a cycle, an unreachable file or a hotspot."""

    file: str = Field(description="The file the item is about (relative to root).")
    distance: int | None = optional("Import steps from the file asked about.")
    via: str | None = optional("The file holding the import line.")
    line: int | None = optional("The import's line in via (or file).")
    text: str | None = optional("The import statement.")
    package: str | None = optional("An external package (not a file of the root).")
    standardLibrary: bool | None = None
    kinds: list[str] | None = optional("typeOnly, lazy, dynamic, unresolved.")
    fanIn: int | None = None
    fanOut: int | None = None
    size: int | None = optional("Files in the cycle.")
    members: list[str] | None = None
    hops: list[Hop] | None = optional("The chain or one cycle through the members.")
    reason: str | None = optional("Why nothing reaches it.")


class DependencyGraphResult(ToolResult):
    items_field: ClassVar[str] = "items"

    root: str = Field(description="The folder paths are relative to.")
    operation: str
    files: int = Field(description="Files in the graph.")
    edges: int = Field(description="Imports in the graph.")
    items: list[GraphItem]
    totalItems: int
    entryPoints: list[str] | None = optional("unreachable: the entry files used.")
    diagnostics: list[str] | None = optional("Files that could not be read or resolved.")
    pagination: Pagination
    partial: bool | None = optional("True while the graph is still being built.")
    progress: str | None = None
    tokens: TokenInfo | None = None
