"""A file's outline from a syntax tree, for files no language server answers for.

The trees and the table of which node kinds are symbols, and where their names are, are
:mod:`octo.core.files.grammars` (ast-grep-py's bundled grammars), which the semantic index's
chunker reads too; here the symbols are nested into an outline.
"""

from __future__ import annotations

from pathlib import Path

from ast_grep_py import SgNode

from octo.core.files.grammars import CLASS_KINDS
from octo.core.files.grammars import GRAMMAR_BY_EXTENSION
from octo.core.files.grammars import SYMBOL_TABLES
from octo.core.files.grammars import SymbolTable
from octo.core.files.grammars import parse
from octo.core.files.grammars import symbol_kind
from octo.core.files.grammars import symbol_name
from octo.lsp.outline.models import OutlineSymbol

_CALLABLE = frozenset({"function", "method", "constructor"})


def _detail(node: SgNode, kind: str) -> str | None:
    """A function's signature: its declaration's first line, trimmed."""
    if kind not in _CALLABLE:
        return None
    first = node.text().split("\n", 1)[0].strip()
    return first.rstrip("{:").strip()[:200] or None


def _symbols(node: SgNode, table: SymbolTable, in_class: bool) -> list[OutlineSymbol]:
    found: list[OutlineSymbol] = []
    for child in node.children():
        if not child.is_named():
            continue
        kind = symbol_kind(child, table, in_class)
        name = symbol_name(child, table) if kind is not None else None
        if kind is None or name is None:
            found.extend(_symbols(child, table, in_class))
            continue
        # A decorated declaration starts at its first decorator, as servers say.
        outer = node if node.kind() == "decorated_definition" else child
        extent = child.range()
        found.append(
            OutlineSymbol(
                name=name,
                kind=kind,
                startLine=outer.range().start.line + 1,
                endLine=extent.end.line + 1,
                detail=_detail(child, kind),
                children=_symbols(child, table, kind in CLASS_KINDS),
            )
        )
    return found


def outline_languages() -> dict[str, str]:
    """File extension -> the language octo outlines it as, without a language server."""
    return {
        extension: language
        for extension, language in GRAMMAR_BY_EXTENSION.items()
        if language in SYMBOL_TABLES
    }


def no_outline_hint(path: Path) -> str:
    """What would give ``path`` an outline when no language server answers for it."""
    return (
        f"octo has no syntax tree for {path.suffix or 'such'} files either: a language server "
        "for them gives one (OCTO_LSP_<LANG>_COMMAND)."
    )


def tree_outline(path: Path, text: str) -> list[OutlineSymbol] | None:
    """The outline of ``text`` (the file at ``path``); None when octo has no syntax tree for
    its language (blocking: call it in a worker thread)."""
    table = SYMBOL_TABLES.get(GRAMMAR_BY_EXTENSION.get(path.suffix.lower(), ""))
    root = parse(text, table.language) if table is not None else None
    if table is None or root is None:
        return None
    return _symbols(root, table, False)
