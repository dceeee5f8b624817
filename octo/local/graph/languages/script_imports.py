"""JavaScript and TypeScript imports, parsed by ast-grep: ESM ``import`` and
``export ... from``, ``import("x")`` and ``require("x")`` with a literal, and TypeScript's
``import x = require("x")``; ``import type`` is type-only."""

from __future__ import annotations

from ast_grep_py import SgNode
from ast_grep_py import SgRoot

from octo.core.files.grammars import GRAMMAR_BY_EXTENSION
from octo.local.graph.imports import DYNAMIC
from octo.local.graph.imports import TYPE_ONLY
from octo.local.graph.imports import RawImport
from octo.local.graph.imports import shown_text

#: ast-grep's grammar for each JavaScript or TypeScript file suffix.
GRAMMARS = {
    suffix: grammar
    for suffix, grammar in GRAMMAR_BY_EXTENSION.items()
    if grammar in ("typescript", "tsx", "javascript")
}
_WORDS = (b"import", b"require", b"export")


def script_imports(data: bytes, grammar: str) -> list[RawImport]:
    """The imports of a JavaScript or TypeScript file's bytes, parsed as ``grammar``."""
    if not any(word in data for word in _WORDS):
        return []
    root = SgRoot(data.decode("utf-8", "replace"), grammar).root()
    found: list[RawImport] = []
    nodes = root.find_all(
        any=[
            {"kind": "import_statement"},
            {"kind": "export_statement"},
            {"kind": "call_expression", "regex": r"^(import|require)\s*\("},
        ]
    )
    for node in nodes:
        raw = _import_of(node, typed=grammar != "javascript")
        if raw is not None:
            found.append(raw)
    return found


def _import_of(node: SgNode, *, typed: bool) -> RawImport | None:
    kind = node.kind()
    flags = 0
    if kind == "call_expression":
        if typed and node.inside(kind="import_require_clause"):
            return None  # the import statement holding it counts it (TypeScript only)
        arguments = node.field("arguments")
        source = arguments.child(1) if arguments is not None else None
        function = node.field("function")
        if function is not None and function.kind() == "import":
            flags |= DYNAMIC
    elif kind == "import_statement":
        source = node.field("source") or node.find(kind="string")
        if any(child.kind() == "type" for child in node.children()):
            flags |= TYPE_ONLY
    else:
        source = node.field("source")
        if any(child.kind() == "type" for child in node.children()):
            flags |= TYPE_ONLY
    if source is None or source.kind() != "string":
        return None
    fragment = source.find(kind="string_fragment")
    spec = fragment.text() if fragment is not None else ""
    if not spec:
        return None
    line = node.range().start.line + 1
    return RawImport(line, shown_text(node.text()), spec, flags=flags)
