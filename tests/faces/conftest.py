"""Fixtures of the face tests: a small source tree and a way to run the `octo` command."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A project with a known needle in two files and one file without it."""
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return 'needle one'\n")
    (root / "src" / "util.py").write_text("NEEDLE = 'needle two'\n\n\ndef helper():\n    pass\n")
    (root / "README.md").write_text("# project\n\nNothing to find here.\n")
    return root


RunOcto = Callable[..., "subprocess.CompletedProcess[str]"]


def octo_env(roots: Path | None = None) -> dict[str, str]:
    """The test process's environment without OCTO_* settings, plus OCTO_ROOTS when given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCTO_")}
    if roots is not None:
        env["OCTO_ROOTS"] = str(roots)
    return env


@pytest.fixture
def run_octo() -> RunOcto:
    """Run `python -m octo ARGS` as a real subprocess, without stdin."""

    def run(*args: str, roots: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "octo", *args],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            env=octo_env(roots),
            cwd=REPO,
            timeout=60,
            check=False,
        )

    return run
