"""docs/architecture.md stays true to the code: it names every module of every layer."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = sorted(
    p for p in (REPO / "octo").iterdir() if p.is_dir() and (p / "__init__.py").exists()
)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_every_module_is_described(package: Path) -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert f"octo.{package.name}" in text or f"octo/{package.name}" in text
    missing = [
        module.stem
        for module in sorted(package.glob("*.py"))
        if module.stem != "__init__" and module.stem not in text
    ]
    assert not missing, f"docs/architecture.md does not mention {package.name}: {missing}"
