"""The LSP tools, defined once; their words are in tools.toml beside this file."""

from __future__ import annotations

from octo.contract import ToolCategory
from octo.contract import lazy_warm_up
from octo.contract.family import Binding
from octo.contract.family import family_tools
from octo.lsp.models import CallHierarchyQuery
from octo.lsp.models import CallHierarchyResult
from octo.lsp.models import FindReferencesQuery
from octo.lsp.models import FindReferencesResult
from octo.lsp.models import GotoDefinitionQuery
from octo.lsp.models import GotoDefinitionResult
from octo.lsp.models import HoverQuery
from octo.lsp.models import HoverResult
from octo.lsp.models import TypeHierarchyQuery
from octo.lsp.models import TypeHierarchyResult
from octo.lsp.outline.models import DiagnosticsQuery
from octo.lsp.outline.models import DiagnosticsResult
from octo.lsp.outline.models import DocumentSymbolsQuery
from octo.lsp.outline.models import DocumentSymbolsResult
from octo.lsp.outline.models import WorkspaceSymbolsQuery
from octo.lsp.outline.models import WorkspaceSymbolsResult

TOOLS = family_tools(
    __package__,
    ToolCategory.LSP,
    {
        "lspGotoDefinition": Binding(
            GotoDefinitionQuery,
            GotoDefinitionResult,
            "octo.lsp.navigation.definition:goto_definition",
            5,
        ),
        "lspFindReferences": Binding(
            FindReferencesQuery,
            FindReferencesResult,
            "octo.lsp.navigation.references:find_references",
            5,
        ),
        "lspHover": Binding(HoverQuery, HoverResult, "octo.lsp.navigation.hover:hover", 5),
        "lspTypeHierarchy": Binding(
            TypeHierarchyQuery,
            TypeHierarchyResult,
            "octo.lsp.navigation.type_hierarchy:type_hierarchy",
            3,
        ),
        "lspDocumentSymbols": Binding(
            DocumentSymbolsQuery,
            DocumentSymbolsResult,
            "octo.lsp.outline.document_symbols:document_symbols",
            5,
        ),
        "lspWorkspaceSymbols": Binding(
            WorkspaceSymbolsQuery,
            WorkspaceSymbolsResult,
            "octo.lsp.outline.workspace_symbols:workspace_symbols",
            5,
        ),
        "lspDiagnostics": Binding(
            DiagnosticsQuery, DiagnosticsResult, "octo.lsp.outline.diagnostics:diagnostics", 3
        ),
        "lspCallHierarchy": Binding(
            CallHierarchyQuery,
            CallHierarchyResult,
            "octo.lsp.navigation.call_hierarchy:call_hierarchy",
            3,
        ),
    },
)

#: Language servers start for the roots an MCP client announces, before the first query.
WARM_UPS = (lazy_warm_up("octo.lsp.servers.running.warm:warm_roots"),)
