"""No credential reaches a child process: rg and language servers start with the
environment stripped of tokens, secrets, passwords and keys (read from /proc/PID/environ of
the running child). A language server's crash message is redacted like every answer."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from octo.core.concurrency import RankedLimiter
from octo.core.config import Config
from octo.faces.library import Gateway
from octo.transports.ripgrep import RgPlace
from octo.transports.ripgrep import open_rg
from tests.lsp.conftest import SOURCE
from tests.lsp.conftest import fake_env
from tests.lsp.conftest import server_pids
from tests.security.planted import PLANTED

SECRETS = {
    "GITHUB_TOKEN": "gh-secret-not-real-1",
    "GH_TOKEN": "gh-secret-not-real-2",
    "GITLAB_TOKEN": "gl-secret-not-real-3",
    "GL_TOKEN": "gl-secret-not-real-4",
    "OCTO_HTTP_TOKEN": "http-secret-not-real-5",
    "MY_SERVICE_TOKEN": "any-secret-not-real-6",
    "AWS_SECRET_ACCESS_KEY": "any-secret-not-real-7",
    "DB_PASSWORD": "any-secret-not-real-8",
    "STRIPE_API_KEY": "any-secret-not-real-9",
    "DATABASE_URL": "postgres://app:url-secret-not-real-10@db.test/app",
}

#: A place in a queue of rg processes of its own, as a runtime would give it.
PLACE = RgPlace(RankedLimiter(4), None)


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.decode(errors="replace").partition("=") for item in raw.split(b"\0") if item)
    return {name: value for name, _, value in pairs}


def _running_program(pid: int) -> str:
    return Path(f"/proc/{pid}/exe").resolve().name


async def _environ_after_exec(pid: int, program: str) -> dict[str, str]:
    """The environment of ``program`` once the child runs it: until its exec, /proc shows
    the environment the child was forked with (ours), then an empty one until the exec has
    laid out the new program's stack (its executable is already ``program``). Two execs
    (setpriv, then ``program``) may take seconds on a loaded machine: up to a minute, the
    event loop free meanwhile."""
    started = False
    for _ in range(6000):
        if _running_program(pid) == program:
            started = True
            environ = _environ(pid)
            if environ:
                return environ
        await anyio.sleep(0.01)
    assert started, f"{program} never started"
    return {}


def _assert_clean(environ: dict[str, str]) -> None:
    assert environ, "no environment read"
    assert "PATH" in environ
    leaked = [name for name in SECRETS if name in environ]
    leaked += [name for name, value in environ.items() if "not-real" in value]
    assert leaked == []


#: Names the first rule let through: a passphrase, credentials, a private thing, auth.
WIDER = {
    "MY_APP_PASSPHRASE": "wide-secret-not-real-1",
    "GOOGLE_APPLICATION_CREDENTIALS": "wide-secret-not-real-2",
    "SSH_PRIVATE_FILE": "wide-secret-not-real-3",
    "NPM_CONFIG__AUTH": "wide-secret-not-real-4",
    "my_app_passphrase": "wide-secret-not-real-5",
}


@pytest.mark.parametrize("planted", [SECRETS, WIDER], ids=["secrets", "wider-names"])
async def test_rg_gets_no_credential(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: dict[str, str]
) -> None:
    for name, value in planted.items():
        monkeypatch.setenv(name, value)
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    # rg blocks reading the FIFO: its environment can be read while it runs (its deadline
    # the longest there is, 30 s, so a slow start is not taken for a hung search).
    async with open_rg(["needle", str(fifo)], place=PLACE, timeout_ms=30_000) as rg:
        environ = await _environ_after_exec(rg.pid, "rg")
    _assert_clean(environ)


@pytest.mark.slow
async def test_a_language_server_gets_no_credential(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "mod.py").write_text(SOURCE)
    env = fake_env("plain", **SECRETS)
    async with Gateway(Config.from_env(env), roots=[tmp_path]) as gateway:
        query = {"uri": "mod.py", "symbolName": "target", "lineHint": 5}
        response = await gateway.call("lspGotoDefinition", [query])
        assert response.results[0].status == "success"
        pids = server_pids()
        assert pids
        for pid in pids:
            _assert_clean(_environ(pid))


@pytest.mark.slow
async def test_a_crash_message_is_redacted(tmp_path: Path) -> None:
    secret = PLANTED[0]
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "mod.py").write_text(f"{secret.text}\n{SOURCE}")
    async with Gateway(Config.from_env(fake_env("crash")), roots=[tmp_path]) as gateway:
        query = {"uri": "mod.py", "symbolName": "target", "lineHint": 6}
        [row] = (await gateway.call("lspGotoDefinition", [query])).to_wire()["results"]
    assert "simulated crash" in row["error"]["message"]
    assert "[REDACTED:" in row["error"]["message"]
    assert secret.value not in str(row)
