"""Cut a file into chunks: one per function, method or class (tree-sitter), the code between
them and every other text file in windows of lines.

Each chunk carries its symbol (type, name, signature), its hierarchy (``Outer.inner``) and the
line range of its enclosing symbol, so a search hit can widen to the whole function or class.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from octo.semantic.indexing.languages import GRAMMARS
from octo.semantic.indexing.languages import parser_for
from octo.semantic.indexing.terms import body_words
from octo.semantic.indexing.terms import identifier_words

if TYPE_CHECKING:
    from tree_sitter import Node

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
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})
_CLASS_LIKE = frozenset({"class", "interface"})


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
    node: Node
    kind: str
    name: str
    start: int
    end: int


def chunk_file(text: str, language: str | None) -> list[Chunk]:
    """The chunks of ``text`` (already redacted), symbol-aware when ``language`` has a grammar."""
    lines = text.splitlines()
    parser = parser_for(language) if language else None
    if parser is None or not lines:
        return _windows(lines, 1, len(lines), "lines", "")
    tree = parser.parse(text.encode("utf-8"))
    return _Chunker(lines, language or "").region(tree.root_node, 1, len(lines), "", None)


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
        self.grammar = GRAMMARS[language]

    def symbols_in(self, node: Node) -> list[_Symbol]:
        """The symbols directly inside ``node``, looking through containers (exports, impls)."""
        found: list[_Symbol] = []
        for child in node.named_children:
            kind = self.grammar.symbols.get(child.type)
            if kind is not None and (symbol := self._symbol(child, kind)) is not None:
                found.append(symbol)
            elif child.type in self.grammar.containers:
                found.extend(self.symbols_in(child))
        return found

    def members(self, node: Node) -> list[_Symbol]:
        """The symbols declared in a symbol's body (a class's methods)."""
        return self.symbols_in(node.child_by_field_name("body") or node)

    def _symbol(self, node: Node, kind: str) -> _Symbol | None:
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is None or value.type not in _FUNCTION_VALUES:
                return None
        if node.type == "type_spec":
            shape = node.child_by_field_name("type")
            kind = "interface" if shape is not None and shape.type == "interface_type" else kind
        name_node = node.child_by_field_name("name")
        if node.type == "impl_item":
            name_node = node.child_by_field_name("type")
        name = _text(name_node) if name_node is not None else ""
        return _Symbol(node, kind, name, node.start_point.row + 1, node.end_point.row + 1)

    def region(
        self, node: Node, start: int, end: int, hierarchy: str, owner: _Symbol | None
    ) -> list[Chunk]:
        """Chunks for lines ``start..end`` of ``node``: its symbols, and the code between them
        (which, inside a symbol, is that symbol's own chunk: signature, docstring, fields)."""
        chunks: list[Chunk] = []
        cursor = start
        gap_block = "module" if owner is None else owner.node.type
        symbols = self.symbols_in(node) if owner is None else self.members(node)
        for symbol in symbols:
            if symbol.start > cursor:
                chunks.extend(self._gap(cursor, symbol.start - 1, gap_block, hierarchy, owner))
            chunks.extend(self._symbol_chunks(symbol, hierarchy, owner))
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

    def _symbol_chunks(self, symbol: _Symbol, hierarchy: str, owner: _Symbol | None) -> list[Chunk]:
        kind = symbol.kind
        if kind == "function" and owner is not None and owner.kind in _CLASS_LIKE:
            kind = "method"
        symbol = _Symbol(symbol.node, kind, symbol.name, symbol.start, symbol.end)
        path = f"{hierarchy}.{symbol.name}" if hierarchy else symbol.name
        if self.members(symbol.node):
            return self.region(symbol.node, symbol.start, symbol.end, path, symbol)
        signature = self._signature(symbol)
        size = symbol.end - symbol.start + 1
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
                    symbol.node.type,
                    path,
                    kind,
                    symbol.name,
                    signature,
                    symbol.start,
                    symbol.end,
                )
            )
        return chunks

    def _signature(self, symbol: _Symbol) -> str:
        """The declaration up to its body, on one line (at most 200 characters)."""
        node = symbol.node
        body = node.child_by_field_name("body")
        start = node.start_byte
        end = body.start_byte if body is not None else node.end_byte
        raw = (node.text or b"")[: end - start].decode("utf-8", errors="replace")
        if body is None:
            raw = raw.split("\n", 1)[0]
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


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")
