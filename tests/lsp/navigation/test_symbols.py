"""The symbol resolver and the workspace-root search: no server needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from octo.core.errors import NotFoundError
from octo.lsp.navigation.symbols import resolve_symbol
from octo.lsp.navigation.symbols import utf16_length
from octo.lsp.servers.table.commands import workspace_root


def test_hinted_line_and_order_hint() -> None:
    text = "x = add(add(1, 2), 3)\n"
    first = resolve_symbol(text, "add", 1, language="python")
    second = resolve_symbol(text, "add", 1, 1, language="python")
    assert (first.line, first.character) == (0, 4)
    assert (second.line, second.character) == (0, 8)


def test_nearby_lines_nearer_first_and_above_first() -> None:
    text = "\n".join(["foo()", "", "", "x", "", "", "foo()"])
    found = resolve_symbol(text, "foo", 4, language="python")
    assert (found.line, found.line_offset) == (0, -3)
    text = "\n".join(["", "foo()", "x", "foo()"])
    assert resolve_symbol(text, "foo", 3, language="python").line == 1


def test_whole_word_outside_comments_and_strings() -> None:
    text = 'food = 1;  // foo\ns = "foo";\n/* foo */\nfoo();\n'
    found = resolve_symbol(text, "foo", 1, language="c")
    assert (found.line, found.character) == (3, 0)


def test_interpolations_are_code() -> None:
    py = resolve_symbol('msg = f"total: {total(x)}"\n', "total", 1, language="python")
    ts = resolve_symbol("const s = `${add(1)} add`;\n", "add", 1, language="typescript")
    assert py.character == 16
    assert ts.character == 13


def test_utf16_columns_and_crlf() -> None:
    text = 'x = "\U0001f600"; add()\r\nadd()\r\n'
    found = resolve_symbol(text, "add", 1, language="typescript")
    assert found.character == 10
    assert utf16_length("\U0001f600") == 2
    assert resolve_symbol(text, "add", 2, language="typescript").line == 1


def test_unique_match_anywhere_in_the_file() -> None:
    text = "\n" * 30 + "def lonely(): pass\n"
    found = resolve_symbol(text, "lonely", 1, language="python")
    assert (found.line, found.line_offset) == (30, 30)


def test_not_found_names_the_closest_candidates() -> None:
    text = "\n".join(["f()"] + [""] * 20 + ["f()"] + [""] * 20 + ["f()"])
    with pytest.raises(NotFoundError) as caught:
        resolve_symbol(text, "f", 12, language="python")
    assert any("line 1:" in hint or "line 22:" in hint for hint in caught.value.hints)


def test_workspace_root_stops_at_the_allowed_root(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").touch()
    allowed = tmp_path / "inner"
    source = allowed / "pkg" / "mod.py"
    source.parent.mkdir(parents=True)
    source.touch()
    assert workspace_root(source, allowed, "python") == allowed
    (allowed / "pkg" / "setup.py").touch()
    assert workspace_root(source, allowed, "python") == allowed / "pkg"
