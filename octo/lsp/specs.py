"""The three LSP tools, defined once; their words are in tools.toml beside this file."""

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
        "lspCallHierarchy": Binding(
            CallHierarchyQuery,
            CallHierarchyResult,
            "octo.lsp.navigation.call_hierarchy:call_hierarchy",
            3,
        ),
    },
)

#: Language servers start for the roots an MCP client announces, before the first query.
WARM_UPS = (lazy_warm_up("octo.lsp.servers.warm:warm_roots"),)
