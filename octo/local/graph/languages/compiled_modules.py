"""Imports of Go, Rust, Java, Kotlin, Scala, C#, Swift, C and C++ resolved to a root's files.

Go: an import path under a ``go.mod`` module path names the package folder (each of its
files that is not a test). Rust: ``mod x;`` names ``x.rs`` or ``x/mod.rs`` beside the
declaring module; ``use crate::``/``super::``/``self::`` paths name the module file of their
longest prefix that has one, and a workspace member crate's name its own ``src``. Java and Kotlin: ``a.b.C`` names the file ``C`` of a file that
declares package ``a.b`` (a static member or nested class: its class's file; ``a.b.*`` or a
Kotlin top-level function: the package's files); Scala the same, ``a.b._`` and ``a.b.{C, D}``
too. C#: ``using A.B`` names the files declaring namespace ``A.B`` (``using static A.B.C`` or an
alias of a class: ``C``'s file there). Swift: ``import M`` names the files of the module's
folder (SwiftPM's ``Sources/M``, else a folder ``M``). C and C++: ``#include "x"`` against the
including file's folder, then the include folders of ``compile_commands.json`` and
``include``/``src``/the root.
"""

from __future__ import annotations

import json
import posixpath
import shlex
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from octo.local.graph.graph import Edge
from octo.local.graph.imports import DECLARES_MODULE
from octo.local.graph.imports import RawImport

GO_SUFFIX = ".go"
RUST_SUFFIX = ".rs"
JVM_SUFFIXES = (".java", ".kt", ".kts", ".scala", ".sc")
CSHARP_SUFFIX = ".cs"
SWIFT_SUFFIX = ".swift"
C_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh")
COMPILED_SUFFIXES = (
    GO_SUFFIX, RUST_SUFFIX, *JVM_SUFFIXES, CSHARP_SUFFIX, SWIFT_SUFFIX, *C_SUFFIXES,
)  # fmt: skip
#: Files whose declared names every import may depend on (a change resolves all again).
DECLARING_SUFFIXES = (*JVM_SUFFIXES, CSHARP_SUFFIX)
_RUST_STANDARD = frozenset({"std", "core", "alloc", "proc_macro", "test"})
_JVM_STANDARD = ("java", "javax", "jdk", "kotlin", "sun", "scala")
_CSHARP_STANDARD = ("System", "Microsoft")
_SWIFT_STANDARD = frozenset(
    {
        "Swift", "Foundation", "Dispatch", "Darwin", "Glibc", "UIKit", "AppKit", "SwiftUI",
        "Combine", "XCTest", "os", "CoreData", "CoreGraphics", "Observation", "Testing",
    }
)  # fmt: skip
_INCLUDE_FOLDERS = ("include", "src", "")


