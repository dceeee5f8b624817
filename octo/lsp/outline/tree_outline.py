"""A file's outline from the tree-sitter grammars of octo's semantic extra, for files no
language server answers for. The grammars are imported on first use (a missing extra just
means no outline, see :mod:`octo.core.files.grammars`); the traversal of the syntax tree is
this family's own."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from octo.core.files.grammars import new_parser
from octo.lsp.outline.models import OutlineSymbol

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(frozen=True)
class _Grammar:
    #: The language of octo's grammars (:data:`~octo.core.files.grammars.GRAMMAR_WHEELS`).
    language: str
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

_PYTHON = _Grammar("python", {"class_definition": "class", "function_definition": "function"})

_GRAMMARS: dict[str, _Grammar] = {
    ".py": _PYTHON,
    ".pyi": _PYTHON,
    ".ts": _Grammar("typescript", _JS),
    ".mts": _Grammar("typescript", _JS),
    ".tsx": _Grammar("tsx", _JS),
    ".js": _Grammar("javascript", _JS),
    ".mjs": _Grammar("javascript", _JS),
    ".jsx": _Grammar("javascript", _JS),
    ".go": _Grammar(
        "go",
        {"function_declaration": "function", "method_declaration": "method", "type_spec": "type"},
    ),
    ".rs": _Grammar(
        "rust",
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
        "java",
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


def no_outline_hint(path: Path) -> str:
    """What would give ``path`` an outline without a language server."""
    if path.suffix.lower() in _GRAMMARS:
        return (
            "octo's tree-sitter outline of this file needs the grammars of the semantic extra: "
            'pip install "octo-gateway[semantic]"'
        )
    return f"octo has no tree-sitter grammar for {path.suffix or 'this'} files either."


def tree_outline(path: Path, text: str) -> list[OutlineSymbol] | None:
    """The outline of ``text`` (the file at ``path``); None when octo has no grammar for it
    (blocking: call it in a worker thread)."""
    grammar = _GRAMMARS.get(path.suffix.lower())
    parser = new_parser(grammar.language) if grammar else None
    if grammar is None or parser is None:
        return None
    tree = parser.parse(text.encode("utf-8", errors="replace"))
    return _symbols(tree.root_node, grammar.kinds, False)
