"""The ast-grep CLI (the ``ast-grep-cli`` wheel) as a child process, like rg: it parses the
files on all cores, its matches are read as they stream, and leaving the block kills its
whole process group, so a query stopped at its deadline leaves no parse burning CPU.

It is handed only files octo listed below a directory it opened (its working directory is
that descriptor, ``/proc/self/fd/N``), with octo's own empty configuration (a project's
``sgconfig.yml`` loads no rule and no native language library) and the environment every
child gets. What it reports are places, byte ranges: the text shown is read again by octo,
the confined way (:mod:`octo.local.structure.search`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import anyio

from octo.core.errors import InvalidQueryError
from octo.transports.capped_lines import capped_lines
from octo.transports.processes import child_command
from octo.transports.processes import child_environment
from octo.transports.processes import track
from octo.transports.ripgrep import argument_runs

#: A match's line of JSON longer than this is not read (it holds the match's text and its
#: lines: a whole file of at most 2 MB, escaped, is well below).
_LONGEST_LINE = 32 << 20
#: Separators a ``$$$`` capture's first or last node may be: left out of its span.
_SEPARATORS = frozenset({",", ";"})
#: How much of ast-grep's complaint an error quotes.
_STDERR_KEEP = 16 * 1024

#: The file names the CLI reads as each language (a file named otherwise is parsed in-process).
CLI_SUFFIXES: dict[str, frozenset[str]] = {
    "python": frozenset({".py", ".pyi"}),
    "javascript": frozenset({".js", ".mjs", ".cjs", ".jsx"}),
    "typescript": frozenset({".ts", ".mts", ".cts"}),
    "tsx": frozenset({".tsx"}),
    "go": frozenset({".go"}),
    "rust": frozenset({".rs"}),
    "java": frozenset({".java"}),
    "c": frozenset({".c", ".h"}),
    "cpp": frozenset({".cc", ".cpp", ".cxx", ".hpp", ".hh"}),
    "csharp": frozenset({".cs"}),
    "kotlin": frozenset({".kt", ".kts"}),
    "ruby": frozenset({".rb"}),
    "php": frozenset({".php"}),
    "swift": frozenset({".swift"}),
    "lua": frozenset({".lua"}),
    "bash": frozenset({".sh", ".bash"}),
    "scala": frozenset({".scala"}),
    "elixir": frozenset({".ex", ".exs"}),
    "haskell": frozenset({".hs"}),
    "html": frozenset({".html", ".htm"}),
    "css": frozenset({".css"}),
    "json": frozenset({".json"}),
    "yaml": frozenset({".yaml", ".yml"}),
}


@cache
def sg_binary() -> str | None:
    """The ast-grep CLI beside this Python (the wheel's), else on PATH; None without one."""
    beside = Path(sys.executable).with_name("ast-grep")
    if beside.is_file():
        return str(beside)
    return shutil.which("ast-grep")


@dataclass(frozen=True)
class Found:
    """One match as the CLI reported it: the file (as given), byte ranges, and the start of
    its text (to check against octo's own read of the file)."""

    file: str
    start: int
    end: int
    head: str
    #: meta-variable -> (start, end) in bytes; a ``$$$`` one from its first to its last node.
    captures: dict[str, tuple[int, int]]


def _span(item: dict[str, Any]) -> tuple[int, int]:
    offsets = item["range"]["byteOffset"]
    return int(offsets["start"]), int(offsets["end"])


def _found(line: bytes, head: int) -> Found:
    event = json.loads(line)
    start, end = _span(event)
    captures: dict[str, tuple[int, int]] = {}
    variables = event.get("metaVariables") or {}
    for name, one in (variables.get("single") or {}).items():
        captures[name] = _span(one)
    for name, many in (variables.get("multi") or {}).items():
        nodes = [node for node in many if node["text"] not in _SEPARATORS]
        if nodes:
            captures[name] = (_span(nodes[0])[0], _span(nodes[-1])[1])
    return Found(str(event["file"]), start, end, str(event["text"])[:head], captures)


async def cli_matches(
    rule: str, files: Sequence[str], *, cwd: str, pass_fds: Sequence[int], threads: int, head: int
) -> AsyncIterator[Found]:
    """The matches of ``rule`` (an ast-grep rule document, JSON) in ``files`` (relative to
    ``cwd``), as the CLI finds them, in no particular order. ``head``: characters of each
    match's text kept. Leaving the iteration kills the CLI."""
    binary = sg_binary()
    if binary is None or not files:
        return  # callers hand the files to the in-process matcher without the CLI
    for run in argument_runs(files):
        argv = [
            binary,
            "scan",
            "--config",
            os.devnull,
            "--include-metadata",
            "--json=stream",
            "--threads",
            str(threads),
            "--inline-rules",
            rule,
            "--",
            *run,
        ]
        async for found in _one_run(argv, cwd=cwd, pass_fds=pass_fds, head=head):
            yield found


async def _one_run(
    argv: Sequence[str], *, cwd: str, pass_fds: Sequence[int], head: int
) -> AsyncIterator[Found]:
    with tempfile.TemporaryFile() as stderr:
        # Shielded: asyncio (3.11), cancelled while it connects a child's pipes, leaves the
        # rest open. A cancellation comes at the next await; the finally stops the child.
        with anyio.CancelScope(shield=True):
            process = await anyio.open_process(
                child_command(argv),
                cwd=cwd,
                env=child_environment(os.environ),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                start_new_session=True,
                pass_fds=pass_fds,
            )
        track("ast-grep", process)
        try:
            assert process.stdout is not None
            async for line in capped_lines(process.stdout, _LONGEST_LINE):
                if isinstance(line, bytes) and line.strip():
                    yield _found(line, head)
            code = await process.wait()
            if code != 0:
                stderr.seek(0)
                said = stderr.read(_STDERR_KEEP).decode("utf-8", "replace").strip()
                raise InvalidQueryError(
                    f"ast-grep failed: {said.splitlines()[0] if said else f'exit code {code}'}",
                    hints=["Check the pattern or rule with a single file as path."],
                )
        finally:
            if process.returncode is None:
                _kill(process.pid)
            with anyio.CancelScope(shield=True):
                await process.aclose()


def _kill(pid: int) -> None:
    """Kill the CLI's whole process group (its parsing threads go with it)."""
    try:
        if sys.platform == "win32":
            os.kill(pid, signal.SIGTERM)
        else:
            os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
