"""Imports of Go, Rust, Java, Kotlin, C and C++, parsed by ast-grep: only the part of a
file that can hold them where the language puts them first (Go, Java, Kotlin), only the
``#include`` lines of C and C++, the whole file for Rust (``mod`` and ``use`` go anywhere).

Each extractor gives the imports, the package the file declares (Go, Java, Kotlin) and
whether it is a program's entry (a ``main``)."""

from __future__ import annotations

from ast_grep_py import SgNode
from ast_grep_py import SgRoot

from octo.local.graph.imports import DECLARES_MODULE
from octo.local.graph.imports import RawImport
from octo.local.graph.imports import shown_text

Extracted = tuple[list[RawImport], str | None, bool]

#: ast-grep's grammar for each file suffix of these languages.
COMPILED_GRAMMARS = {
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".c": "c",
    ".h": "cpp",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
}


def compiled_imports(data: bytes, grammar: str) -> Extracted:
    """The imports, declared package and entry mark of a file parsed as ``grammar``."""
    if grammar == "go":
        return _go(data)
    if grammar == "rust":
        return _rust(data)
    if grammar in ("java", "kotlin"):
        return _jvm(data, grammar)
    return _includes(data, grammar)


def _parse(data: bytes, grammar: str) -> SgNode:
    return SgRoot(data.decode("utf-8", "replace"), grammar).root()


def _go(data: bytes) -> Extracted:
    # Imports come before the first declaration.
    cut = min((at for at in (data.find(b"\nfunc "), data.find(b"\ntype ")) if at >= 0), default=-1)
    root = _parse(data[:cut] if cut >= 0 else data, "go")
    clause = root.find(kind="package_clause")
    name = clause.find(kind="package_identifier") if clause is not None else None
    package = name.text() if name is not None else None
    found = []
    for spec in root.find_all(kind="import_spec"):
        path = spec.find(kind="interpreted_string_literal")
        if path is not None:
            line = spec.range().start.line + 1
            found.append(
                RawImport(line, shown_text("import " + spec.text()), path.text().strip('"'))
            )
    return found, package, package == "main"


def _rust(data: bytes) -> Extracted:
    if b"mod " not in data and b"use " not in data:
        return [], None, False
    root = _parse(data, "rust")
    found = []
    for node in root.find_all(any=[{"kind": "mod_item"}, {"kind": "use_declaration"}]):
        line = node.range().start.line + 1
        text = shown_text(node.text())
        if node.kind() == "mod_item":
            name = node.field("name")
            if node.field("body") is None and name is not None:
                found.append(RawImport(line, text, name.text(), flags=DECLARES_MODULE))
            continue
        argument = node.field("argument")
        if argument is not None:
            found.extend(RawImport(line, text, path) for path in _use_paths(argument, ""))
    return found, None, False


def _use_paths(node: SgNode, prefix: str) -> list[str]:
    """The paths a ``use`` tree names, each as ``a::b::c`` (a glob ends at its module)."""
    kind = node.kind()
    joined = (prefix + "::") if prefix else ""
    if kind == "scoped_use_list":
        path = node.field("path")
        inner = joined + "".join(path.text().split()) if path is not None else prefix
        listed = node.field("list")
        return _use_paths(listed, inner) if listed is not None else [inner]
    if kind == "use_list":
        return [
            p for child in node.children() if child.is_named() for p in _use_paths(child, prefix)
        ]
    if kind == "use_as_clause":
        path = node.field("path")
        return _use_paths(path, prefix) if path is not None else []
    if kind == "use_wildcard":
        named = [child for child in node.children() if child.is_named()]
        return [joined + "".join(named[0].text().split())] if named else [prefix]
    text = "".join(node.text().split())
    return [prefix if text == "self" else joined + text]


def _jvm(data: bytes, grammar: str) -> Extracted:
    last = max(data.rfind(b"\nimport "), data.rfind(b"\npackage "), 0)
    end = data.find(b"\n", last + 1)
    root = _parse(data[: end if end >= 0 else len(data)], grammar)
    java = grammar == "java"
    header = root.find(kind="package_declaration" if java else "package_header")
    package = None
    if header is not None:
        named = [c for c in header.children() if c.kind() in ("scoped_identifier", "identifier")]
        package = "".join(named[0].text().split()) if named else None
    found = []
    for node in root.find_all(kind="import_declaration" if java else "import_header"):
        kinds = [child.kind() for child in node.children()]
        named = [c for c in node.children() if c.kind() in ("scoped_identifier", "identifier")]
        if not named:
            continue
        path = "".join(named[0].text().split())
        wildcard = "asterisk" in kinds or "wildcard_import" in kinds
        line = node.range().start.line + 1
        found.append(RawImport(line, shown_text(node.text()), path, ("*",) if wildcard else ()))
    runs = (b"static void main(" in data) if java else (b"fun main(" in data)
    return found, package, runs


def _includes(data: bytes, grammar: str) -> Extracted:
    lines: list[bytes] = []
    origins: list[int] = []
    for number, line in enumerate(data.split(b"\n")):
        body = line.lstrip()
        if body.startswith(b"#") and b"include" in body[:16]:
            lines.append(body)
            origins.append(number)
    runs = b"int main(" in data or b"void main(" in data
    if not lines:
        return [], None, runs
    root = _parse(b"\n".join(lines), grammar)
    found = []
    for node in root.find_all(kind="preproc_include"):
        path = node.field("path")
        if path is None:
            continue
        row = node.range().start.line
        spec = path.text() if path.kind() == "system_lib_string" else path.text().strip('"')
        found.append(RawImport(origins[row] + 1, shown_text(node.text()), spec))
    return found, None, runs
