"""Fixtures of the face tests: a small source tree and a way to run the `octo` command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
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
    """Run `python -m octo ARGS` as a real subprocess, without stdin (``env``: variables
    added to the test's environment without OCTO_* settings)."""

    def run(
        *args: str, roots: Path | None = None, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "octo", *args],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            env={**octo_env(roots), **(env or {})},
            cwd=REPO,
            timeout=60,
            check=False,
        )

    return run


@contextmanager
def served_http(env: Mapping[str, str], *args: str, cwd: Path | None = None) -> Iterator[str]:
    """`octo serve --http` on any free port of 127.0.0.1 with ``args`` added; yields the MCP
    URL it says it serves at, and stops the server on leaving."""
    command = [sys.executable, "-m", "octo", "serve", "--http", "--port", "0", *args]
    process = subprocess.Popen(
        command,
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        said = process.stderr.readline()
        match = re.fullmatch(
            r"octo: MCP server \(streamable HTTP\) at (http://127\.0\.0\.1:\d+/mcp)"
            r"(?: and HTTP\+SSE at \S+)?; Ctrl\+C stops it\. Host names allowed: "
            r"127\.0\.0\.1, localhost, \[::1\](?:, \S+)* \(--allow-host NAME adds one\)\n",
            said,
        )
        assert match, f"octo serve --http said {said!r}, then {process.stderr.read()!r}"
        yield match.group(1)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()
