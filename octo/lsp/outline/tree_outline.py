"""A file's outline from a syntax tree, for files no language server answers for.

The trees come from ast-grep-py, a core dependency that bundles the tree-sitter grammars of
two dozen languages compiled in its wheel (nothing is downloaded, no extra is needed): one
source of grammars for every language below, where the semantic extra's per-language wheels
cover seven. Which node kinds are symbols, and where their names are, is this module's table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from ast_grep_py import SgNode
from ast_grep_py import SgRoot

from octo.lsp.outline.models import OutlineSymbol

#: A node's name when its ``name`` field has none (None: the node is no symbol after all).
Namer = Callable[[SgNode], str | None]


@dataclass(frozen=True)
class _Outline:
    #: ast-grep's name of the language.
    language: str
    #: Node kind -> symbol kind; a function inside a class is a method.
    kinds: dict[str, str]
    #: Node kind -> how to name it, where the ``name`` field does not.
    namers: dict[str, Namer] = field(default_factory=dict)


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


def _elixir_call(node: SgNode) -> str | None:
    """``defmodule M`` / ``def f(x)``: the name after the keyword; other calls are no symbol."""
    keyword = node.field("target")
    if keyword is None or keyword.text() not in _ELIXIR_DEFINITIONS:
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


_ELIXIR_DEFINITIONS = {
    "defmodule": "module",
    "defprotocol": "interface",
    "def": "function",
    "defp": "function",
    "defmacro": "function",
    "defmacrop": "function",
}

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

_PYTHON = _Outline("python", {"class_definition": "class", "function_definition": "function"})
_TYPESCRIPT = _Outline("typescript", _JS)
_JAVASCRIPT = _Outline("javascript", _JS)
_C_OUTLINE = _Outline("c", _C, _C_NAMES)
_CPP = _Outline(
    "cpp",
    _C | {"class_specifier": "class", "namespace_definition": "namespace"},
    _C_NAMES,
)
_YAML = _Outline("yaml", {"block_mapping_pair": "key"}, {"block_mapping_pair": _field_text("key")})

#: File extension -> its outline.
_OUTLINES: dict[str, _Outline] = {
    ".py": _PYTHON,
    ".pyi": _PYTHON,
    ".ts": _TYPESCRIPT,
    ".mts": _TYPESCRIPT,
    ".cts": _TYPESCRIPT,
    ".tsx": _Outline("tsx", _JS),
    ".js": _JAVASCRIPT,
    ".mjs": _JAVASCRIPT,
    ".cjs": _JAVASCRIPT,
    ".jsx": _JAVASCRIPT,
    ".go": _Outline(
        "go",
        {"function_declaration": "function", "method_declaration": "method", "type_spec": "type"},
    ),
    ".rs": _Outline(
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
    ".java": _Outline(
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
    ".kt": _Outline(
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
    ".c": _C_OUTLINE,
    ".h": _C_OUTLINE,
    ".cc": _CPP,
    ".cpp": _CPP,
    ".cxx": _CPP,
    ".hpp": _CPP,
    ".hh": _CPP,
    ".cs": _Outline(
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
    ".rb": _Outline(
        "ruby",
        {"module": "module", "class": "class", "method": "function", "singleton_method": "method"},
    ),
    ".php": _Outline(
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
    ".swift": _Outline(
        "swift",
        {
            "class_declaration": "class",
            "protocol_declaration": "interface",
            "function_declaration": "function",
            "protocol_function_declaration": "method",
            "init_declaration": "constructor",
        },
    ),
    ".scala": _Outline(
        "scala",
        {
            "class_definition": "class",
            "trait_definition": "interface",
            "object_definition": "class",
            "function_definition": "function",
            "function_declaration": "function",
        },
    ),
    ".lua": _Outline("lua", {"function_declaration": "function"}),
    ".sh": _Outline("bash", {"function_definition": "function"}),
    ".bash": _Outline("bash", {"function_definition": "function"}),
    ".ex": _Outline("elixir", {"call": "function"}, {"call": _elixir_call}),
    ".exs": _Outline("elixir", {"call": "function"}, {"call": _elixir_call}),
    ".hs": _Outline(
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
    ".yaml": _YAML,
    ".yml": _YAML,
    ".json": _Outline("json", {"pair": "key"}, {"pair": _field_text("key")}),
    ".html": _Outline("html", {"element": "element"}, {"element": _html_element}),
    ".htm": _Outline("html", {"element": "element"}, {"element": _html_element}),
    ".css": _Outline(
        "css",
        {"rule_set": "class", "media_statement": "namespace"},
        {
            "rule_set": _child_text("selectors"),
            "media_statement": lambda node: node.text().split("{", 1)[0].strip(),
        },
    ),
}

#: Symbols whose functions are methods (a module's or a namespace's stay functions).
_CLASSES = frozenset({"class", "interface", "struct"})
_CALLABLE = frozenset({"function", "method", "constructor"})


def _name(node: SgNode, outline: _Outline) -> str | None:
    namer = outline.namers.get(node.kind())
    if namer is not None:
        return namer(node)
    named = node.field("name")
    if named is not None:
        return named.text()
    return _child_text("identifier", "type_identifier", "constant", "word")(node) or "(anonymous)"


def _detail(node: SgNode, kind: str) -> str | None:
    """A function's signature: its declaration's first line, trimmed."""
    if kind not in _CALLABLE:
        return None
    first = node.text().split("\n", 1)[0].strip()
    return first.rstrip("{:").strip()[:200] or None


def _kind(node: SgNode, outline: _Outline, in_class: bool) -> str | None:
    kind = outline.kinds.get(node.kind())
    if kind is None:
        return None
    if outline.language == "elixir":
        target = node.field("target")
        kind = _ELIXIR_DEFINITIONS.get(target.text() if target is not None else "")
    if kind == "function" and in_class:
        return "method"
    return kind


def _symbols(node: SgNode, outline: _Outline, in_class: bool) -> list[OutlineSymbol]:
    found: list[OutlineSymbol] = []
    for child in node.children():
        if not child.is_named():
            continue
        kind = _kind(child, outline, in_class)
        name = _name(child, outline) if kind is not None else None
        if kind is None or name is None:
            found.extend(_symbols(child, outline, in_class))
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
                children=_symbols(child, outline, kind in _CLASSES),
            )
        )
    return found


def outline_languages() -> dict[str, str]:
    """File extension -> the language octo outlines it as, without a language server."""
    return {extension: outline.language for extension, outline in _OUTLINES.items()}


def no_outline_hint(path: Path) -> str:
    """What would give ``path`` an outline when no language server answers for it."""
    return (
        f"octo has no syntax tree for {path.suffix or 'such'} files either: a language server "
        "for them gives one (OCTO_LSP_<LANG>_COMMAND)."
    )


def tree_outline(path: Path, text: str) -> list[OutlineSymbol] | None:
    """The outline of ``text`` (the file at ``path``); None when octo has no syntax tree for
    its language (blocking: call it in a worker thread)."""
    outline = _OUTLINES.get(path.suffix.lower())
    if outline is None:
        return None
    return _symbols(SgRoot(text, outline.language).root(), outline, False)
