"""Child processes octo starts (ripgrep, language servers): the command that makes them die
with octo, and the environment they may see.

Every child runs in its own session (so its whole process group can be killed) and, on
Linux, under ``setpriv --pdeathsig KILL``: the kernel kills it when octo dies, SIGKILL
included, with no ``preexec_fn`` (unsafe once threads run). Its environment keeps what a
tool needs to run and drops every credential.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Mapping
from collections.abc import Sequence
from functools import cache

from octo.core.redaction import redact

#: Credentials octo itself reads; never handed to a child.
_CREDENTIALS = frozenset(
    {"GITHUB_TOKEN", "GH_TOKEN", "GITLAB_TOKEN", "GL_TOKEN", "OCTO_HTTP_TOKEN", "OCTO_REDIS_URL"}
)
#: Any variable whose name says it holds a secret.
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL|AUTH", re.IGNORECASE)


@cache
def _death_signal_prefix() -> tuple[str, ...]:
    """``setpriv --pdeathsig KILL --`` where the system has it (util-linux), else nothing."""
    if not sys.platform.startswith("linux"):
        return ()
    setpriv = shutil.which("setpriv")
    return (setpriv, "--pdeathsig", "KILL", "--") if setpriv else ()


def child_command(argv: Sequence[str]) -> list[str]:
    """``argv`` wrapped so the child is killed when octo dies (Linux; elsewhere as is)."""
    return [*_death_signal_prefix(), *argv]


def child_environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without credentials: octo's own tokens, every variable named like a secret
    (TOKEN, SECRET, PASSWORD, KEY...) and every value shaped like one (a URL with a
    password, a token). A child that needs a secret gets none from octo."""
    return {
        name: value
        for name, value in env.items()
        if name not in _CREDENTIALS and not _SECRET_NAME.search(name) and redact(value) == value
    }
