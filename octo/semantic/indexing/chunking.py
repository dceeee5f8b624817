"""Cut a file into chunks: one per function, method or class (the syntax trees of
:mod:`octo.core.files.grammars`), per key, element or rule of a long data or markup file, the
code between them and every other text file in windows of lines.

Each chunk carries its symbol (type, name, signature), its hierarchy (``Outer.inner``) and the
line range of its enclosing symbol, so a search hit can widen to the whole function or class.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from dataclasses import field
from functools import cache

from ast_grep_py import SgNode

from octo.core.files.grammars import CLASS_KINDS
from octo.core.files.grammars import SYMBOL_TABLES
from octo.core.files.grammars import SymbolTable
from octo.core.files.grammars import parse
from octo.core.files.grammars import symbol_kind
from octo.core.files.grammars import symbol_name
from octo.semantic.indexing.terms import body_words
from octo.semantic.indexing.terms import identifier_words

#: A symbol longer than this is split into windows; a window of plain lines has this many.
MAX_SYMBOL_LINES = 60
WINDOW_LINES = 40
#: Characters of a chunk's compact text that are embedded: its signature, docstring and the
#: words of its identifiers say what it does; the rest of the body mostly adds cost (a
#: transformer's time grows with length) and noise (a static model averages every token).
EMBED_CHARS = 600
#: Lines of a chunk's leading comment or docstring kept in its compact text.
DOC_LINES = 6
_DOC_START = ('"""', "'''", "#", "//", "/*", "*", "///", "--")
#: The grammar table's symbol kinds as the index's four symbol types (the symbolType filter);
#: a kind not here is no chunk of its own: a namespace's or a CSS @media block's members are
#: chunked as if at the top, a C# property stays in its class's text.
_SYMBOL_TYPES = {
    "function": "function",
    "method": "method",
    "constructor": "method",
    "class": "class",
    "struct": "class",
    "enum": "class",
    "module": "class",
    "type": "class",
    "interface": "interface",
}
#: Declarations of one line inside an interface or protocol: they stay in its text rather
#: than become chunks of a line each.
_SIGNATURES = frozenset(
    {"method_signature", "abstract_method_signature", "protocol_function_declaration"}
)
#: Languages of data and markup: their sections (a key, an element, a CSS rule) are chunks only
#: where the text around them is too long for one (a short file stays in windows of lines).
_SECTIONS = {"yaml": "key", "json": "key", "html": "element", "css": "class"}


