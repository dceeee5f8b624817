"""The syntax trees octo parses source files into, and what in them declares a symbol.

The trees come from ast-grep-py, a core dependency whose wheel bundles the tree-sitter grammars
of two dozen languages compiled (nothing is downloaded, no extra is needed). This module is the
one table both readers of symbols use: the LSP family's outline of files no server answers
for, and the semantic index's chunker. Per language: which file extensions parse as it, which
node kinds declare a symbol of which kind, and how each is named where the ``name`` field does
not say.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

from ast_grep_py import SgNode
from ast_grep_py import SgRoot

#: The languages ast-grep-py 0.51 bundles. Any other name makes it panic with a
#: BaseException (pyo3's PanicException), so a name is checked here before it is parsed.
BUNDLED_LANGUAGES = frozenset(
    {
        "bash", "c", "cpp", "csharp", "css", "dart", "elixir", "go", "haskell", "hcl", "html",
        "java", "javascript", "json", "kotlin", "lua", "nix", "php", "python", "ruby", "rust",
        "scala", "solidity", "swift", "tsx", "typescript", "yaml", "zig",
    }
)  # fmt: skip

#: A node's name when its ``name`` field has none (None: the node is no symbol after all).
Namer = Callable[[SgNode], str | None]


@dataclass(frozen=True)
class SymbolTable:
    """The declarations of one language's syntax tree."""

    #: ast-grep's name of the language.
    language: str
    #: Node kind -> symbol kind (``function``, ``class``, ``key`` ...); a function inside a
    #: class is a method.
    kinds: dict[str, str]
    #: Node kind -> how to name it, where the ``name`` field does not.
    namers: dict[str, Namer] = field(default_factory=dict)


def parse(text: str, language: str) -> SgNode | None:
    """The root of ``text``'s syntax tree, or None when ast-grep-py has no grammar for
    ``language`` (blocking: call it in a worker thread for large texts)."""
    if language not in BUNDLED_LANGUAGES:
        return None
    return SgRoot(text, language).root()


def _child_text(*kinds: str) -> Namer:
    """The text of the first named child of one of ``kinds``."""

    def name(node: SgNode) -> str | None:
        for child in node.children():
            if child.kind() in kinds:
                return child.text()
        return None

    return name


def _field_text(name: str) -> Namer:
    def text(node: SgNode) -> str | None:
        found = node.field(name)
        return found.text().strip("\"'") if found is not None else None

    return text


def _declarator(node: SgNode) -> str | None:
    """A C or C++ function's name: inside its declarator (pointers, references) the identifier."""
    found = node.field("declarator")
    while found is not None and found.field("declarator") is not None:
        found = found.field("declarator")
    return found.text() if found is not None else None


def _with_body(node: SgNode) -> str | None:
    """A struct, union or enum that is declared here (``struct s *p`` only names one)."""
    if node.field("body") is None:
        return None
    found = node.field("name")
    return found.text() if found is not None else "(anonymous)"


def _function_value(node: SgNode) -> str | None:
    """``const f = () => 1``: a variable is a function's symbol when its value is a function."""
    value = node.field("value")
    if value is None or value.kind() not in _FUNCTION_VALUES:
        return None
    name = node.field("name")
    return name.text() if name is not None else None


def _elixir_call(node: SgNode) -> str | None:
    """``defmodule M`` / ``def f(x)``: the name after the keyword; other calls are no symbol."""
    keyword = node.field("target")
    if keyword is None or keyword.text() not in ELIXIR_DEFINITIONS:
        return None
    arguments = next((c for c in node.children() if c.kind() == "arguments"), None)
    if arguments is None:
        return None
    first = next(iter(arguments.children()), None)
    if first is None:
        return None
    return first.text().split("(", 1)[0].split(",", 1)[0].strip()


def _html_element(node: SgNode) -> str | None:
    tag = next((c for c in node.children() if c.kind() in ("start_tag", "self_closing_tag")), None)
    if tag is None:
        return None
    name = _child_text("tag_name")(tag) or "element"
    for attribute in tag.children():
        if attribute.kind() == "attribute" and attribute.text().startswith("id="):
            return f"{name}#{attribute.text()[3:].strip(chr(34) + chr(39))}"
    return name


#: Elixir's definitions are calls: the keyword -> the symbol kind it declares.
ELIXIR_DEFINITIONS = {
    "defmodule": "module",
    "defprotocol": "interface",
    "def": "function",
    "defp": "function",
    "defmacro": "function",
    "defmacrop": "function",
}
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})

_JS = {
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "variable_declarator": "function",
    "method_definition": "method",
    "method_signature": "method",
    "abstract_method_signature": "method",
    "enum_declaration": "enum",
    "type_alias_declaration": "type",
}
_JS_NAMES: dict[str, Namer] = {"variable_declarator": _function_value}
_C = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "enum_specifier": "enum",
    "union_specifier": "struct",
}
_C_NAMES: dict[str, Namer] = {
    "function_definition": _declarator,
    "struct_specifier": _with_body,
    "enum_specifier": _with_body,
    "union_specifier": _with_body,
    "class_specifier": _with_body,
}
_KOTLIN_NAMES = _child_text("type_identifier", "simple_identifier")

