"""What a newcomer meets first: a bad log level, `octo serve` typed on a terminal, and the
deployment guide's environment file read by systemd and by a shell."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from .conftest import REPO
from .conftest import RunOcto
from .conftest import octo_env


def test_an_unknown_log_level_is_one_line_and_exit_2(run_octo: RunOcto, tree: Path) -> None:
    query = '--query={"pattern":"n"}'
    done = run_octo("call", "localSearchCode", query, roots=tree, env={"OCTO_LOG_LEVEL": "LOUD"})
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "octo: OCTO_LOG_LEVEL='LOUD' is not a log level (DEBUG, INFO, WARNING, ERROR or CRITICAL)\n"
    )


@pytest.mark.slow
def test_serve_on_a_terminal_says_what_it_waits_for_and_how_to_stop(tree: Path) -> None:
    controller, terminal = pty.openpty()
    # As a context manager, so its pipes are closed too (an open one is a ResourceWarning).
    with subprocess.Popen(
        [sys.executable, "-m", "octo", "serve"],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=octo_env(tree),
        text=True,
    ) as process:
        os.close(terminal)
        try:
            assert process.stderr is not None
            line = process.stderr.readline()
            assert line == (
                "octo: MCP server on stdio, waiting for an MCP client's JSON-RPC (not typed "
                "commands); Ctrl+D or Ctrl+C stops it\n"
            )
            os.write(controller, b"\x04")  # Ctrl+D: the end of input, as the line says
            assert process.wait(timeout=30) == 0
            assert process.stderr.read() == ""
        finally:
            process.kill()
            process.wait()
            os.close(controller)


def _own_terminal() -> None:
    """In the child: a new session whose controlling terminal is its stdin (the pty), so the
    terminal's Ctrl+C reaches it as SIGINT, as in a shell."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.mark.slow
def test_ctrl_c_stops_serve_on_a_terminal(tree: Path) -> None:
    controller, terminal = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "octo", "serve"],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=octo_env(tree),
        text=True,
        preexec_fn=_own_terminal,
    ) as process:
        os.close(terminal)
        try:
            assert process.stderr is not None
            assert "Ctrl+C stops it" in process.stderr.readline()
            os.write(controller, b"\x03")  # Ctrl+C: the terminal sends SIGINT
            assert process.wait(timeout=30) == -signal.SIGINT
        finally:
            process.kill()
            process.wait()
            os.close(controller)


def _environment_file() -> str:
    text = (REPO / "docs" / "deployment.md").read_text(encoding="utf-8")
    section = text.split("### 2. The environment of every replica", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    assert block is not None
    return block.group(1)


def _as_systemd_reads(text: str) -> dict[str, str]:
    """systemd's EnvironmentFile= reading: comment lines start with # or ;, and a value is
    everything after the first ``=`` (a trailing ``# ...`` stays in it)."""
    values = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        key, _, value = stripped.partition("=")
        values[key] = value
    return values


def test_the_deployment_environment_file_reads_the_same_in_systemd_and_a_shell(
    tmp_path: Path,
) -> None:
    text = _environment_file()
    systemd = _as_systemd_reads(text)
    assert {"OCTO_REDIS_URL", "OCTO_ROOTS", "GITHUB_TOKEN", "OCTO_LOG_LEVEL"} <= set(systemd)
    for value in systemd.values():
        # What systemd would keep verbatim but a shell would split, strip or redirect.
        assert not re.search(r"[\s#'\"<>$`;&|]", value), value
    env_file = tmp_path / "env"
    env_file.write_text(text, encoding="utf-8")
    shell = subprocess.run(
        ["bash", "-c", 'set -a; . "$1"; set +a; env -0', "bash", str(env_file)],
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"]},
        timeout=30,
        check=True,
    )
    sourced = dict(item.split("=", 1) for item in shell.stdout.split("\0") if "=" in item)
    assert shell.stderr == ""
    for key, value in systemd.items():
        assert sourced[key] == value
