"""Imports of Elixir and Haskell, parsed by ast-grep. Elixir: ``alias``, ``import``,
``use`` and ``require`` of a module name (``alias A.{B, C}`` split), and the modules the
file's ``defmodule`` calls declare (nested ones by their full name). Haskell: ``import``
(``qualified`` or not) of a module, and the module the header declares."""

from __future__ import annotations

from ast_grep_py import SgNode
from ast_grep_py import SgRoot

from octo.local.graph.imports import Extracted
from octo.local.graph.imports import RawImport
from octo.local.graph.imports import shown_text
from octo.local.graph.imports import syntax_problem

#: ast-grep's grammar for each file suffix of these languages.
FUNCTIONAL_GRAMMARS = {".ex": "elixir", ".exs": "elixir", ".hs": "haskell"}
_ELIXIR_IMPORTS = frozenset({"alias", "import", "use", "require"})


def functional_imports(data: bytes, grammar: str) -> Extracted:
    """The imports of an Elixir or Haskell file's bytes, parsed as ``grammar``."""
    root = SgRoot(data.decode("utf-8", "replace"), grammar).root()
    if grammar == "elixir":
        found, declared = _elixir(root)
        runs = False
    else:
        found, declared = _haskell(root)
        runs = declared in (None, "Main") and b"main " in data
    return Extracted(found, declared, runs, syntax_problem(root))


def _elixir(root: SgNode) -> tuple[list[RawImport], str | None]:
    found = []
    declared = []
    for node in root.find_all(kind="call"):
        target = node.field("target")
        word = target.text() if target is not None else ""
        if word != "defmodule" and word not in _ELIXIR_IMPORTS:
            continue
        arguments = next((c for c in node.children() if c.kind() == "arguments"), None)
        first = next((c for c in arguments.children() if c.is_named()), None) if arguments else None
        if first is None:
            continue
        if word == "defmodule":
            if first.kind() == "alias":
                declared.append(".".join([*_enclosing_modules(node), first.text()]))
            continue
        line = node.range().start.line + 1
        text = shown_text(node.text())
        if first.kind() == "alias":
            found.append(RawImport(line, text, first.text()))
        elif first.kind() == "dot" and first.find(kind="tuple") is not None:
            # alias A.{B, C}
            prefix = next((c.text() for c in first.children() if c.kind() == "alias"), "")
            tuple_node = first.find(kind="tuple")
            assert tuple_node is not None
            for item in tuple_node.children():
                if item.kind() == "alias":
                    found.append(RawImport(line, text, f"{prefix}.{item.text()}"))
    return found, " ".join(declared) or None


def _enclosing_modules(node: SgNode) -> list[str]:
    """The names of the ``defmodule`` calls around ``node``, outermost first."""
    names = []
    for ancestor in node.ancestors():
        if ancestor.kind() != "call":
            continue
        target = ancestor.field("target")
        arguments = next((c for c in ancestor.children() if c.kind() == "arguments"), None)
        alias = arguments.find(kind="alias") if arguments is not None else None
        if target is not None and target.text() == "defmodule" and alias is not None:
            names.append(alias.text())
    return names[::-1]


def _haskell(root: SgNode) -> tuple[list[RawImport], str | None]:
    header = root.find(kind="header")
    module = header.find(kind="module") if header is not None else None
    found = []
    for node in root.find_all(kind="import"):
        name = next((c for c in node.children() if c.kind() == "module"), None)
        if name is not None:
            line = node.range().start.line + 1
            found.append(RawImport(line, shown_text(node.text()), "".join(name.text().split())))
    return found, "".join(module.text().split()) if module is not None else None
