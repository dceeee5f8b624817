"""Python module names of a root's files, and imports resolved to those files.

A file's module name is its path below the deepest source root above it (the root, or a
``src`` folder); a folder without ``__init__.py`` is a namespace package. An import
resolves to the module it names when that is a file of the root; ``from p import n``
to the submodule ``p.n`` when there is one, else to ``p`` (as grimp resolves them); a
first name no file of the root carries is an external package.
"""

from __future__ import annotations

import configparser
import posixpath
import sys
import tomllib
from collections.abc import Iterable
from collections.abc import Mapping

from octo.local.graph.graph import Edge
from octo.local.graph.imports import RawImport

_SOURCE_FOLDERS = ("src", "lib", "python")


class PythonModules:
    """The module names of the Python files under a root."""

    def __init__(self, files: Iterable[str]) -> None:
        #: Every file of the root (module names change only when this does).
        self.files = frozenset(files)
        python = sorted(f for f in self.files if f.endswith((".py", ".pyi")))
        folders = {f.split("/", 1)[0] for f in python if "/" in f}
        packages = {
            f.split("/", 1)[0]
            for f in python
            if f.endswith(("/__init__.py", "/__init__.pyi")) and f.count("/") == 1
        }
        #: Source roots, deepest first ("" is the root itself); a package is none.
        self.source_roots = [s for s in _SOURCE_FOLDERS if s in folders and s not in packages] + [
            ""
        ]
        self.by_name: dict[str, str] = {}
        self.namespaces: set[str] = set()
        self.name_of: dict[str, str] = {}
        for rel in python:
            for source in self.source_roots:
                if source and not rel.startswith(source + "/"):
                    continue
                name = _module_name(rel[len(source) + 1 :] if source else rel)
                if name is None:
                    continue
                self.name_of.setdefault(rel, name)
                # A .py file wins over its stub; the deepest source root over the root.
                if name not in self.by_name or self.by_name[name].endswith(".pyi"):
                    self.by_name[name] = rel
                parts = name.split(".")
                for end in range(1, len(parts)):
                    self.namespaces.add(".".join(parts[:end]))
        self.tops = {name.split(".", 1)[0] for name in self.by_name} | {
            name.split(".", 1)[0] for name in self.namespaces
        }

    def packages_of(self, rel: str) -> list[str]:
        """The ``__init__`` files of the packages holding ``rel`` (importing it runs them)."""
        name = self.name_of.get(rel)
        if name is None:
            return []
        parts = name.split(".")[:-1]
        found = (self.by_name.get(".".join(parts[:end])) for end in range(1, len(parts) + 1))
        return [f for f in found if f is not None and f != rel]

    def file_of(self, module: str) -> str | None:
        """The file of a dotted module name."""
        return self.by_name.get(module)

    def edges(self, rel: str, imports: tuple[RawImport, ...]) -> tuple[list[Edge], list[str]]:
        """The edges of ``rel``'s imports, and what could not be read (diagnostics)."""
        name = self.name_of.get(rel, "")
        package = (
            name.split(".")
            if rel.endswith(("/__init__.py", "/__init__.pyi"))
            else name.split(".")[:-1]
        )
        found: list[Edge] = []
        problems: list[str] = []
        for raw in imports:
            if raw.level:
                if raw.level - 1 > len(package) or not name:
                    problems.append(f"{rel}:{raw.line}: relative import above the top package")
                    found.append(
                        Edge(
                            rel,
                            None,
                            None,
                            raw.line,
                            raw.text,
                            raw.flags,
                            "." * raw.level + raw.spec,
                        )
                    )
                    continue
                base = ".".join(
                    [*package[: len(package) - raw.level + 1], *filter(None, [raw.spec])]
                )
            else:
                base = raw.spec
            found.extend(self._resolved(rel, base, raw))
        return found, problems

    def _resolved(self, rel: str, base: str, raw: RawImport) -> list[Edge]:
        top = base.split(".", 1)[0]
        if not raw.level and top not in self.tops:
            shown = top if top else None
            return [Edge(rel, None, shown, raw.line, raw.text, raw.flags, raw.spec)]
        targets: list[str | None] = []
        if raw.names:
            for name in raw.names:
                sub = self.by_name.get(f"{base}.{name}" if base else name) if name != "*" else None
                targets.append(sub if sub is not None else self._nearest(base))
        else:
            targets.append(self._nearest(base))
        kept = dict.fromkeys(target for target in targets if target != rel)
        return [Edge(rel, target, None, raw.line, raw.text, raw.flags, raw.spec) for target in kept]

    def _nearest(self, module: str) -> str | None:
        """The file of ``module``, else of its nearest parent package that is a file."""
        parts = module.split(".")
        while parts:
            found = self.by_name.get(".".join(parts))
            if found is not None:
                return found
            if ".".join(parts) in self.namespaces:
                return None
            parts.pop()
        return None


def script_modules(configs: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """The modules the console and GUI scripts of pyproject.toml and setup.cfg files run
    (``name = "module:function"``), and what could not be read."""
    modules: list[str] = []
    problems: list[str] = []
    for rel, text in sorted(configs.items()):
        name = posixpath.basename(rel)
        targets: list[str] = []
        if name == "pyproject.toml":
            try:
                project = tomllib.loads(text).get("project", {})
            except tomllib.TOMLDecodeError as exc:
                problems.append(f"{rel}: not TOML ({exc})")
                continue
            for table in ("scripts", "gui-scripts"):
                found = project.get(table, {}) if isinstance(project, dict) else {}
                targets += (
                    [v for v in found.values() if isinstance(v, str)]
                    if isinstance(found, dict)
                    else []
                )
        elif name == "setup.cfg":
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read_string(text)
            except configparser.Error as exc:
                problems.append(f"{rel}: not readable ({exc})")
                continue
            for key in ("console_scripts", "gui_scripts"):
                listed = parser.get("options.entry_points", key, fallback="")
                targets += [line.split("=", 1)[-1] for line in listed.splitlines() if "=" in line]
        modules += [target.split(":", 1)[0].strip() for target in targets]
    return modules, problems


def _module_name(rel: str) -> str | None:
    stem = rel.rsplit(".", 1)[0]
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def is_standard_library(package: str) -> bool:
    """True for a module of Python's standard library."""
    return package in sys.stdlib_module_names