@dataclass(frozen=True)
class Chunk:
    """One searchable piece of a file; lines are 1-based and inclusive."""

    start_line: int
    end_line: int
    content: str
    block_type: str
    hierarchy: str = ""
    symbol_type: str | None = None
    symbol_name: str | None = None
    signature: str | None = None
    scope_start: int = 0
    scope_end: int = 0

    def embed_text(self) -> str:
        """What the model reads, compact: the symbol's kind and place in words, its signature,
        its docstring or leading comment, then the words of the identifiers in its code."""
        place = identifier_words(self.hierarchy) or self.hierarchy.replace(".", " ")
        lines = [f"{self.symbol_type or self.block_type} {place}".strip()]
        if self.signature:
            lines.append(self.signature)
        lines.extend(_leading_doc(self.content.split("\n")[1 if self.signature else 0 :]))
        lines.append(body_words(self.content))
        return "\n".join(line for line in lines if line)[:EMBED_CHARS]

    def embed_hash(self) -> str:
        """Identity of the vector: equal texts share one, wherever they are (a moved
        function keeps its vector)."""
        return hashlib.sha256(self.embed_text().encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class _Symbol:
    node: SgNode
    #: The index's symbol type; None for a section of data or markup.
    kind: str | None
    name: str
    start: int
    end: int
    #: The symbol's own kind in the grammar table (a function in a class is its method).
    table_kind: str
    members: list[_Symbol] = field(default_factory=list)


def chunk_file(text: str, language: str | None) -> list[Chunk]:
    """The chunks of ``text`` (already redacted), symbol-aware when ``language`` has a grammar
    (blocking: parses)."""
    lines = text.splitlines()
    table = SYMBOL_TABLES.get(language or "")
    root = parse(text, table.language) if table is not None and lines else None
    if table is None or root is None:
        return _windows(lines, 1, len(lines), "lines", "")
    symbols = _symbol_tree(root, table)
    if table.language in _SECTIONS and len(lines) <= MAX_SYMBOL_LINES:
        symbols = []
    return _Chunker(lines, table.language).region(symbols, 1, len(lines), "", None)


def _symbol_tree(root: SgNode, table: SymbolTable) -> list[_Symbol]:
    """The symbols of a file, each with the symbols declared inside it, in the file's order.

    ast-grep finds every node of a symbol's kind in one pass (in its own code); they are nested
    here by their ranges, which needs no walk of the whole tree from Python.
    """
    nodes = root.find_all(any=[{"kind": kind} for kind in _declaration_kinds(table.language)])
    top: list[_Symbol] = []
    open_symbols: list[tuple[int, _Symbol]] = []
    for node in sorted(nodes, key=lambda n: (n.range().start.index, -n.range().end.index)):
        extent = node.range()
        while open_symbols and open_symbols[-1][0] < extent.end.index:
            open_symbols.pop()
        owner = open_symbols[-1][1] if open_symbols else None
        in_class = owner is not None and owner.table_kind in CLASS_KINDS
        kind = symbol_kind(node, table, in_class)
        name = symbol_name(node, table) if kind is not None else None
        if kind is None or name is None:
            continue
        index_type = _index_type(node, kind, table.language)
        if table.language not in _SECTIONS and index_type is None:
            continue
        symbol = _Symbol(node, index_type, name, extent.start.line + 1, extent.end.line + 1, kind)
        (owner.members if owner is not None else top).append(symbol)
        open_symbols.append((extent.end.index, symbol))
    return top


@cache
def _declaration_kinds(language: str) -> tuple[str, ...]:
    """The table's node kinds that ``language``'s grammar has (the table shares kinds between
    JavaScript and TypeScript; ast-grep refuses a rule naming a kind its grammar lacks)."""
    empty = parse("", language)
    kinds = []
    for kind in SYMBOL_TABLES[language].kinds:
        if kind in _SIGNATURES or empty is None:
            continue
        try:
            empty.find_all(kind=kind)
        except RuntimeError:
            continue
        kinds.append(kind)
    return tuple(kinds)


def _index_type(node: SgNode, kind: str, language: str) -> str | None:
    """The index's symbol type of a declaration of ``kind``."""
    if language in _SECTIONS:
        return None
    if kind == "type" and language in ("typescript", "tsx"):
        return "interface"  # a type alias says what a value looks like, as an interface does
    if kind == "type" and language == "go":
        shape = node.field("type")
        return "interface" if shape is not None and shape.kind() == "interface_type" else "class"
    return _SYMBOL_TYPES.get(kind)


def _windows(lines: list[str], start: int, end: int, block: str, hierarchy: str) -> list[Chunk]:
    """Lines ``start..end`` in windows of WINDOW_LINES; windows without a letter or digit (blank
    lines, a closing brace) are dropped."""
    chunks = []
    for first in range(start, end + 1, WINDOW_LINES):
        last = min(first + WINDOW_LINES - 1, end)
        content = "\n".join(lines[first - 1 : last])
        if any(char.isalnum() for char in content):
            chunks.append(
                Chunk(first, last, content, block, hierarchy, scope_start=first, scope_end=last)
            )
    return chunks


class _Chunker:
    def __init__(self, lines: list[str], language: str) -> None:
        self.lines = lines
        self.sections = language in _SECTIONS

    def region(
        self, symbols: list[_Symbol], start: int, end: int, hierarchy: str, owner: _Symbol | None
    ) -> list[Chunk]:
        """Chunks for lines ``start..end``: its ``symbols``, and the code between them
        (which, inside a symbol, is that symbol's own chunk: signature, docstring, fields)."""
        chunks: list[Chunk] = []
        cursor = start
        gap_block = "module" if owner is None else owner.node.kind()
        for symbol in symbols:
            if symbol.start > cursor:
                chunks.extend(self._gap(cursor, symbol.start - 1, gap_block, hierarchy, owner))
            chunks.extend(self._symbol_chunks(symbol, hierarchy))
            cursor = max(cursor, symbol.end + 1)
        if cursor <= end:
            chunks.extend(self._gap(cursor, end, gap_block, hierarchy, owner))
        return chunks

    def _gap(
        self, start: int, end: int, block: str, hierarchy: str, owner: _Symbol | None
    ) -> list[Chunk]:
        if owner is None:
            return _windows(self.lines, start, end, block, hierarchy)
        # Inside a symbol the code between its members belongs to the symbol itself.
        return [
            Chunk(
                c.start_line,
                c.end_line,
                c.content,
                block,
                hierarchy,
                owner.kind,
                owner.name,
                self._signature(owner),
                owner.start,
                owner.end,
            )
            for c in _windows(self.lines, start, end, block, hierarchy)
        ]

    def _symbol_chunks(self, symbol: _Symbol, hierarchy: str) -> list[Chunk]:
        path = f"{hierarchy}.{symbol.name}" if hierarchy else symbol.name
        size = symbol.end - symbol.start + 1
        # Code splits at every member (a class at its methods); a section only when too long.
        if symbol.members and (not self.sections or size > MAX_SYMBOL_LINES):
            return self.region(symbol.members, symbol.start, symbol.end, path, symbol)
        signature = self._signature(symbol)
        step = size if size <= MAX_SYMBOL_LINES else WINDOW_LINES
        chunks = []
        for first in range(symbol.start, symbol.end + 1, step):
            last = min(first + step - 1, symbol.end)
            content = "\n".join(self.lines[first - 1 : last])
            if not content.strip():
                continue
            chunks.append(
                Chunk(
                    first,
                    last,
                    content,
                    symbol.node.kind(),
                    path,
                    symbol.kind,
                    symbol.name,
                    signature,
                    symbol.start,
                    symbol.end,
                )
            )
        return chunks

    def _signature(self, symbol: _Symbol) -> str | None:
        """The declaration up to its body, on one line (at most 200 characters); none for a
        section of data or markup."""
        if symbol.kind is None:
            return None
        node = symbol.node
        text = node.text()
        body = node.field("body")
        if body is None:
            raw = text.split("\n", 1)[0]
        else:
            raw = text[: body.range().start.index - node.range().start.index]
        return " ".join(raw.split()).rstrip("{: ")[:200]


def _leading_doc(lines: list[str]) -> list[str]:
    """The docstring or comment lines at the top of ``lines`` (at most DOC_LINES)."""
    doc: list[str] = []
    quote: str | None = None
    for raw in lines:
        line = raw.strip()
        if quote is None and not line.startswith(_DOC_START):
            if doc or line:
                break
            continue
        if quote is None and line[:3] in ('"""', "'''"):
            quote = line[:3]
            line = line[3:]
            if quote in line:
                quote = None
        elif quote is not None and quote in line:
            quote = None
        cleaned = line.strip("\"'#/*- ")
        if cleaned:
            doc.append(cleaned)
        if len(doc) == DOC_LINES or (quote is None and raw.strip().endswith(('"""', "'''"))):
            break
    return doc
