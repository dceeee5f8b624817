"""Fixtures of the face tests: a small source tree and a way to run the `octo` command."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
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


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_port(process: subprocess.Popen[bytes], port: int) -> None:
    """Return once ``process`` accepts connections on ``port``; fail if it exits first."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            assert process.stderr is not None
            pytest.fail(f"octo serve --http exited: {process.stderr.read().decode()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    pytest.fail("octo serve --http did not open its port within 30 s")


@contextmanager
def served_http(env: Mapping[str, str], *args: str, cwd: Path | None = None) -> Iterator[str]:
    """`octo serve --http` on a free port of 127.0.0.1 with ``args`` added; yields its MCP
    URL once the port accepts, and stops the server on leaving."""
    port = free_port()
    command = [sys.executable, "-m", "octo", "serve", "--http", "--host", "127.0.0.1"]
    process = subprocess.Popen(
        [*command, "--port", str(port), *args],
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(process, port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