class CompiledModules:
    """What the imports of a root's Go, Rust, Java, Kotlin, Scala, C#, Swift, C and C++
    files name."""

    def __init__(
        self,
        files: frozenset[str],
        declared: Mapping[str, str],
        configs: Mapping[str, str],
        start: Path,
    ) -> None:
        self.files = files
        self.problems: list[str] = []
        self.go_modules: list[tuple[str, str]] = []
        self.crates: list[str] = []
        #: The root's own crates by the name ``use`` gives them (a workspace's members).
        self.crate_names: dict[str, str] = {}
        self.go_packages: dict[str, list[str]] = {}
        for rel in sorted(files):
            if rel.endswith(GO_SUFFIX) and not rel.endswith("_test.go"):
                self.go_packages.setdefault(posixpath.dirname(rel), []).append(rel)
        self.classes: dict[str, str] = {}
        self.jvm_packages: dict[str, list[str]] = {}
        self.namespaces: dict[str, list[str]] = {}
        for rel, package in sorted(declared.items()):
            if rel.endswith(JVM_SUFFIXES):
                stem = posixpath.basename(rel).rsplit(".", 1)[0]
                self.classes[f"{package}.{stem}" if package else stem] = rel
                self.jvm_packages.setdefault(package, []).append(rel)
            elif rel.endswith(CSHARP_SUFFIX):
                for namespace in package.split():
                    self.namespaces.setdefault(namespace, []).append(rel)
        #: Swift: each folder's files, by module name (``Sources/M/...`` or a folder ``M``).
        self.swift_modules: dict[str, list[str]] = {}
        for rel in sorted(files):
            if rel.endswith(SWIFT_SUFFIX):
                for target in _swift_modules(rel):
                    self.swift_modules.setdefault(target, []).append(rel)
        include: list[str] = []
        for rel, text in sorted(configs.items()):
            name = posixpath.basename(rel)
            if name == "go.mod":
                module = _go_module(text)
                if module is not None:
                    self.go_modules.append((posixpath.dirname(rel), module))
            elif name == "Cargo.toml":
                self.crates.append(posixpath.dirname(rel))
                crate = _crate_name(text)
                if crate is not None:
                    self.crate_names[crate.replace("-", "_")] = posixpath.dirname(rel)
            elif name == "compile_commands.json":
                include.extend(self._include_folders(rel, text, start))
        self.include = [*dict.fromkeys([*include, *_INCLUDE_FOLDERS])]
        # The longest module path or crate folder first.
        self.go_modules.sort(key=lambda pair: -len(pair[1]))
        self.crates.sort(key=len, reverse=True)

    def entry_points(self) -> list[str]:
        """Each crate's ``src/main.rs``, ``src/lib.rs``, ``build.rs`` and ``src/bin`` files."""
        found = []
        for crate in self.crates:
            prefix = f"{crate}/" if crate else ""
            for name in ("src/main.rs", "src/lib.rs", "build.rs"):
                if prefix + name in self.files:
                    found.append(prefix + name)
            found.extend(f for f in self.files if f.startswith(prefix + "src/bin/"))
        found.extend(f for f in self.files if posixpath.basename(f) == "main.swift")
        return found

    def edges(self, rel: str, imports: tuple[RawImport, ...]) -> tuple[list[Edge], list[str]]:
        """The edges of ``rel``'s imports, and what could not be resolved."""
        edges: list[Edge] = []
        problems: list[str] = []
        for raw in imports:
            if rel.endswith(GO_SUFFIX):
                targets, package = self._go(raw.spec)
            elif rel.endswith(RUST_SUFFIX):
                targets, package = self._rust(rel, raw)
            elif rel.endswith(JVM_SUFFIXES):
                targets, package = self._jvm(raw)
            elif rel.endswith(CSHARP_SUFFIX):
                targets, package = self._csharp(raw.spec)
            elif rel.endswith(SWIFT_SUFFIX):
                targets = self.swift_modules.get(raw.spec, [])
                package = None if targets else raw.spec
            else:
                targets, package = self._include(rel, raw.spec)
            if not targets and package is None:
                problems.append(f"{rel}:{raw.line}: '{raw.spec}' not found")
                edges.append(Edge(rel, None, None, raw.line, raw.text, raw.flags, raw.spec))
            elif not targets:
                edges.append(Edge(rel, None, package, raw.line, raw.text, raw.flags, raw.spec))
            for target in dict.fromkeys(targets):
                if target != rel:
                    edges.append(Edge(rel, target, None, raw.line, raw.text, raw.flags, raw.spec))
        return edges, problems

    def _go(self, spec: str) -> tuple[list[str], str | None]:
        for folder, module in self.go_modules:
            if spec == module or spec.startswith(module + "/"):
                sub = spec[len(module) + 1 :]
                package = posixpath.join(folder, sub) if folder else sub
                return self.go_packages.get(package.rstrip("/"), []), None
        first = spec.split("/", 1)[0]
        return [], spec if "." not in first else "/".join(spec.split("/")[:3])

    def _rust(self, rel: str, raw: RawImport) -> tuple[list[str], str | None]:
        crate = next((c for c in self.crates if not c or rel.startswith(c + "/")), None)
        source = posixpath.join(crate, "src") if crate else "src"
        if crate is None:
            source = posixpath.dirname(rel)
        here = _rust_module_path(rel, source)
        if raw.flags & DECLARES_MODULE:
            folder = _rust_module_folder(rel)
            found = [f"{folder}/{raw.spec}.rs", f"{folder}/{raw.spec}/mod.rs"]
            found = [posixpath.normpath(f) for f in found]
            return [f for f in found if f in self.files][:1], None
        segments = raw.spec.split("::")
        if segments[0] == "crate":
            path = segments[1:]
        elif segments[0] == "self":
            path = [*here, *segments[1:]]
        elif segments[0] == "super":
            base = list(here)
            while segments and segments[0] == "super":
                base = base[:-1]
                segments = segments[1:]
            path = [*base, *segments]
        elif segments[0] in _RUST_STANDARD:
            return [], segments[0]
        elif segments[0] in self.crate_names:
            other = self.crate_names[segments[0]]
            source = posixpath.join(other, "src") if other else "src"
            path = segments[1:]
        elif self._rust_file(source, segments[:1]) is not None:
            path = segments
        else:
            return [], segments[0]
        for end in range(len(path), -1, -1):
            module = self._rust_file(source, path[:end])
            if module is not None:
                return [module], None
        return [], None

    def _rust_file(self, source: str, path: list[str]) -> str | None:
        if not path:
            for root in ("lib.rs", "main.rs"):
                candidate = posixpath.join(source, root)
                if candidate in self.files:
                    return candidate
            return None
        joined = posixpath.join(source, *path)
        for candidate in (joined + ".rs", joined + "/mod.rs"):
            if candidate in self.files:
                return candidate
        return None

    def _jvm(self, raw: RawImport) -> tuple[list[str], str | None]:
        if raw.names == ("*",):
            found = self.jvm_packages.get(raw.spec)
            if found:
                return found, None
        parts = raw.spec.split(".")
        for end in range(len(parts), max(0, len(parts) - 3), -1):
            found_class = self.classes.get(".".join(parts[:end]))
            if found_class is not None:
                return [found_class], None
        # A Kotlin top-level function or property: its package's files (as Go's packages).
        package_files = self.jvm_packages.get(".".join(parts[:-1]))
        if package_files:
            return package_files, None
        return [], ".".join(parts[:2])

    def _csharp(self, spec: str) -> tuple[list[str], str | None]:
        found = self.namespaces.get(spec)
        if found:
            return found, None
        # ``using static A.B.C`` or ``using X = A.B.C``: the class C's file in ``A.B``.
        namespace, _, name = spec.rpartition(".")
        for rel in self.namespaces.get(namespace, []):
            if posixpath.basename(rel) == f"{name}.cs":
                return [rel], None
        return [], ".".join(spec.split(".")[:2])

    def _include(self, rel: str, spec: str) -> tuple[list[str], str | None]:
        system = spec.startswith("<")
        name = spec.strip("<>")
        folders = ([] if system else [posixpath.dirname(rel)]) + self.include
        for folder in folders:
            candidate = posixpath.normpath(posixpath.join(folder, name))
            if candidate in self.files:
                return [candidate], None
        return [], name if system else None

    def _include_folders(self, rel: str, text: str, start: Path) -> list[str]:
        """The ``-I`` folders of a compile_commands.json, relative to the root."""
        try:
            commands: Any = json.loads(text)
        except ValueError as exc:
            self.problems.append(f"{rel}: not JSON ({exc})")
            return []
        found: list[str] = []
        for entry in commands if isinstance(commands, list) else []:
            if not isinstance(entry, dict):
                continue
            arguments = entry.get("arguments")
            if not isinstance(arguments, list):
                command = entry.get("command")
                try:
                    arguments = shlex.split(command) if isinstance(command, str) else []
                except ValueError:
                    arguments = []
            directory = Path(str(entry.get("directory") or start))
            for index, argument in enumerate(arguments):
                folder = None
                if argument == "-I" and index + 1 < len(arguments):
                    folder = str(arguments[index + 1])
                elif isinstance(argument, str) and argument.startswith("-I"):
                    folder = argument[2:]
                if folder is None:
                    continue
                absolute = Path(posixpath.normpath(directory / folder))
                if absolute.is_relative_to(start):
                    found.append(absolute.relative_to(start).as_posix().removeprefix("."))
        return found