_TABLES = [
    SymbolTable("python", {"class_definition": "class", "function_definition": "function"}),
    SymbolTable("typescript", _JS, _JS_NAMES),
    SymbolTable("tsx", _JS, _JS_NAMES),
    SymbolTable("javascript", _JS, _JS_NAMES),
    SymbolTable(
        "go",
        {"function_declaration": "function", "method_declaration": "method", "type_spec": "type"},
    ),
    SymbolTable(
        "rust",
        {
            "function_item": "function",
            "struct_item": "struct",
            "enum_item": "enum",
            "trait_item": "interface",
            "impl_item": "class",
            "mod_item": "module",
        },
        {"impl_item": _field_text("type")},
    ),
    SymbolTable(
        "java",
        {
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "class",
            "method_declaration": "method",
            "constructor_declaration": "constructor",
        },
    ),
    SymbolTable(
        "kotlin",
        {
            "class_declaration": "class",
            "object_declaration": "class",
            "function_declaration": "function",
        },
        {
            "class_declaration": _KOTLIN_NAMES,
            "object_declaration": _KOTLIN_NAMES,
            "function_declaration": _KOTLIN_NAMES,
        },
    ),
    SymbolTable("c", _C, _C_NAMES),
    SymbolTable(
        "cpp",
        _C | {"class_specifier": "class", "namespace_definition": "namespace"},
        _C_NAMES,
    ),
    SymbolTable(
        "csharp",
        {
            "namespace_declaration": "namespace",
            "class_declaration": "class",
            "interface_declaration": "interface",
            "struct_declaration": "struct",
            "enum_declaration": "enum",
            "record_declaration": "class",
            "method_declaration": "method",
            "constructor_declaration": "constructor",
            "property_declaration": "property",
        },
    ),
    SymbolTable(
        "ruby",
        {"module": "module", "class": "class", "method": "function", "singleton_method": "method"},
    ),
    SymbolTable(
        "php",
        {
            "namespace_definition": "namespace",
            "class_declaration": "class",
            "interface_declaration": "interface",
            "trait_declaration": "interface",
            "enum_declaration": "enum",
            "function_definition": "function",
            "method_declaration": "method",
        },
    ),
    SymbolTable(
        "swift",
        {
            "class_declaration": "class",
            "protocol_declaration": "interface",
            "function_declaration": "function",
            "protocol_function_declaration": "method",
            "init_declaration": "constructor",
        },
    ),
    SymbolTable(
        "scala",
        {
            "class_definition": "class",
            "trait_definition": "interface",
            "object_definition": "class",
            "function_definition": "function",
            "function_declaration": "function",
        },
    ),
    SymbolTable("lua", {"function_declaration": "function"}),
    SymbolTable("bash", {"function_definition": "function"}),
    SymbolTable("elixir", {"call": "function"}, {"call": _elixir_call}),
    SymbolTable(
        "haskell",
        {
            "data_type": "struct",
            "class": "interface",
            "function": "function",
            "type_synonym": "type",
        },
        # A signature's arrow type is a "function" node too: only a definition has a name.
        {"function": _field_text("name")},
    ),
    SymbolTable("yaml", {"block_mapping_pair": "key"}, {"block_mapping_pair": _field_text("key")}),
    SymbolTable("json", {"pair": "key"}, {"pair": _field_text("key")}),
    SymbolTable("html", {"element": "element"}, {"element": _html_element}),
    SymbolTable(
        "css",
        {"rule_set": "class", "media_statement": "namespace"},
        {
            "rule_set": _child_text("selectors"),
            "media_statement": lambda node: node.text().split("{", 1)[0].strip(),
        },
    ),
]

#: Language -> its symbol table.
SYMBOL_TABLES: dict[str, SymbolTable] = {table.language: table for table in _TABLES}

#: File extension (lower case) -> the language its syntax tree is parsed as.
GRAMMAR_BY_EXTENSION: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".swift": "swift",
    ".scala": "scala",
    ".lua": "lua",
    ".sh": "bash",
    ".bash": "bash",
    ".ex": "elixir",
    ".exs": "elixir",
    ".hs": "haskell",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".html": "html",
    ".htm": "html",
    ".css": "css",
}


def symbol_name(node: SgNode, table: SymbolTable) -> str | None:
    """The name ``node`` declares, or None when it declares none after all (a C struct only
    used, an Elixir call that is no ``def``)."""
    namer = table.namers.get(node.kind())
    if namer is not None:
        return namer(node)
    named = node.field("name")
    if named is not None:
        return named.text()
    return _child_text("identifier", "type_identifier", "constant", "word")(node) or "(anonymous)"


#: Symbols whose functions are methods (a module's or a namespace's stay functions).
CLASS_KINDS = frozenset({"class", "interface", "struct"})


def symbol_kind(node: SgNode, table: SymbolTable, in_class: bool) -> str | None:
    """The kind of symbol ``node`` declares (None: no symbol), ``in_class`` or not."""
    kind = table.kinds.get(node.kind())
    if kind is None:
        return None
    if table.language == "elixir":
        target = node.field("target")
        kind = ELIXIR_DEFINITIONS.get(target.text() if target is not None else "")
    if kind == "function" and in_class:
        return "method"
    return kind
