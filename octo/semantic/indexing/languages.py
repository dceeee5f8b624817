"""Which language a file is in, the names callers may use for it, and the tree-sitter grammars
octo parses into symbol-aware chunks.

The grammars themselves, and the wheels they come from, are
:mod:`octo.core.files.grammars`; here is what the index reads out of each.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import PurePath
from typing import TYPE_CHECKING

from octo.core.files.grammars import new_parser

if TYPE_CHECKING:
    from tree_sitter import Parser

#: File extension (lower case) -> language name used in the index.
EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".tf": "hcl",
    ".hcl": "hcl",
    ".sql": "sql",
    ".md": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".json": "json",
    ".html": "html",
    ".css": "css",
    ".xml": "xml",
}

#: Names without an extension that are still worth indexing.
FILE_NAMES: dict[str, str] = {
    "dockerfile": "dockerfile",
    "makefile": "make",
    "readme": "text",
}

#: What callers may write for a language (the seed's aliases, plus common short names).
ALIASES: dict[str, str] = {
    "terraform": "hcl",
    "tf": "hcl",
    "shell": "bash",
    "sh": "bash",
    "zsh": "bash",
    "py": "python",
    "js": "javascript",
    "ts": "typescript",
    "golang": "go",
    "rs": "rust",
    "c++": "cpp",
    "c#": "csharp",
    "yml": "yaml",
    "md": "markdown",
}


def language_of(path: str) -> str | None:
    """The index language of ``path``, or None for files octo does not index."""
    name = PurePath(path).name.lower()
    return EXTENSIONS.get(PurePath(name).suffix) or FILE_NAMES.get(name)


def canonical_language(name: str) -> str:
    """A caller's language name in the index's terms (``terraform`` -> ``hcl``)."""
    lowered = name.strip().lower()
    return ALIASES.get(lowered, lowered)


@dataclass(frozen=True)
class Grammar:
    """How to read symbols out of one tree-sitter grammar.

    ``symbols`` maps a node type to the symbol type it declares; ``containers`` are node
    types whose children are searched for members (a Rust ``impl``, a class body);
    functions declared inside a class-like symbol are methods.
    """

    symbols: dict[str, str]
    containers: frozenset[str] = frozenset()


_JS_SYMBOLS = {
    "function_declaration": "function",
    "variable_declarator": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
}
# A variable declarator is a symbol only when its value is a function (``const f = () => 1``).
_JS_CONTAINERS = frozenset({"export_statement", "lexical_declaration", "variable_declaration"})
_TS_SYMBOLS = {
    **_JS_SYMBOLS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "interface",
    "enum_declaration": "class",
    "function_signature": "function",
}

GRAMMARS: dict[str, Grammar] = {
    "python": Grammar(
        {"function_definition": "function", "class_definition": "class"},
        frozenset({"decorated_definition"}),
    ),
    "javascript": Grammar(_JS_SYMBOLS, _JS_CONTAINERS),
    "typescript": Grammar(_TS_SYMBOLS, _JS_CONTAINERS),
    "tsx": Grammar(_TS_SYMBOLS, _JS_CONTAINERS),
    "go": Grammar(
        {"function_declaration": "function", "method_declaration": "method", "type_spec": "class"},
        frozenset({"type_declaration"}),
    ),
    "rust": Grammar(
        {
            "function_item": "function",
            "struct_item": "class",
            "enum_item": "class",
            "trait_item": "interface",
            "impl_item": "class",
            "mod_item": "class",
        },
        frozenset({"declaration_list"}),
    ),
    "java": Grammar(
        {
            "class_declaration": "class",
            "record_declaration": "class",
            "enum_declaration": "class",
            "interface_declaration": "interface",
            "method_declaration": "method",
            "constructor_declaration": "method",
        },
    ),
}


@cache
def parser_for(language: str) -> Parser | None:
    """A parser for ``language`` from its grammar wheel, or None when octo has no grammar
    for it or the wheel is not installed (the file is then chunked by lines)."""
    return new_parser(language) if language in GRAMMARS else None
