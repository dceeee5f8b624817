"""The three LSP tools, defined once."""

from __future__ import annotations

from octo.contract import ToolCategory, ToolSpec, lazy
from octo.lsp.models import (
    CallHierarchyQuery,
    CallHierarchyResult,
    FindReferencesQuery,
    FindReferencesResult,
    GotoDefinitionQuery,
    GotoDefinitionResult,
)

_LOCATED = (
    " The symbol is found by name near lineHint (whole word, outside comments and strings;"
    " orderHint picks the nth on the line; lines +-5 are tried next) and the answer echoes"
    " where (resolved). Lines are 1-based, characters 0-based UTF-16; paths are relative to"
    " the allowed root. The language server (basedpyright, pyright, ty, tsgo,"
    " typescript-language-server, clangd, gopls, rust-analyzer...) starts on first use and"
    " stays warm; answers given while it still indexes are flagged partial."
)
TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="lspGotoDefinition",
        title="Go to definition (LSP)",
        category=ToolCategory.LSP,
        description="Where a symbol is defined, across files, with lines of code around it."
        + _LOCATED,
        query_model=GotoDefinitionQuery,
        result_model=GotoDefinitionResult,
        handler=lazy("octo.lsp.definition:goto_definition"),
        max_queries=5,
        example={"uri": "src/app.py", "symbolName": "load_config", "lineHint": 12},
    ),
    ToolSpec(
        name="lspFindReferences",
        title="Find references (LSP)",
        category=ToolCategory.LSP,
        description="Every use of a symbol in the workspace, with or without its declaration,"
        " paged (referencesPerPage, page), each with lines of code around it." + _LOCATED,
        query_model=FindReferencesQuery,
        result_model=FindReferencesResult,
        handler=lazy("octo.lsp.references:find_references"),
        max_queries=5,
        example={"uri": "src/app.py", "symbolName": "load_config", "lineHint": 12},
    ),
    ToolSpec(
        name="lspCallHierarchy",
        title="Call hierarchy (LSP)",
        category=ToolCategory.LSP,
        description="Who calls a function (incoming) or what it calls (outgoing), breadth-first"
        " to depth 1-3, as from/to edges with call sites and their code, paged (callsPerPage,"
        " page)." + _LOCATED,
        query_model=CallHierarchyQuery,
        result_model=CallHierarchyResult,
        handler=lazy("octo.lsp.call_hierarchy:call_hierarchy"),
        max_queries=3,
        example={
            "uri": "src/app.py",
            "symbolName": "load_config",
            "lineHint": 12,
            "direction": "incoming",
            "depth": 2,
        },
    ),
]
