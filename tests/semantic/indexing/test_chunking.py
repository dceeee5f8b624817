"""Symbol-aware chunks for every language of the grammar table: each language's small fixture
(the outline fixtures of tests/lsp/fixtures/outlines) cut into its functions, classes and
methods; long data and markup files cut at their keys, elements and rules; every other text in
windows of lines."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from octo.core.files.grammars import SYMBOL_TABLES
from octo.core.files.grammars import parse
from octo.semantic.indexing.chunking import WINDOW_LINES
from octo.semantic.indexing.chunking import Chunk
from octo.semantic.indexing.chunking import chunk_file
from octo.semantic.indexing.languages import language_of
from tests.lsp.conftest import FIXTURES

OUTLINES = FIXTURES / "outlines"

#: Fixture -> its symbol chunks as (first line, hierarchy, symbol type).
CODE: dict[str, list[tuple[int, str, str]]] = {
    "shapes.py": [(1, "Shape", "class"), (2, "Shape.area", "method"), (6, "main", "function")],
    "shapes.js": [(1, "Shape", "class"), (2, "Shape.area", "method"), (4, "main", "function")],
    "shapes.ts": [
        (1, "Shape", "class"),
        (2, "Shape.area", "method"),
        (4, "Named", "interface"),
        (5, "main", "function"),
    ],
    "app.tsx": [(1, "App", "function"), (4, "Store", "class"), (5, "Store.load", "method")],
    "shapes.go": [(3, "Shape", "class"), (5, "Area", "method"), (7, "Main", "function")],
    "shapes.rs": [
        (1, "Shape", "class"),
        (3, "Shape", "class"),
        (4, "Shape.area", "method"),
        (7, "Named", "interface"),
        (9, "main", "function"),
    ],
    "Shape.java": [
        (1, "Shape", "class"),
        (2, "Shape.Shape", "method"),
        (3, "Shape.area", "method"),
        (5, "Named", "interface"),
    ],
    "Shape.kt": [
        (3, "Shape", "class"),
        (4, "Shape.area", "method"),
        (7, "Registry", "class"),
        (9, "main", "function"),
    ],
    "shapes.c": [(1, "shape", "class"), (3, "area", "function"), (7, "main", "function")],
    # The namespace is no chunk of its own: its class is chunked as if at the top.
    "shapes.cpp": [(2, "Shape", "class"), (4, "Shape.area", "method"), (8, "main", "function")],
    "Shape.cs": [
        (2, "Shape", "class"),
        (3, "Shape.Shape", "method"),
        (4, "Shape.Area", "method"),
        (6, "INamed", "interface"),
    ],
    "shapes.rb": [
        (1, "Geo", "class"),
        (2, "Geo.Shape", "class"),
        (3, "Geo.Shape.area", "method"),
        (6, "Geo.Shape", "class"),
        (7, "Geo", "class"),
        (9, "main", "function"),
    ],
    "shapes.php": [(4, "Shape", "class"), (5, "Shape.area", "method"), (8, "main", "function")],
    # A protocol's one-line requirements stay in its text.
    "shapes.swift": [
        (1, "Named", "interface"),
        (5, "Shape", "class"),
        (6, "Shape.init", "method"),
        (9, "main", "function"),
    ],
    "Shapes.scala": [
        (3, "Shape", "class"),
        (4, "Shape.area", "method"),
        (7, "Main", "class"),
        (8, "Main.main", "method"),
    ],
    "shapes.lua": [(1, "area", "function"), (5, "main", "function")],
    "build.sh": [(2, "setup", "function"), (6, "main", "function")],
    "shape.ex": [
        (1, "Geo.Shape", "class"),
        (2, "Geo.Shape.area", "function"),
        (4, "Geo.Shape.helper", "function"),
        (7, "Geo.Shape", "class"),
    ],
    "Shapes.hs": [(3, "Shape", "class"), (6, "area", "function")],
}

#: Long data and markup files (built here: a section is a chunk only where the text is too
#: long for one) -> their first chunks as (first line, hierarchy): a long section's own lines
#: (``jobs:``), then its sections.
_JOBS = "".join(f"  job{i}:\n    runs-on: linux\n" for i in range(35))
_SCRIPTS = ",\n".join(f'    "task{i}": "make {i}"' for i in range(70))
_PARAGRAPHS = "".join(f"      <p>line {i}</p>\n" for i in range(70))
_RULES = "".join(f".c{i} {{ color: red; }}\n" for i in range(70))
MARKUP: dict[str, tuple[str, list[tuple[int, str]]]] = {
    "ci.yaml": (
        f"name: ci\njobs:\n{_JOBS}",
        [(1, "name"), (2, "jobs"), (3, "jobs.job0"), (5, "jobs.job1")],
    ),
    "package.json": (
        f'{{\n  "name": "app",\n  "scripts": {{\n{_SCRIPTS}\n  }}\n}}\n',
        [(2, "name"), (3, "scripts"), (4, "scripts.task0"), (5, "scripts.task1")],
    ),
    "index.html": (
        f'<html>\n  <body>\n    <div id="main">\n{_PARAGRAPHS}    </div>\n  </body>\n</html>\n',
        [(1, "html"), (2, "html.body"), (3, "html.body.div#main"), (4, "html.body.div#main.p")],
    ),
    "site.css": (_RULES, [(1, ".c0"), (2, ".c1")]),
}


def _symbols(chunks: list[Chunk]) -> list[tuple[int, str, str]]:
    return [(c.start_line, c.hierarchy, c.symbol_type) for c in chunks if c.symbol_type]


@pytest.mark.parametrize("name", sorted(CODE))
def test_each_language_is_chunked_at_its_declarations(name: str) -> None:
    chunks = chunk_file((OUTLINES / name).read_text(encoding="utf-8"), language_of(name))
    assert _symbols(chunks) == CODE[name]


@pytest.mark.parametrize("name", sorted(MARKUP))
def test_a_long_data_or_markup_file_is_chunked_at_its_sections(name: str) -> None:
    text, expected = MARKUP[name]
    chunks = chunk_file(text, language_of(name))
    assert [(c.start_line, c.hierarchy) for c in chunks[: len(expected)]] == expected
    # Sections are no symbols: the symbolType filter (function, class...) never finds them.
    assert all(c.symbol_type is None and c.signature is None for c in chunks)


@pytest.mark.parametrize("name", sorted(MARKUP))
def test_a_short_data_or_markup_file_stays_in_windows_of_lines(name: str) -> None:
    text = (OUTLINES / name).read_text(encoding="utf-8")
    chunks = chunk_file(text, language_of(name))
    assert [(c.start_line, c.block_type, c.symbol_name) for c in chunks] == [(1, "module", None)]


def test_every_language_of_the_grammar_table_has_a_chunking_fixture() -> None:
    tested = {language_of(name) for name in [*CODE, *MARKUP]}
    assert tested == set(SYMBOL_TABLES)
    assert len(tested) >= 23


def test_a_symbol_carries_its_signature_and_scope() -> None:
    text = (OUTLINES / "shapes.py").read_text(encoding="utf-8")
    area = next(c for c in chunk_file(text, "python") if c.symbol_name == "area")
    assert area.signature is not None and area.signature.startswith("def area(self)")
    assert (area.block_type, area.scope_start, area.scope_end) == ("function_definition", 2, 3)


def test_a_language_without_a_grammar_is_cut_into_windows_of_lines() -> None:
    text = "".join(f"line {i}\n" for i in range(WINDOW_LINES + 5))
    for language in ("markdown", "hcl", "ocaml", None):
        chunks = chunk_file(text, language)
        assert [(c.start_line, c.end_line, c.block_type) for c in chunks] == [
            (1, WINDOW_LINES, "lines"),
            (WINDOW_LINES + 1, WINDOW_LINES + 5, "lines"),
        ]


def test_a_name_ast_grep_lacks_is_refused_before_it_panics() -> None:
    # ast-grep-py panics (a BaseException) on a language it does not bundle.
    assert parse("let x = 1", "ocaml") is None
    assert parse("x = 1", "python") is not None


def test_a_chunk_has_the_same_embed_hash_in_every_process() -> None:
    # A hierarchy of several compound names: their words once came out in a set's order,
    # which changes with the hash seed of each process, and the vector was computed anew.
    code = (
        "from octo.semantic.indexing.chunking import Chunk\n"
        "print(Chunk(1, 1, 'x', 'method_definition', 'ReadableDocument.offsetAt.lineCount',"
        " 'method', 'lineCount').embed_hash())"
    )
    hashes = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(6)
    }
    assert len(hashes) == 1, hashes
