"""Imports of Ruby, PHP, Lua and shell scripts, parsed by ast-grep: the calls and
statements that load another file, with a literal name. Ruby: ``require``,
``require_relative`` and ``load``; PHP: ``require``/``include`` (``_once`` too; a path after
``__DIR__ .`` is the file's folder's) and ``use`` (groups split), the namespace the file
declares; Lua: ``require("a.b")``; Bash: ``source``/``.`` with a literal path. A name built
at run time is not followed."""

from __future__ import annotations

from ast_grep_py import SgNode
from ast_grep_py import SgRoot

from octo.local.graph.imports import Extracted
from octo.local.graph.imports import RawImport
from octo.local.graph.imports import shown_text
from octo.local.graph.imports import syntax_problem

#: ast-grep's grammar for each file suffix of these languages.
INTERPRETED_GRAMMARS = {
    ".rb": "ruby",
    ".rake": "ruby",
    ".php": "php",
    ".lua": "lua",
    ".sh": "bash",
    ".bash": "bash",
}
#: PHP: the spec of a path after ``__DIR__ .`` starts with this (the file's own folder).
HERE = "__DIR__"
_RUBY_CALLS = frozenset({"require", "require_relative", "load"})
_PHP_LOADS = (
    "require_expression", "require_once_expression", "include_expression",
    "include_once_expression",
)  # fmt: skip
_WORDS = {
    "ruby": (b"require", b"load"),
    "php": (b"require", b"include", b"use ", b"namespace"),
    "lua": (b"require",),
    "bash": (b"source", b". "),
}


def interpreted_imports(data: bytes, grammar: str) -> Extracted:
    """The imports of a Ruby, PHP, Lua or shell file's bytes, parsed as ``grammar``."""
    runs = data.startswith(b"#!")
    if not any(word in data for word in _WORDS[grammar]):
        return Extracted([], runs=runs)
    root = SgRoot(data.decode("utf-8", "replace"), grammar).root()
    declares = None
    if grammar == "ruby":
        found = _ruby(root)
    elif grammar == "php":
        found, declares = _php(root)
    elif grammar == "lua":
        found = _lua(root)
    else:
        found = _bash(root)
    return Extracted(found, declares, runs, syntax_problem(root))


def _raw(node: SgNode, spec: str, names: tuple[str, ...] = ()) -> RawImport:
    return RawImport(node.range().start.line + 1, shown_text(node.text()), spec, names)


def _literal(node: SgNode | None) -> str | None:
    """A string's text when it is a plain literal (no interpolation)."""
    if node is None or node.kind() not in ("string", "string_literal", "encapsed_string"):
        return None
    parts = [child for child in node.children() if child.is_named()]
    if len(parts) != 1 or parts[0].kind() != "string_content":
        return None
    return parts[0].text()


def _ruby(root: SgNode) -> list[RawImport]:
    found = []
    for node in root.find_all(kind="call"):
        method = node.field("method")
        if method is None or method.text() not in _RUBY_CALLS or node.field("receiver"):
            continue
        arguments = node.field("arguments")
        spec = _literal(arguments.child(0) if arguments is not None else None)
        if arguments is not None and spec is None:
            first = next((c for c in arguments.children() if c.is_named()), None)
            spec = _literal(first)
        if spec:
            found.append(_raw(node, spec, (method.text(),)))
    return found


def _php(root: SgNode) -> tuple[list[RawImport], str | None]:
    found = []
    declared = []
    kinds = ("namespace_definition", "namespace_use_declaration", *_PHP_LOADS)
    for node in root.find_all(any=[{"kind": kind} for kind in kinds]):
        kind = node.kind()
        if kind == "namespace_definition":
            name = node.field("name") or node.find(kind="namespace_name")
            if name is not None:
                declared.append(name.text())
        elif kind == "namespace_use_declaration":
            found.extend(_php_uses(node))
        else:
            path = _php_path(node)
            if path is not None:
                found.append(_raw(node, path, ("include",)))
    return found, " ".join(declared) or None


def _php_uses(node: SgNode) -> list[RawImport]:
    """``use A\\B;`` and ``use A\\{B, C as D};`` as ``A\\B``, ``A\\C``."""
    group = node.find(kind="namespace_use_group")
    if group is None:
        return [
            _raw(node, _clause_name(clause))
            for clause in node.children()
            if clause.kind() == "namespace_use_clause"
        ]
    prefix = next((c.text() for c in node.children() if c.kind() == "namespace_name"), "")
    return [
        _raw(node, f"{prefix}\\{_clause_name(clause)}")
        for clause in group.children()
        if clause.kind() == "namespace_use_clause"
    ]


def _clause_name(clause: SgNode) -> str:
    named = [c for c in clause.children() if c.kind() in ("qualified_name", "name")]
    return named[0].text().lstrip("\\") if named else ""


def _php_path(node: SgNode) -> str | None:
    """The path a ``require``/``include`` names: a literal, or ``__DIR__ . 'literal'``."""
    value = next((c for c in node.children() if c.is_named()), None)
    while value is not None and value.kind() == "parenthesized_expression":
        value = next((c for c in value.children() if c.is_named()), None)
    if value is None:
        return None
    if value.kind() == "binary_expression":
        left, right = value.field("left"), value.field("right")
        if left is None or left.text() not in (HERE, "dirname(__FILE__)"):
            return None
        tail = _literal(right)
        return HERE + tail if tail is not None else None
    return _literal(value)


def _lua(root: SgNode) -> list[RawImport]:
    found = []
    for node in root.find_all(kind="function_call"):
        name = node.field("name")
        if name is None or name.text() != "require":
            continue
        arguments = node.field("arguments")
        string = arguments.find(kind="string") if arguments is not None else None
        content = string.find(kind="string_content") if string is not None else None
        if content is not None and string is not None and len(string.children()) == 3:
            found.append(_raw(node, content.text()))
    return found


def _bash(root: SgNode) -> list[RawImport]:
    found = []
    for node in root.find_all(kind="command"):
        name = node.field("name")
        if name is None or name.text() not in ("source", "."):
            continue
        argument = node.field("argument")
        if argument is None:
            continue
        if argument.kind() == "word":
            spec: str | None = argument.text()
        elif argument.kind() == "raw_string":
            spec = argument.text().strip("'")
        else:
            spec = _literal(argument)
        if spec and "$" not in spec and "`" not in spec:
            found.append(_raw(node, spec))
    return found
