"""Imports of Ruby, PHP, Lua and shell scripts resolved to a root's files.

Ruby: ``require_relative`` against the file's folder; ``require`` against the ``lib``
folders (the root's and each gem's), the root, then the file's folder; ``.rb`` added. PHP:
``require``/``include`` against the file's folder (``__DIR__``), then the root; ``use A\\B``
through composer.json's PSR-4 ``autoload`` prefixes (the longest first), else the file ``B.php``
of a file declaring namespace ``A``, else the files declaring namespace ``A\\B``. Lua:
``require("a.b")`` is ``a/b.lua`` or ``a/b/init.lua`` under the root, ``src``, ``lua`` or
the file's folder. Bash: a sourced path against the file's folder, then the root. What
resolves to no file is an external package (Ruby's gem, PHP's vendor, Lua's rock) or, for a
path, not found."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping

from octo.local.graph.graph import Edge
from octo.local.graph.imports import RawImport
from octo.local.graph.languages.interpreted_imports import HERE

RUBY_SUFFIXES = (".rb", ".rake")
PHP_SUFFIX = ".php"
LUA_SUFFIX = ".lua"
SHELL_SUFFIXES = (".sh", ".bash")
INTERPRETED_SUFFIXES = (*RUBY_SUFFIXES, PHP_SUFFIX, LUA_SUFFIX, *SHELL_SUFFIXES)
_LUA_FOLDERS = ("", "src", "lua")


class InterpretedModules:
    """What the imports of a root's Ruby, PHP, Lua and shell files name."""

    def __init__(
        self, files: frozenset[str], declared: Mapping[str, str], configs: Mapping[str, str]
    ) -> None:
        self.files = files
        self.problems: list[str] = []
        #: Ruby's load path: each ``lib`` folder holding Ruby files (the root's, each gem's).
        self.ruby_folders = sorted(
            {folder for folder in map(_lib_folder, files) if folder is not None}
        )
        self.php_namespaces: dict[str, list[str]] = {}
        for rel, names in sorted(declared.items()):
            if rel.endswith(PHP_SUFFIX):
                for name in names.split():
                    self.php_namespaces.setdefault(name, []).append(rel)
        #: PSR-4 prefixes (``App\``) and their folders, the longest prefix first.
        self.psr4: list[tuple[str, str]] = []
        for rel, text in sorted(configs.items()):
            if posixpath.basename(rel) == "composer.json":
                self.psr4.extend(self._psr4(rel, text))
        self.psr4.sort(key=lambda pair: -len(pair[0]))

    def edges(self, rel: str, imports: tuple[RawImport, ...]) -> tuple[list[Edge], list[str]]:
        """The edges of ``rel``'s imports, and what could not be resolved."""
        edges: list[Edge] = []
        problems: list[str] = []
        for raw in imports:
            if rel.endswith(RUBY_SUFFIXES):
                target, package = self._ruby(rel, raw)
            elif rel.endswith(PHP_SUFFIX):
                target, package = self._php(rel, raw)
            elif rel.endswith(LUA_SUFFIX):
                target, package = self._lua(rel, raw.spec)
            else:
                target, package = self._first(_places(rel, raw.spec, ("",)), ()), None
            if target is None and package is None:
                problems.append(f"{rel}:{raw.line}: '{raw.spec}' not found")
            if target != rel:
                edges.append(Edge(rel, target, package, raw.line, raw.text, raw.flags, raw.spec))
        return edges, problems

    def _first(self, candidates: list[str], suffixes: tuple[str, ...]) -> str | None:
        for candidate in candidates:
            for suffix in ("", *suffixes):
                if candidate + suffix in self.files:
                    return candidate + suffix
        return None

    def _ruby(self, rel: str, raw: RawImport) -> tuple[str | None, str | None]:
        spec = raw.spec
        if raw.names == ("require_relative",) or spec.startswith(("./", "../")):
            return self._first(_places(rel, spec, ()), (".rb",)), None
        folders = (*self.ruby_folders, "") if raw.names != ("load",) else ("",)
        found = self._first(_places(rel, spec, folders), (".rb",))
        if found is not None or raw.names == ("load",):
            return found, None
        return None, spec.split("/", 1)[0]

    def _php(self, rel: str, raw: RawImport) -> tuple[str | None, str | None]:
        if raw.names == ("include",):
            spec = "." + raw.spec.removeprefix(HERE) if raw.spec.startswith(HERE) else raw.spec
            return self._first(_places(rel, spec, ("",)), ()), None
        name = raw.spec.lstrip("\\")
        for prefix, folder in self.psr4:
            if name.startswith(prefix):
                path = posixpath.join(folder, *name[len(prefix) :].split("\\"))
                if path + PHP_SUFFIX in self.files:
                    return path + PHP_SUFFIX, None
        namespace, _, last = name.rpartition("\\")
        for candidate in self.php_namespaces.get(namespace, []):
            if posixpath.basename(candidate) == last + PHP_SUFFIX:
                return candidate, None
        inside = self.php_namespaces.get(name) or self.php_namespaces.get(namespace)
        if inside:
            return inside[0], None
        return None, name.split("\\", 1)[0]

    def _lua(self, rel: str, spec: str) -> tuple[str | None, str | None]:
        path = spec.replace(".", "/")
        folders = (*_LUA_FOLDERS, posixpath.dirname(rel))
        candidates = [posixpath.normpath(posixpath.join(f, path)) for f in folders]
        for candidate in candidates:
            for name in (candidate + LUA_SUFFIX, candidate + "/init.lua"):
                if name in self.files:
                    return name, None
        return None, spec.split(".", 1)[0]

    def _psr4(self, rel: str, text: str) -> list[tuple[str, str]]:
        try:
            manifest = json.loads(text)
        except ValueError as exc:
            self.problems.append(f"{rel}: not JSON ({exc})")
            return []
        found = []
        folder = posixpath.dirname(rel)
        for section in ("autoload", "autoload-dev"):
            table = manifest.get(section) if isinstance(manifest, dict) else None
            mapping = table.get("psr-4") if isinstance(table, dict) else None
            for prefix, paths in (mapping if isinstance(mapping, dict) else {}).items():
                for path in [paths] if isinstance(paths, str) else paths:
                    if isinstance(path, str):
                        where = posixpath.normpath(posixpath.join(folder, path))
                        found.append((prefix, "" if where == "." else where))
        return found


def _lib_folder(rel: str) -> str | None:
    """The innermost ``lib`` folder holding ``rel`` (a Ruby file)."""
    if not rel.endswith(RUBY_SUFFIXES):
        return None
    parts = rel.split("/")[:-1]
    if "lib" not in parts:
        return None
    return "/".join(parts[: len(parts) - parts[::-1].index("lib")])


def _places(rel: str, spec: str, folders: tuple[str, ...]) -> list[str]:
    """Where a path can be: beside ``rel`` (relative), or under each of ``folders``; none
    above the root."""
    if spec.startswith("/"):
        return []
    bases = [posixpath.dirname(rel)] if spec.startswith(("./", "../")) else [*folders]
    if not spec.startswith(("./", "../")):
        bases.append(posixpath.dirname(rel))
    found = []
    for base in bases:
        path = posixpath.normpath(posixpath.join(base, spec))
        if path != ".." and not path.startswith("../"):
            found.append(path)
    return found
