"""A file's outline from the tree-sitter grammars of octo's semantic extra, for files no
language server answers for. The grammars are imported on first use (a missing extra just
means no outline), and the traversal of the syntax tree is this family's own: families never import each other."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from octo.lsp.outline.models import OutlineSymbol

if TYPE_CHECKING:
    from tree_sitter import Language
    from tree_sitter import Node
    from tree_sitter import Parser


@dataclass(frozen=True)
class _Grammar:
    module: str
    function: str
    #: Node type -> symbol kind; a function inside a class is a method.
    kinds: dict[str, str]


_JS = {
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "method_definition": "method",
    "method_signature": "method",
    "abstract_method_signature": "method",
    "enum_declaration": "enum",
    "type_alias_declaration": "type",
}

_PYTHON = _Grammar(
    "tree_sitter_python",
    "language",
    {"class_definition": "class", "function_definition": "function"},
)

_GRAMMARS: dict[str, _Grammar] = {
    ".py": _PYTHON,
    ".pyi": _PYTHON,
    ".ts": _Grammar("tree_sitter_typescript", "language_typescript", _JS),
    ".mts": _Grammar("tree_sitter_typescript", "language_typescript", _JS),
    ".tsx": _Grammar("tree_sitter_typescript", "language_tsx", _JS),
    ".js": _Grammar("tree_sitter_javascript", "language", _JS),
    ".mjs": _Grammar("tree_sitter_javascript", "language", _JS),
    ".jsx": _Grammar("tree_sitter_javascript", "language", _JS),
    ".go": _Grammar(
        "tree_sitter_go",
        "language",
        {"function_declaration": "function", "method_declaration": "method", "type_spec": "type"},
    ),
    ".rs": _Grammar(
        "tree_sitter_rust",
        "language",
        {
            "function_item": "function",
            "struct_item": "struct",
            "enum_item": "enum",
            "trait_item": "interface",
            "impl_item": "class",
            "mod_item": "module",
        },
    ),
    ".java": _Grammar(
        "tree_sitter_java",
        "language",
        {
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "method_declaration": "method",
            "constructor_declaration": "constructor",
        },
    ),
}

_CLASSES = frozenset({"class", "interface", "struct"})


@cache
def _language(module: str, function: str) -> Language | None:
    try:
        from tree_sitter import Language

        grammar = importlib.import_module(module)
    except ImportError:
        return None
    return Language(getattr(grammar, function)())


def _parser(module: str, function: str) -> Parser | None:
    """A parser of its own per call: worker threads may outline files at once."""
    language = _language(module, function)
    if language is None:
        return None
    from tree_sitter import Parser

    return Parser(language)


def _name(node: Node) -> str:
    named = node.child_by_field_name("name") or node.child_by_field_name("type")
    text = named.text if named is not None else None
    return text.decode("utf-8", errors="replace") if text else "(anonymous)"


def _detail(node: Node, kind: str) -> str | None:
    """A function's signature: its declaration's first line, trimmed."""
    if kind not in ("function", "method", "constructor") or node.text is None:
        return None
    first = node.text.decode("utf-8", errors="replace").split("\n", 1)[0].strip()
    return first.rstrip("{:").strip()[:200] or None


def _symbols(node: Node, kinds: dict[str, str], in_class: bool) -> list[OutlineSymbol]:
    found: list[OutlineSymbol] = []
    for child in node.named_children:
        kind = kinds.get(child.type)
        if kind is None:
            found.extend(_symbols(child, kinds, in_class))
            continue
        if kind == "function" and in_class:
            kind = "method"
        # A decorated declaration starts at its first decorator, as servers say.
        outer = node if node.type == "decorated_definition" else child
        found.append(
            OutlineSymbol(
                name=_name(child),
                kind=kind,
                startLine=outer.start_point[0] + 1,
                endLine=child.end_point[0] + 1,
                detail=_detail(child, kind),
                children=_symbols(child, kinds, kind in _CLASSES),
            )
        )
    return found


def tree_outline(path: Path, text: str) -> list[OutlineSymbol] | None:
    """The outline of ``text`` (the file at ``path``); None when octo has no grammar for it
    (blocking: call it in a worker thread)."""
    grammar = _GRAMMARS.get(path.suffix.lower())
    parser = _parser(grammar.module, grammar.function) if grammar else None
    if grammar is None or parser is None:
        return None
    tree = parser.parse(text.encode("utf-8", errors="replace"))
    return _symbols(tree.root_node, grammar.kinds, False)
