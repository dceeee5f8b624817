"""docs/tools.md is generated from the registry and must not go stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from octo.faces.tool_docs import render_tools_markdown
from octo.registry import all_tools

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


def test_docs_tools_md_is_up_to_date() -> None:
    assert DOCS.read_text(encoding="utf-8") == render_tools_markdown(), (
        "docs/tools.md is stale: run `octo docs`"
    )


def test_every_tool_has_a_section_with_parameters_and_example() -> None:
    text = render_tools_markdown()
    for spec in all_tools():
        section = text.split(f"\n## {spec.name}\n", 1)[1].split("\n## ", 1)[0]
        assert "| name | type | required | default | description |" in section
        assert f"up to {spec.max_queries} queries per call" in section
        assert "Request:" in section and "Response shape" in section


def test_docs_check_command(run_octo: Any, tmp_path: Path) -> None:
    target = tmp_path / "tools.md"
    assert run_octo("docs", "--check", "--output", str(target)).returncode == 1
    assert run_octo("docs", "--output", str(target)).returncode == 0
    assert run_octo("docs", "--check", "--output", str(target)).returncode == 0
    assert target.read_text(encoding="utf-8") == render_tools_markdown()


def test_the_deliberate_differences_from_the_spec_are_said_in_one_place() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert text.count("## Where octo differs from the specification") == 1
    section = text.split("## Where octo differs from the specification\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    for difference in (
        "**The error object.**",
        "**The `empty` status.**",
        "**1-based LSP lines.**",
    ):
        assert difference in section
