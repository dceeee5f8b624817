"""Imports of Elixir and Haskell resolved to a root's files.

Elixir: a module name names the file whose ``defmodule`` declares it (a name below a
declared one, ``A.B.C`` with only ``A.B`` declared, names ``A.B``'s file). Haskell:
``import A.B`` names ``A/B.hs`` under the source folders of the root's ``*.cabal``
(``hs-source-dirs``) and ``package.yaml`` (``source-dirs``) files, else ``src``, ``app``
and the root. What resolves to no file is an external module, named as imported."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from octo.local.graph.graph import Edge
from octo.local.graph.imports import RawImport

ELIXIR_SUFFIXES = (".ex", ".exs")
HASKELL_SUFFIX = ".hs"
FUNCTIONAL_SUFFIXES = (*ELIXIR_SUFFIXES, HASKELL_SUFFIX)
_HASKELL_FOLDERS = ("src", "app", "")
_ELIXIR_STANDARD = frozenset(
    {
        "Kernel", "Enum", "Map", "List", "String", "Keyword", "GenServer", "Supervisor",
        "Agent", "Task", "Logger", "Application", "Process", "IO", "File", "Path",
        "Registry", "DynamicSupervisor", "ExUnit", "Mix", "Stream", "Integer", "Access",
    }
)  # fmt: skip
_HASKELL_STANDARD = ("Prelude", "Data.", "Control.", "System.", "Text.Printf", "GHC.")


class FunctionalModules:
    """What the imports of a root's Elixir and Haskell files name."""

    def __init__(
        self, files: frozenset[str], declared: Mapping[str, str], configs: Mapping[str, str]
    ) -> None:
        self.files = files
        self.elixir_modules: dict[str, str] = {}
        for rel, names in sorted(declared.items()):
            if rel.endswith(ELIXIR_SUFFIXES):
                for name in names.split():
                    self.elixir_modules.setdefault(name, rel)
        folders: list[str] = []
        for rel, text in sorted(configs.items()):
            name = posixpath.basename(rel)
            if name.endswith(".cabal") or name == "package.yaml":
                key = "hs-source-dirs:" if name.endswith(".cabal") else "source-dirs:"
                base = posixpath.dirname(rel)
                for folder in _listed(text, key):
                    path = posixpath.normpath(posixpath.join(base, folder))
                    folders.append("" if path == "." else path)
        self.haskell_folders = [*dict.fromkeys([*folders, *_HASKELL_FOLDERS])]

    def edges(self, rel: str, imports: tuple[RawImport, ...]) -> tuple[list[Edge], list[str]]:
        """The edges of ``rel``'s imports (an unresolved one names an external module)."""
        edges: list[Edge] = []
        for raw in imports:
            if rel.endswith(HASKELL_SUFFIX):
                target = self._haskell(raw.spec)
            else:
                target = self._elixir(raw.spec)
            package = None if target is not None else raw.spec
            if target != rel:
                edges.append(Edge(rel, target, package, raw.line, raw.text, raw.flags, raw.spec))
        return edges, []

    def _elixir(self, name: str) -> str | None:
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            found = self.elixir_modules.get(".".join(parts[:end]))
            if found is not None:
                return found
        return None

    def _haskell(self, name: str) -> str | None:
        path = name.replace(".", "/")
        for folder in self.haskell_folders:
            for suffix in (".hs", ".lhs"):
                candidate = posixpath.join(folder, path + suffix) if folder else path + suffix
                if candidate in self.files:
                    return candidate
        return None


def is_functional_standard(source: str, module: str) -> bool:
    """True when ``module``, imported by ``source``, is its language's own library."""
    if source.endswith(HASKELL_SUFFIX):
        return module == "Prelude" or module.startswith(_HASKELL_STANDARD)
    return module.split(".", 1)[0] in _ELIXIR_STANDARD


def _listed(text: str, key: str) -> list[str]:
    """The folders a ``key`` line lists (``key: a, b``, ``key: [a, b]`` or a YAML list
    below it), from every stanza."""
    found: list[str] = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.lower().startswith(key):
            continue
        value = stripped[len(key) :].strip().strip("[]")
        if value:
            found.extend(v.strip().strip("\"'") for v in value.replace(",", " ").split())
            continue
        indent = len(line) - len(line.lstrip())
        for following in lines[index + 1 :]:
            item = following.strip()
            if not item.startswith("- ") or len(following) - len(following.lstrip()) < indent:
                break
            found.append(item[2:].strip().strip("\"'"))
    return [folder for folder in found if folder]
