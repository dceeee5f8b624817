"""Query and result models of lspDocumentSymbols, lspWorkspaceSymbols and lspDiagnostics.

Lines are 1-based, as everywhere in octo's LSP answers.
"""

from __future__ import annotations

from typing import ClassVar
from typing import Literal

from pydantic import BaseModel
from pydantic import Field

from octo.core.budget import Pagination
from octo.core.queries import PageNumber
from octo.core.queries import optional
from octo.lsp.models import FileQuery
from octo.lsp.models import Line
from octo.lsp.models import ServerAnswer

Severity = Literal["error", "warning", "information", "hint"]


class DocumentSymbolsQuery(FileQuery):
    """One lspDocumentSymbols query."""

    tool: ClassVar[str] = "lspDocumentSymbols"

    depth: int = Field(
        default=2, ge=1, le=5, description="Levels of nesting shown (1: top-level symbols only)."
    )
    symbolsPerPage: int = Field(default=50, ge=1, le=200, description="Top-level symbols per page.")
    page: PageNumber = 1


class OutlineSymbol(BaseModel):
    """A symbol of the outline, with the symbols declared inside it."""

    name: str
    kind: str = Field(description="LSP symbol kind (class, method, function, variable...).")
    startLine: int = Field(description="1-based first line of the whole declaration.")
    endLine: int = Field(description="1-based last line of the whole declaration.")
    detail: str | None = optional("Signature or type, when known.")
    # Left out of an answer when empty: a leaf says nothing of children (tokens).
    children: list[OutlineSymbol] = Field(default_factory=list, exclude_if=lambda v: not v)
    hiddenChildren: int | None = optional("Symbols inside it left out by depth.")


class DocumentSymbolsResult(ServerAnswer):
    """One page of a file's outline; ``server`` is ``tree-sitter`` when no language server
    was available and octo's own grammars answered."""

    items_field: ClassVar[str] = "symbols"

    path: str
    source: Literal["lsp", "tree-sitter"] = Field(description="Which kind of source answered.")
    symbols: list[OutlineSymbol]
    totalSymbols: int = Field(description="Top-level symbols in the file.")
    pagination: Pagination


class WorkspaceSymbolsQuery(FileQuery):
    """One lspWorkspaceSymbols query (``uri``: a folder or file whose project is searched)."""

    tool: ClassVar[str] = "lspWorkspaceSymbols"

    uri: str = Field(
        default=".",
        min_length=1,
        description="A folder or file of the project: its language picks the server; only"
        " symbols under it are listed.",
    )
    query: str = Field(min_length=1, max_length=255, description="The name, or part of it.")
    kinds: list[str] | None = optional(
        "Only these LSP symbol kinds (class, function, method, interface...)."
    )
    symbolsPerPage: int = Field(default=30, ge=1, le=100, description="Symbols per page.")
    page: PageNumber = 1


class FoundSymbolEntry(BaseModel):
    """A symbol found by name, where it is, and what holds it."""

    name: str
    kind: str
    container: str | None = optional("The class or module holding it.")
    path: str
    line: int = Field(description="1-based line of its name.")
    match: Literal["exact", "prefix", "fuzzy"]


class WorkspaceSymbolsResult(ServerAnswer):
    items_field: ClassVar[str] = "symbols"

    symbols: list[FoundSymbolEntry]
    totalSymbols: int
    pagination: Pagination


class DiagnosticsQuery(FileQuery):
    """One lspDiagnostics query: a file, or the source files under a folder."""

    tool: ClassVar[str] = "lspDiagnostics"

    uri: str = Field(
        min_length=1, description="A file or a folder (its source files, up to 30, are checked)."
    )
    severity: Severity | None = optional("Only this severity and worse (error is the worst).")
    diagnosticsPerPage: int = Field(default=30, ge=1, le=100, description="Diagnostics per page.")
    page: PageNumber = 1


class Diagnostic(BaseModel):
    """One error or warning a server reported."""

    path: str
    line: Line
    character: int = Field(description="0-based UTF-16 column.")
    endLine: int
    severity: Severity
    code: str | None = None
    source: str | None = optional("Who reported it (the checker).")
    message: str
    content: str | None = optional("The line of code.")


class DiagnosticsResult(ServerAnswer):
    items_field: ClassVar[str] = "diagnostics"

    diagnostics: list[Diagnostic]
    totalDiagnostics: int
    filesChecked: int
    pagination: Pagination
