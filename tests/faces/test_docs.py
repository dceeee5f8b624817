"""docs/tools.md is generated from the registry and must not go stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from octo.contract.query_mending import validate_query
from octo.core.errors import ErrorCode
from octo.faces.mcp import tools_snapshot
from octo.faces.mcp.server import render_snapshot
from octo.faces.tool_docs import readme_with_languages
from octo.faces.tool_docs import render_tools_markdown
from octo.registry import all_tools

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


def test_docs_tools_md_is_up_to_date() -> None:
    assert DOCS.read_text(encoding="utf-8") == render_tools_markdown(), (
        "docs/tools.md is stale: run `octo docs`"
    )


@pytest.mark.slow
def test_every_tool_has_a_section_with_parameters_and_example() -> None:
    text = render_tools_markdown()
    for spec in all_tools():
        section = text.split(f"\n## {spec.name}\n", 1)[1].split("\n## ", 1)[0]
        parameters = "| name | type | required | default | description |" in section
        assert parameters or "None: the query is `{}`." in section
        per_call = "one query" if spec.max_queries == 1 else f"up to {spec.max_queries} queries"
        assert f"{per_call} per call" in section
        assert "Request:" in section and "Response shape" in section


@pytest.mark.slow
def test_docs_check_command(run_octo: Any, tmp_path: Path) -> None:
    target = tmp_path / "tools.md"
    assert run_octo("docs", "--check", "--output", str(target)).returncode == 1
    assert run_octo("docs", "--output", str(target)).returncode == 0
    assert run_octo("docs", "--check", "--output", str(target)).returncode == 0
    assert target.read_text(encoding="utf-8") == render_tools_markdown()


SECTIONS = [
    "### Use cases",
    "### Parameters",
    "### Returns",
    "### Example",
    "Response:",
    "### Common errors",
    "### Related tools",
]


@pytest.mark.slow
def test_every_tool_has_its_reference_in_spec_000_order() -> None:
    text = render_tools_markdown()
    for spec in all_tools():
        section = text.split(f"\n## {spec.name}\n", 1)[1].split("\n## ", 1)[0]
        positions = [section.find(heading) for heading in SECTIONS]
        assert all(p > 0 for p in positions), f"{spec.name} lacks a section: {positions}"
        assert positions == sorted(positions), f"{spec.name}: sections out of order"


def test_every_reference_is_sound() -> None:
    names = {spec.name for spec in all_tools()}
    for spec in all_tools():
        docs = spec.docs
        assert docs.use_cases and docs.related and docs.errors, spec.name
        assert set(docs.related) <= names - {spec.name}, f"{spec.name}: unknown related tools"
        assert set(docs.errors) <= {code.value for code in ErrorCode}, spec.name
        validate_query(spec, spec.example)
        response = docs.response
        assert response["status"] in ("success", "empty"), spec.name
        data = spec.result_model.model_validate(response["data"])
        assert data.is_empty() is (response["status"] == "empty"), spec.name


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


@pytest.mark.slow
def test_the_published_tools_list_snapshot_is_up_to_date() -> None:
    assert tools_snapshot.SNAPSHOT.read_text(encoding="utf-8") == render_snapshot(), (
        "octo/faces/tools_list.json is stale: run `octo docs`"
    )


def test_the_readme_table_of_languages_is_the_built_in_table() -> None:
    readme = (DOCS.parents[1] / "README.md").read_text(encoding="utf-8")
    assert readme_with_languages(readme) == readme, (
        "README.md's table of languages is stale: run `octo docs`"
    )


def test_octo_docs_knows_this_checkout() -> None:
    from octo.faces.cli.commands import checkout_root

    assert checkout_root() == DOCS.parents[1]
