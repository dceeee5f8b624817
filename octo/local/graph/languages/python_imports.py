"""Python imports: the lines that can start an import are found first, and only those
statements are parsed (ast-grep), all of a file's in one parse. The block headers above an
indented import (read by their indentation) say whether it runs in a function (lazy) or
under ``if TYPE_CHECKING:``; a line of less indentation that is no header, an open
triple-quoted string before it, or a statement the parser cannot read whole means the
"import" is text in a string. On the standard library the edges equal grimp's.

Parsing every file whole costs about 4 times as much: most of a module is not imports.
"""

from __future__ import annotations

from ast_grep_py import SgNode
from ast_grep_py import SgRoot

from octo.local.graph.imports import DYNAMIC
from octo.local.graph.imports import LAZY
from octo.local.graph.imports import TYPE_ONLY
from octo.local.graph.imports import RawImport
from octo.local.graph.imports import shown_text

_STARTS = (b"import ", b"from ", b"import\t", b"from\t", b"import\\")
_CALLS = (b"import_module(", b"__import__(")
#: Block headers the indentation walk reads; any other line with less indentation means
#: the import is in a string or a split expression, and the file is parsed whole.
_HEADERS = (
    b"def ", b"async ", b"class ", b"if ", b"elif ", b"else", b"try", b"except", b"finally",
    b"with ", b"for ", b"while ", b"match ", b"case ", b"@",
)  # fmt: skip
_MAX_STATEMENT_LINES = 64


def python_imports(data: bytes) -> list[RawImport]:
    """The imports of a Python source file's bytes."""
    chunks: list[str] = []
    origins: list[int] = []
    contexts: list[int] = []
    line_number = 0
    counted_to = 0
    quoted_to: int = 0
    quoted: bytes | None = None
    done_to = 0
    at = data.find(b"import")
    while at >= 0:
        begin = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at)
        stop = len(data) if stop < 0 else stop
        at = data.find(b"import", stop)
        if begin < done_to:
            continue
        line = data[begin:stop]
        body = line.lstrip()
        if not (body.startswith(_STARTS) or any(call in line for call in _CALLS)):
            continue
        if body.startswith((b"from ", b"from\t")) and b"import" not in body:
            continue
        quoted_to, quoted = _quotes(data, quoted_to, begin, quoted)
        if quoted is not None:
            continue  # in a triple-quoted string (a docstring's example)
        flags = _context(data, begin, len(line) - len(body))
        if flags is None:
            continue  # in a string
        end = _statement_end(data, begin)
        done_to = end
        line_number += data.count(b"\n", counted_to, begin)
        counted_to = begin
        chunks.append(data[begin + len(line) - len(body) : end].decode("utf-8", "replace"))
        origins.append(line_number)
        contexts.append(flags)
        at = data.find(b"import", end)
    if not chunks:
        return []
    # One parse for all of a file's statements, each on lines of its own.
    starts: list[int] = []
    row = 0
    for chunk in chunks:
        starts.append(row)
        row += chunk.count("\n") + 1
    root = SgRoot("\n".join(chunks), "python").root()
    found: list[RawImport] = []
    # A chunk the parser could not read whole was no statement (text that looks like one).
    broken = {
        which
        for error in root.find_all(kind="ERROR")
        for which in range(
            _chunk_of(starts, error.range().start.line),
            _chunk_of(starts, error.range().end.line) + 1,
        )
    }
    for node, _ in _import_nodes(root):
        row = node.range().start.line
        which = _chunk_of(starts, row)
        if which in broken or (row != starts[which] and node.kind() != "call"):
            continue
        line_at = origins[which] + 1 + row - starts[which]
        found.extend(_imports_of(node, line_at, contexts[which]))
    return found


