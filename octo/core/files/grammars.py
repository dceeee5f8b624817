"""The tree-sitter grammars octo parses source files with, by language: which wheel holds
each and the function in it that gives the language, and a parser made from one.

The grammars come from the official per-language wheels of the semantic extra
(``tree-sitter-python`` ...), which ship their parsers compiled: nothing is downloaded at
run time. Without the extra, no language has a parser. The semantic index chunks files with
them (the LSP family's outlines parse with ast-grep-py, a core dependency with two dozen
languages).
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Language
    from tree_sitter import Parser

#: Language -> (the grammar's module, the function in it that gives the language): a wheel
#: per language, named after it, but TypeScript's, which holds TSX too.
GRAMMAR_WHEELS: dict[str, tuple[str, str]] = {
    language: (f"tree_sitter_{language}", "language")
    for language in ("python", "javascript", "go", "rust", "java")
} | {
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
}


@cache
def _language(language: str) -> Language | None:
    wheel = GRAMMAR_WHEELS.get(language)
    if wheel is None:
        return None
    try:
        from tree_sitter import Language

        module = import_module(wheel[0])
    except ImportError:
        return None
    return Language(getattr(module, wheel[1])())


def new_parser(language: str) -> Parser | None:
    """A parser of its own for ``language`` (a parser serves one thread at a time); None when
    octo has no grammar for it or the wheel is not installed."""
    grammar = _language(language)
    if grammar is None:
        return None
    from tree_sitter import Parser

    return Parser(grammar)
