"""Commands that read a setting (``npm config get``, ``gh auth token``): what they print is
the answer, and one cancelled at any moment leaves no pipe and no process behind."""

from __future__ import annotations

import gc
import os
import sys
import uuid
from pathlib import Path

import anyio

from octo.transports.processes import command_output
from tests.lsp.conftest import open_pipes


def _running_with(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command_line = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in command_line:
            found.append(int(pid))
    return found


async def test_the_answer_is_what_the_command_prints() -> None:
    env = dict(os.environ)
    assert await command_output(["sh", "-c", "echo '  value  '"], env) == "value"
    assert await command_output(["sh", "-c", "echo value; exit 3"], env) is None
    assert await command_output(["sh", "-c", "true"], env) is None
    assert await command_output(["/nonexistent/command"], env) is None
    endless = [sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('x' * 65536)"]
    assert await command_output(endless, env) is None


async def test_the_command_sees_no_credential() -> None:
    env = {**os.environ, "GITHUB_TOKEN": "ghp_" + "a" * 36, "SETTING": "plain"}
    printed = await command_output(["sh", "-c", 'echo "$SETTING:${GITHUB_TOKEN:-none}"'], env)
    assert printed == "plain:none"


async def test_a_command_cancelled_at_any_moment_leaves_no_pipe_and_no_process() -> None:
    # From before the start to the wait for its end: the command is killed, its pipe closed.
    marker = f"octo-test-{uuid.uuid4().hex}"
    pipes = open_pipes()
    for step in range(60):
        with anyio.move_on_after(step / 5000):
            await command_output(["sh", "-c", "echo value; exec sleep 30", marker], os.environ)
    gc.collect()  # a leaked pipe's transport warns as it is collected: an error in tests
    # The last commands' pipes close once the loop reads their EOF, which a loaded machine
    # may not have done yet, and a killed child may take a moment to be reaped: wait for
    # both (a pipe or process that is leaked stays past any wait).
    for _ in range(1200):
        if open_pipes() == pipes and not _running_with(marker):
            break
        await anyio.sleep(0.05)
    assert open_pipes() == pipes
    assert _running_with(marker) == []