def _quotes(data: bytes, since: int, until: int, inside: bytes | None) -> tuple[int, bytes | None]:
    """Whether ``until`` is inside a triple-quoted string, read on from ``since`` (where
    ``inside`` said): an opening triple quote is closed only by the same kind."""
    at = since
    while True:
        if inside is None:
            found = [(i, q) for q in (b'"""', b"'''") if (i := data.find(q, at, until)) >= 0]
            if not found:
                return until, None
            at, inside = min(found)
        else:
            close = data.find(inside, at, until)
            if close < 0:
                return until, inside
            at, inside = close, None
        at += 3


def _import_nodes(root: SgNode) -> list[tuple[SgNode, int]]:
    nodes = root.find_all(
        any=[
            {"kind": "import_statement"},
            {"kind": "import_from_statement"},
            {"kind": "call", "regex": r"^(importlib\.)?(import_module|__import__)\s*\("},
        ]
    )
    return sorted(((n, n.range().start.index) for n in nodes), key=lambda pair: pair[1])


def _chunk_of(starts: list[int], row: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= row:
            low = middle
        else:
            high = middle - 1
    return low


def _statement_end(data: bytes, begin: int) -> int:
    """Where the statement starting at ``begin`` ends (open brackets and trailing
    backslashes continue it), its newline excluded."""
    depth = 0
    at = begin
    for _ in range(_MAX_STATEMENT_LINES):
        stop = data.find(b"\n", at)
        stop = len(data) if stop < 0 else stop
        line = data[at:stop]
        depth += line.count(b"(") - line.count(b")")
        if (depth <= 0 and not line.rstrip().endswith(b"\\")) or stop == len(data):
            return stop
        at = stop + 1
    return at - 1


def _context(data: bytes, begin: int, indent: int) -> int | None:
    """LAZY / TYPE_ONLY from the block headers above the line at ``begin``; None when a
    line of less indentation is no block header (the line is in a string)."""
    flags = 0
    level = indent
    stop = begin - 1
    while level > 0 and stop > 0:
        start = data.rfind(b"\n", 0, stop) + 1
        line = data[start:stop]
        stop = start - 1
        body = line.lstrip()
        depth = len(line) - len(body)
        if depth >= level or not body.strip() or body.startswith((b"#", b")", b"]")):
            continue  # a closing bracket ends a header split over lines: its start is above
        if not body.startswith(_HEADERS):
            return None
        if body.startswith((b"def ", b"async def ")):
            flags |= LAZY
        elif body.startswith(b"if ") and b"TYPE_CHECKING" in body:
            flags |= TYPE_ONLY
        level = depth
    return flags


def _imports_of(node: SgNode, line: int, flags: int) -> list[RawImport]:
    text = shown_text(node.text())
    kind = node.kind()
    if kind == "import_statement":
        return [
            RawImport(line, text, _dotted(child), flags=flags)
            for child in node.children()
            if child.kind() in ("dotted_name", "aliased_import")
        ]
    if kind == "import_from_statement":
        module = node.field("module_name")
        if module is None:
            return []
        level = 0
        spec = module.text()
        if module.kind() == "relative_import":
            prefix = module.child(0)
            level = len(prefix.text()) if prefix is not None else 0
            rest = module.find(kind="dotted_name")
            spec = rest.text() if rest is not None else ""
        names = tuple(
            "*" if child.kind() == "wildcard_import" else _dotted(child)
            for child in node.children()
            if child.kind() in ("dotted_name", "aliased_import", "wildcard_import")
            and child.range().start.index > module.range().end.index
        )
        return [RawImport(line, text, spec, names, level, flags)]
    arguments = node.field("arguments")
    first = arguments.child(1) if arguments is not None else None
    if first is None or first.kind() != "string":
        return []
    content = first.find(kind="string_content")
    literal = content.text() if content is not None else ""
    if not literal or literal.startswith("."):
        return []
    return [RawImport(line, text, literal, flags=flags | DYNAMIC)]


def _dotted(node: SgNode) -> str:
    if node.kind() == "aliased_import":
        name = node.field("name")
        return name.text() if name is not None else ""
    return "".join(node.text().split())
