"""Imports of Go, Rust, Java, Kotlin, Scala, C#, Swift, C and C++, parsed by ast-grep: only
the part of a file that can hold them where the language puts them first (Go, Java, Kotlin),
only the ``#include`` lines of C and C++, the whole file for Rust (``mod`` and ``use`` go
anywhere), Scala (imports go anywhere), C# (namespaces hold the code) and Swift.

Each extractor gives the imports, the package or namespaces the file declares (Go, Java,
Kotlin, Scala, C#) and whether it is a program's entry (a ``main``)."""

from __future__ import annotations

from ast_grep_py import SgNode
from ast_grep_py import SgRoot

from octo.core.files.grammars import GRAMMAR_BY_EXTENSION
from octo.local.graph.imports import DECLARES_MODULE
from octo.local.graph.imports import Extracted
from octo.local.graph.imports import RawImport
from octo.local.graph.imports import shown_text
from octo.local.graph.imports import syntax_problem

#: ast-grep's grammar for each file suffix of these languages: the outline's table, plus
#: Kotlin scripts and Scala worksheets, and headers read as C++ (a superset of C's syntax,
#: so a C++ header's classes parse too).
COMPILED_GRAMMARS = {
    **{
        suffix: grammar
        for suffix, grammar in GRAMMAR_BY_EXTENSION.items()
        if grammar in ("go", "rust", "java", "kotlin", "scala", "csharp", "swift", "c", "cpp")
    },
    ".kts": "kotlin",
    ".sc": "scala",
    ".h": "cpp",
}


def compiled_imports(data: bytes, grammar: str) -> Extracted:
    """The imports, declared package and entry mark of a file parsed as ``grammar``."""
    if grammar == "go":
        return _go(data)
    if grammar == "rust":
        return _rust(data)
    if grammar in ("java", "kotlin"):
        return _jvm(data, grammar)
    if grammar == "scala":
        return _scala(data)
    if grammar == "csharp":
        return _csharp(data)
    if grammar == "swift":
        return _swift(data)
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
    return Extracted(found, package, package == "main")


def _rust(data: bytes) -> Extracted:
    if b"mod " not in data and b"use " not in data:
        return Extracted([])
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
    return Extracted(found)


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
    return Extracted(found, package, runs)


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
        return Extracted([], runs=runs)
    root = _parse(b"\n".join(lines), grammar)
    found = []
    for node in root.find_all(kind="preproc_include"):
        path = node.field("path")
        if path is None:
            continue
        row = node.range().start.line
        spec = path.text() if path.kind() == "system_lib_string" else path.text().strip('"')
        found.append(RawImport(origins[row] + 1, shown_text(node.text()), spec))
    return Extracted(found, runs=runs)


def _scala(data: bytes) -> Extracted:
    root = _parse(data, "scala")
    # ``package a`` then ``package b`` (chained clauses) declare ``a.b``.
    clauses = [
        "".join(clause.text().split()[1:])
        for clause in root.children()
        if clause.kind() == "package_clause" and clause.field("body") is None
    ]
    found = []
    for node in root.find_all(kind="import_declaration"):
        line = node.range().start.line + 1
        text = shown_text(node.text())
        path = ".".join(c.text() for c in node.children() if c.kind() == "identifier")
        kinds = {child.kind(): child for child in node.children()}
        selectors = kinds.get("namespace_selectors")
        if "namespace_wildcard" in kinds:
            found.append(RawImport(line, text, path, ("*",)))
        elif selectors is not None:
            for selector in selectors.children():
                name = selector.field("name") or selector.find(kind="identifier")
                if selector.kind() == "namespace_wildcard":
                    found.append(RawImport(line, text, path, ("*",)))
                elif name is not None and selector.is_named():
                    found.append(RawImport(line, text, f"{path}.{name.text()}"))
        elif path:
            found.append(RawImport(line, text, path))
    runs = b"def main(" in data or b"extends App" in data or b"@main" in data
    return Extracted(found, ".".join(clauses) or None, runs, syntax_problem(root))


def _csharp(data: bytes) -> Extracted:
    root = _parse(data, "csharp")
    found = []
    for node in root.find_all(kind="using_directive"):
        named = [c for c in node.children() if c.kind() in ("qualified_name", "identifier")]
        if named:
            line = node.range().start.line + 1
            found.append(
                RawImport(line, shown_text(node.text()), "".join(named[-1].text().split()))
            )
    declared = []
    kinds = ("namespace_declaration", "file_scoped_namespace_declaration")
    for node in root.find_all(any=[{"kind": kind} for kind in kinds]):
        names = [node, *(a for a in node.ancestors() if a.kind() in kinds)]
        parts = [n.field("name") for n in reversed(names)]
        declared.append(".".join("".join(p.text().split()) for p in parts if p is not None))
    runs = b" Main(" in data
    return Extracted(found, " ".join(dict.fromkeys(declared)) or None, runs, syntax_problem(root))


def _swift(data: bytes) -> Extracted:
    root = _parse(data, "swift")
    found = []
    for node in root.find_all(kind="import_declaration"):
        name = node.find(kind="simple_identifier")
        if name is not None:
            line = node.range().start.line + 1
            found.append(RawImport(line, shown_text(node.text()), name.text()))
    return Extracted(found, None, b"@main" in data, syntax_problem(root))
