"""The shapes servers answer in, as octo reads them: DocumentSymbol trees and flat
SymbolInformation lists, workspace-symbol ranking, and hover contents of every kind."""

from __future__ import annotations

from typing import Any

from octo.lsp.navigation.hover import cut_markdown
from octo.lsp.navigation.hover import hover_text
from octo.lsp.outline.document_symbols import cut_depth
from octo.lsp.outline.document_symbols import outline_of
from octo.lsp.outline.workspace_symbols import match_of


def _range(first: int, last: int) -> dict[str, Any]:
    return {"start": {"line": first, "character": 0}, "end": {"line": last, "character": 1}}


def test_nested_and_flat_symbols() -> None:
    nested = [
        {
            "name": "Box",
            "kind": 5,
            "range": _range(3, 9),
            "selectionRange": _range(3, 3),
            "children": [{"name": "size", "kind": 6, "range": _range(4, 5), "detail": "() -> int"}],
        },
        {"name": "load", "kind": 12, "range": _range(0, 1)},
    ]
    outline = outline_of(nested)
    assert [(s.name, s.kind, s.startLine, s.endLine) for s in outline] == [
        ("load", "function", 1, 2),
        ("Box", "class", 4, 10),
    ]
    assert (outline[1].children[0].name, outline[1].children[0].detail) == ("size", "() -> int")
    flat = [
        {
            "name": "x",
            "kind": 13,
            "location": {"uri": "file:///a.py", "range": _range(2, 2)},
            "containerName": "Box",
        }
    ]
    (symbol,) = outline_of(flat)
    assert (symbol.kind, symbol.detail, symbol.startLine) == ("variable", "Box", 3)
    cut = cut_depth(outline, 1)
    assert (cut[1].children, cut[1].hiddenChildren) == ([], 1)
    assert outline_of(None) == [] and outline_of([1, "x"]) == []


def test_workspace_symbols_rank_exact_then_prefix_then_fuzzy() -> None:
    assert [match_of(name, "shape") for name in ("Shape", "ShapeKind", "AnyShape")] == [
        "exact",
        "prefix",
        "fuzzy",
    ]


def test_hover_contents_of_every_kind() -> None:
    assert hover_text({"kind": "markdown", "value": "**x**"}) == "**x**"
    assert hover_text({"language": "python", "value": "def f()"}) == "```python\ndef f()\n```"
    assert (
        hover_text(["plain", {"language": "ts", "value": "let a"}]) == "plain\n\n```ts\nlet a\n```"
    )
    assert hover_text(None) == ""


def test_markdown_is_cut_at_a_line_end_with_its_fence_closed() -> None:
    text = "```python\n" + "\n".join(f"line {n}" for n in range(100)) + "\n```"
    cut, truncated = cut_markdown(text, 200)
    assert truncated
    assert cut.endswith("\n```\n...")
    assert len(cut) <= 200 + len("\n```\n...")
    assert cut_markdown("short", 200) == ("short", False)