def is_standard(source: str, package: str) -> bool:
    """True when ``package``, imported by ``source``, is its language's own library."""
    if source.endswith(GO_SUFFIX):
        return "." not in package.split("/", 1)[0]
    if source.endswith(RUST_SUFFIX):
        return package in _RUST_STANDARD
    if source.endswith(JVM_SUFFIXES):
        return package.split(".", 1)[0] in _JVM_STANDARD
    if source.endswith(CSHARP_SUFFIX):
        return package.split(".", 1)[0] in _CSHARP_STANDARD
    if source.endswith(SWIFT_SUFFIX):
        return package in _SWIFT_STANDARD
    return False


def _swift_modules(rel: str) -> list[str]:
    """The modules a Swift file can belong to: the folder after ``Sources``/``Tests``
    (SwiftPM), and its top folder (an Xcode project's target)."""
    parts = rel.split("/")[:-1]
    found = [parts[at + 1] for at, part in enumerate(parts[:-1]) if part in ("Sources", "Tests")]
    if parts and parts[0] not in ("Sources", "Tests"):
        found.append(parts[0])
    return found


def _crate_name(text: str) -> str | None:
    """The ``[package] name`` of a Cargo.toml."""
    try:
        package = tomllib.loads(text).get("package")
    except tomllib.TOMLDecodeError:
        return None
    name = package.get("name") if isinstance(package, dict) else None
    return name if isinstance(name, str) else None


def _go_module(text: str) -> str | None:
    """The module path a go.mod declares."""
    for line in text.splitlines():
        words = line.split("//", 1)[0].split()
        if len(words) == 2 and words[0] == "module":
            return words[1].strip('"`')
    return None


def _rust_module_folder(rel: str) -> str:
    """Where the modules a Rust file declares live."""
    folder, name = posixpath.split(rel)
    if name in ("lib.rs", "main.rs", "mod.rs") or "/bin/" in f"/{rel}":
        return folder
    return posixpath.join(folder, name.removesuffix(".rs"))


def _rust_module_path(rel: str, source: str) -> list[str]:
    """A Rust file's module path below its crate's ``src``."""
    inside = posixpath.relpath(rel, source) if source else rel
    if inside.startswith(".."):
        return []
    parts = inside.removesuffix(".rs").split("/")
    if parts[-1] in ("lib", "main", "mod"):
        parts = parts[:-1]
    return parts
