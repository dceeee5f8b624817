"""Child processes octo starts (ripgrep, language servers, configuration commands): the
command that makes them die with octo, and the environment they may see.

Every child runs in its own session (so its whole process group can be killed) and, on
Linux, under ``setpriv --pdeathsig``: the kernel kills it when octo dies, SIGKILL included,
with no ``preexec_fn`` (unsafe once threads run); a child with children of its own (a
language server) runs under a shell that then kills their whole group. Its environment
keeps what a tool needs to run and drops every credential. ``running()`` counts the rg,
language-server and git processes running (the metrics' processes in use). git runs in
its runtime's process group rather than its own session, with no ``setpriv`` before it
(``transports/git.py``: a cheaper start; the group's holder kills it when octo dies).
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import sys
import weakref
from collections.abc import Mapping
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Protocol

import anyio

from octo.core.secrets.redaction import holds_secret

logger = logging.getLogger(__name__)

#: Credentials octo itself reads; never handed to a child.
_CREDENTIALS = frozenset(
    {"GITHUB_TOKEN", "GH_TOKEN", "GITLAB_TOKEN", "GL_TOKEN", "OCTO_HTTP_TOKEN", "OCTO_REDIS_URL"}
)
#: Any variable whose name says it holds a secret (docs/security.md lists these words).
_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|KEY|CREDENTIAL|PRIVATE|AUTH",
    re.IGNORECASE,
)


#: ``sh -c`` script that runs its arguments as a child in the background and waits for it;
#: on SIGTERM it kills its whole process group, itself and every descendant. (A background
#: command's stdin is /dev/null unless redirected, and dash ignores ``<&0``: fd 3 carries it.)
_GROUP_REAPER = 'trap "kill -KILL 0" TERM; exec 3<&0; "$@" <&3 3<&- & wait "$!"'


@cache
def _setpriv() -> str | None:
    """setpriv (util-linux) on Linux, where the parent-death signal is to be had."""
    return shutil.which("setpriv") if sys.platform.startswith("linux") else None


def child_command(argv: Sequence[str], *, with_children: bool = False) -> list[str]:
    """``argv`` wrapped so the child is killed when octo dies (Linux; elsewhere as is).

    A child that starts children of its own (``with_children``: a language server and its
    worker, as tsserver under typescript-language-server) runs under a small shell that the
    parent-death signal makes kill their whole process group, so none of them outlives octo.
    """
    setpriv = _setpriv()
    if setpriv is None:
        return list(argv)
    if not with_children:
        return [setpriv, "--pdeathsig", "KILL", "--", *argv]
    return [setpriv, "--pdeathsig", "TERM", "--", "/bin/sh", "-c", _GROUP_REAPER, "sh", *argv]


def child_environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without credentials: octo's own tokens, every variable named like a secret
    (TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, KEY, CREDENTIAL, PRIVATE, AUTH) and every
    value shaped like one (a URL with a password, a token). A child that needs a secret gets
    none from octo."""
    return {
        name: value
        for name, value in env.items()
        if name not in _CREDENTIALS and not _SECRET_NAME.search(name) and not holds_secret(value)
    }


#: The most a configuration command may print: more is not a setting.
_MAX_OUTPUT = 1 << 20


async def command_output(
    argv: Sequence[str], env: Mapping[str, str], *, cwd: Path | None = None
) -> str | None:
    """The stdout of a short command that reads a setting (``npm config get``, ``gh auth
    token``), stripped; None when it cannot start, fails, or prints nothing or more than
    1 MiB. Cancelled (the caller's deadline), it kills the command.

    stdout is its only pipe: asyncio (3.11), cancelled while it connects a child's pipes,
    leaves those it connects afterwards open, and here there is no second one.
    """
    output = bytearray()
    try:
        process = await anyio.open_process(
            child_command(argv),
            env=child_environment(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        logger.info("%s could not start: %s", argv[0], exc)
        return None
    async with process:
        assert process.stdout is not None  # (stdout is a pipe: open_process's default)
        async for chunk in process.stdout:
            output += chunk
            if len(output) > _MAX_OUTPUT:
                process.kill()
                return None
        await process.wait()
    if process.returncode != 0:
        return None
    return output.decode("utf-8", "replace").strip() or None


class Child(Protocol):
    """A started process (asyncio's or anyio's): its exit status, None while it runs."""

    @property
    def returncode(self) -> int | None: ...


_children: dict[str, weakref.WeakSet[Child]] = {}


def track(kind: str, process: Child) -> None:
    """Count ``process`` as a running child of ``kind`` until it exits."""
    _children.setdefault(kind, weakref.WeakSet()).add(process)


def running() -> dict[str, int]:
    """The children running now, by kind (every kind ever started, 0 included)."""
    return {
        kind: sum(1 for process in list(processes) if process.returncode is None)
        for kind, processes in _children.items()
    }
