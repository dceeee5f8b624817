"""The three LSP tools, defined once."""

from __future__ import annotations

from typing import Any

from octo.contract import ToolCategory, ToolSpec, lazy
from octo.core.envelope import ToolQuery, ToolResult
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
_EXAMPLE = {"uri": "src/app.py", "symbolName": "load_config", "lineHint": 12}


def _tool(
    name: str,
    title: str,
    what: str,
    models: tuple[type[ToolQuery], type[ToolResult]],
    handler: str,
    max_queries: int,
    **example: Any,
) -> ToolSpec:
    """An LSP tool: ``what`` it does, then how every LSP tool finds its symbol."""
    return ToolSpec(
        name=name,
        title=title,
        category=ToolCategory.LSP,
        description=what + _LOCATED,
        query_model=models[0],
        result_model=models[1],
        handler=lazy(f"octo.lsp.{handler}"),
        max_queries=max_queries,
        example={**_EXAMPLE, **example},
    )


TOOLS: list[ToolSpec] = [
    _tool(
        "lspGotoDefinition",
        "Go to definition (LSP)",
        "Where a symbol is defined, across files, with lines of code around it.",
        (GotoDefinitionQuery, GotoDefinitionResult),
        "definition:goto_definition",
        5,
    ),
    _tool(
        "lspFindReferences",
        "Find references (LSP)",
        "Every use of a symbol in the workspace, with or without its declaration, paged"
        " (referencesPerPage, page), each with lines of code around it.",
        (FindReferencesQuery, FindReferencesResult),
        "references:find_references",
        5,
    ),
    _tool(
        "lspCallHierarchy",
        "Call hierarchy (LSP)",
        "Who calls a function (incoming) or what it calls (outgoing), breadth-first to depth"
        " 1-3, as from/to edges with call sites and their code, paged (callsPerPage, page).",
        (CallHierarchyQuery, CallHierarchyResult),
        "call_hierarchy:call_hierarchy",
        3,
        direction="incoming",
        depth=2,
    ),
]
