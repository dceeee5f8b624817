"""lspDocumentSymbols: a file's outline (classes -> methods...), from its language server,
or from octo's tree-sitter grammars where no server is available for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_hints
from octo.core.budget import page_of
from octo.core.errors import LspNotAvailableError
from octo.lsp.navigation.locations import SeenFile
from octo.lsp.navigation.locations import kind_name
from octo.lsp.navigation.locations import range_of
from octo.lsp.navigation.next_calls import read_call
from octo.lsp.navigation.next_calls import symbol_call
from octo.lsp.navigation.target import FileRead
from octo.lsp.navigation.target import FileTarget
from octo.lsp.navigation.target import answer
from octo.lsp.navigation.target import ask
from octo.lsp.navigation.target import finished
from octo.lsp.navigation.target import on_servers
from octo.lsp.navigation.target import read_file
from octo.lsp.navigation.target import require
from octo.lsp.outline.models import DocumentSymbolsQuery
from octo.lsp.outline.models import DocumentSymbolsResult
from octo.lsp.outline.models import OutlineSymbol
from octo.lsp.outline.tree_outline import no_outline_hint
from octo.lsp.outline.tree_outline import tree_outline
from octo.lsp.servers.running.pool import LspPool


def outline_of(reply: Any) -> list[OutlineSymbol]:
    """DocumentSymbol[] (nested) or SymbolInformation[] (flat) as outline symbols."""
    symbols: list[OutlineSymbol] = []
    for item in reply if isinstance(reply, list) else []:
        if not isinstance(item, Mapping):
            continue
        where = item.get("range") or (item.get("location") or {}).get("range")
        if where is None:
            continue
        extent = range_of(where)
        detail = item.get("detail") or item.get("containerName")
        symbols.append(
            OutlineSymbol(
                name=str(item.get("name", "")),
                kind=kind_name(item.get("kind")),
                startLine=extent.start.line,
                endLine=extent.end.line,
                detail=detail if isinstance(detail, str) and detail else None,
                children=outline_of(item.get("children")),
            )
        )
    return sorted(symbols, key=lambda s: (s.startLine, s.endLine))


def cut_depth(symbols: list[OutlineSymbol], depth: int) -> list[OutlineSymbol]:
    """``symbols`` with nesting below ``depth`` levels left out (and counted)."""
    cut: list[OutlineSymbol] = []
    for symbol in symbols:
        if depth <= 1:
            hidden = _count(symbol.children)
            kept = symbol.model_copy(update={"children": [], "hiddenChildren": hidden or None})
        else:
            kept = symbol.model_copy(update={"children": cut_depth(symbol.children, depth - 1)})
        cut.append(kept)
    return cut


def _count(symbols: list[OutlineSymbol]) -> int:
    return sum(1 + _count(symbol.children) for symbol in symbols)


def _result(
    query: DocumentSymbolsQuery,
    read: FileRead,
    shown: str,
    server: str,
    symbols: list[OutlineSymbol],
) -> tuple[DocumentSymbolsResult, list[str]]:
    chosen, pagination = page_of(symbols, query.symbolsPerPage, query.page)
    result = DocumentSymbolsResult(
        server=server,
        path=shown,
        source="tree-sitter" if server == "tree-sitter" else "lsp",
        symbols=cut_depth(chosen, query.depth),
        totalSymbols=len(symbols),
        pagination=pagination,
    )
    hints = page_hints(query.tool, query.params(), "page", pagination, len(symbols))
    file = SeenFile(read.source.path, shown, external=False)
    for symbol in chosen[:1]:
        hints.append(f"Read {symbol.name}: {read_call(file, symbol.startLine, symbol.endLine)}")
        uses = symbol_call("lspFindReferences", file, symbol.name, symbol.startLine)
        hints.append(f"Its uses: {uses}")
    return result, hints


async def document_symbols(
    ctx: QueryContext, query: DocumentSymbolsQuery
) -> Answer[DocumentSymbolsResult]:
    """The outline of the file at uri."""
    pool = ctx.backend(LspPool)
    read = await anyio.to_thread.run_sync(
        lambda: read_file(pool, ctx.paths, query, any_language=True)
    )
    shown = ctx.paths.relative(read.source.path)

    async def run(target: FileTarget, _last: bool) -> Answer[DocumentSymbolsResult]:
        require(target.slot, "documentSymbolProvider", "document symbols")
        sent = await ask(target.slot, lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, target.document())
        result, hints = _result(query, read, shown, target.slot.server_id, outline_of(sent))
        return answer(target, result, hints)

    try:
        return await on_servers(ctx, query, read, run)
    except LspNotAvailableError as exc:
        why, install = exc.message, exc.hints
    symbols = await anyio.to_thread.run_sync(tree_outline, read.source.path, read.source.text)
    if symbols is None:
        # Both ways to an outline, each with what would give it.
        raise LspNotAvailableError(why, hints=[*install, no_outline_hint(read.source.path)])
    result, hints = _result(query, read, shown, "tree-sitter", symbols)
    told = f"No language server answered ({why}); the outline is tree-sitter's."
    return finished(result, ctx.config, [told, *hints])
