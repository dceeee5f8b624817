"""The next calls an LSP answer suggests, each as the exact call to make: read the
definition's body, its uses and callers, the next (or last) page, one level further up or
down the call hierarchy.

Files are named by absolute path, so a call works whatever the allowed roots are; a file in
a dot-directory gets ``hidden: true``, which reading it takes.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from octo.core.budget import Pagination
from octo.core.budget import page_hints
from octo.core.formats import compact_json
from octo.lsp.models import CallHierarchyQuery
from octo.lsp.models import FindReferencesQuery
from octo.lsp.models import SymbolQuery
from octo.lsp.navigation.locations import SeenFile

#: Lines read for a body whose end the server did not say.
BODY_LINES = 30
#: Lines read before and after a use.
AROUND_USE = 10


def short_name(query: SymbolQuery) -> str:
    """The name looked up: the last part of a dotted symbol."""
    return query.symbolName.rsplit(".", 1)[-1]


def is_callable_at(line: str, name: str) -> bool:
    """True when ``line`` calls or declares ``name`` with parentheses, type arguments
    allowed between (a function)."""
    pattern = rf"(?<![\w$]){re.escape(name)}\s*(<[^<>()]*>\s*)?\("
    return re.search(pattern, line) is not None


def read_call(file: SeenFile, first: int, last: int) -> str:
    """localGetFileContent on lines ``first``-``last`` of ``file``."""
    start = max(1, first)
    params: dict[str, Any] = {
        "path": str(file.absolute),
        "startLine": start,
        "endLine": max(start, last),
    }
    if any(part.startswith(".") for part in PurePath(file.path).parts):
        params["hidden"] = True
    return "localGetFileContent " + compact_json(params)


def symbol_call(tool: str, file: SeenFile | str, name: str, line: int, **extra: Any) -> str:
    """``tool`` on the symbol ``name`` at ``line`` of ``file``."""
    uri = str(file.absolute) if isinstance(file, SeenFile) else file
    return f"{tool} " + compact_json({"uri": uri, "symbolName": name, "lineHint": line, **extra})


def outside_roots(file: SeenFile) -> str:
    return (
        f"{file.path} is outside the allowed roots: add its folder to the roots (OCTO_ROOTS, "
        "--root, or the MCP client's roots) to read it."
    )


def definition_hints(
    query: SymbolQuery, file: SeenFile, line: int, last_line: int | None, content: str | None
) -> list[str]:
    """Next calls from a definition at ``line`` of ``file`` (its last line when known)."""
    if file.external:
        return [outside_roots(file)]
    name = short_name(query)
    end = last_line if last_line and last_line > line else line + BODY_LINES
    hints = [
        f"Read the definition: {read_call(file, line, end)}",
        f"Its uses: {symbol_call('lspFindReferences', file, name, line)}",
    ]
    if content is not None and is_callable_at(content, name):
        callers = symbol_call("lspCallHierarchy", file, name, line, direction="incoming")
        hints.append(f"Its callers: {callers}")
    return hints


def no_definition_hints(query: SymbolQuery, line: int, search_root: str) -> list[str]:
    name = short_name(query)
    search = {"pattern": rf"\b{re.escape(name)}\b", "path": search_root}
    return [
        "The server found no definition (a name built at run time, or a file it does not "
        f"see); find the name by text: localSearchCode {compact_json(search)}",
        f"Or its uses: {symbol_call('lspFindReferences', query.uri, name, line)}",
    ]


def reference_hints(
    query: FindReferencesQuery,
    pagination: Pagination,
    total: int,
    use: tuple[SeenFile, int] | None,
    resolved_line: int,
    resolved_text: str,
) -> list[str]:
    """Next calls from a page of references: the next (or last) page, the code around a
    use (``use``: a file and line on the page other than the queried one), the callers."""
    hints = page_hints("lspFindReferences", query.params(), "page", pagination, total)
    if use is not None:
        file, line = use
        hints.append(f"Read around a use: {read_call(file, line - AROUND_USE, line + AROUND_USE)}")
    name = short_name(query)
    if total and is_callable_at(resolved_text, name):
        callers = symbol_call(
            "lspCallHierarchy", query.uri, name, resolved_line, direction="incoming"
        )
        hints.append(f"Its callers: {callers}")
    return hints


def call_page_hints(query: CallHierarchyQuery, pagination: Pagination, total: int) -> list[str]:
    return page_hints("lspCallHierarchy", query.params(), "page", pagination, total)


def further_hint(
    query: CallHierarchyQuery, resolved_line: int, far_end: tuple[SeenFile, str, int] | None
) -> list[str]:
    """One level further up (incoming) or down (outgoing) from the deepest calls found:
    deeper when depth allows, else from ``far_end`` (a function at the last level)."""
    word = "callers" if query.direction == "incoming" else "callees"
    if far_end is None:
        return []
    if query.depth < 3:
        again = {**query.params(), "lineHint": resolved_line, "depth": query.depth + 1}
        return [f"Their {word} one level further: lspCallHierarchy {compact_json(again)}"]
    file, name, line = far_end
    further = symbol_call("lspCallHierarchy", file, name, line, direction=query.direction)
    return [f"Their {word} beyond depth 3, from {name}: {further}"]


def body_hint(what: str, file: SeenFile, first: int, last: int) -> str:
    return f"Read {what}: {read_call(file, first, last if last > first else first + BODY_LINES)}"


def no_calls_hint(query: CallHierarchyQuery, resolved_line: int) -> str:
    name = short_name(query)
    uses = symbol_call("lspFindReferences", query.uri, name, resolved_line)
    if query.direction == "incoming":
        return (
            f"Nothing in the workspace calls {name}; its other uses (passed as a value, "
            f"tests): {uses}"
        )
    outgoing = {**query.params(), "lineHint": resolved_line, "direction": "incoming"}
    return (
        f"{name} calls nothing the server knows of; who calls it: lspCallHierarchy "
        f"{compact_json(outgoing)}"
    )
