"""docs/architecture.md stays true to the code: its tree names every module, exactly, as
``octo docs`` writes it."""

from __future__ import annotations

import re
from pathlib import Path

from octo.faces.module_tree import architecture_with_tree

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "architecture.md"


def _documented() -> set[str]:
    """The modules of the tree block under "## The tree", as paths from the repository."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"## The tree\n.*?```text\n(.*?)```", text, re.S)
    assert block is not None, "docs/architecture.md has no tree block under '## The tree'"
    modules: set[str] = set()
    for line in block.group(1).splitlines():
        folder, *names = line.split()
        assert folder.endswith("/") and all(name.endswith(".py") for name in names), line
        modules |= {folder + name for name in names}
    return modules


def _in_code() -> set[str]:
    return {
        path.relative_to(REPO).as_posix()
        for path in (REPO / "octo").rglob("*.py")
        if path.name != "__init__.py"
    }


def test_the_tree_names_every_module_exactly() -> None:
    documented, code = _documented(), _in_code()
    assert not code - documented, f"modules missing from docs/architecture.md: {code - documented}"
    assert not documented - code, f"docs/architecture.md names no such module: {documented - code}"


def test_the_tree_is_what_octo_docs_writes() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert architecture_with_tree(text, REPO / "octo") == text, (
        "docs/architecture.md's tree is stale: run `octo docs`"
    )


def test_every_package_has_an_init() -> None:
    folders = {path.parent for path in (REPO / "octo").rglob("*.py")}
    assert all((folder / "__init__.py").is_file() for folder in folders)
