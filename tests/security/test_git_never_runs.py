"""A checkout is hostile input: reading its history runs nothing it names (hooks, fsmonitor,
external diff, textconv and filter drivers, credential helpers, ssh command, pager, gpg),
nothing from the user's global config, and reads no git data outside the allowed roots."""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

import octo
from octo.core.config import Config
from tests.git_repos import Repo
from tests.git_repos import history_repo

#: Every hook git knows of; each would write the canary.
_HOOKS = (
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
)


def _hostile_settings(script: Path, hooks: Path) -> str:
    run = str(script)
    return f"""
[core]
    fsmonitor = {run}
    hooksPath = {hooks}
    pager = {run}
    sshCommand = {run}
    editor = {run}
    askPass = {run}
    alternateRefsCommand = {run}
    gitProxy = {run}
[diff]
    external = {run}
[diff "evil"]
    textconv = {run}
    command = {run}
[filter "evil"]
    clean = {run}
    smudge = {run}
    process = {run}
    required = true
[credential]
    helper = !{run}
[gpg]
    program = {run}
[log]
    showSignature = true
[pager]
    log = {run}
    blame = {run}
[alias]
    log = !{run}
    blame = !{run}
"""


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    return tmp_path / "canary"


@pytest.fixture
def hostile(tmp_path: Path, canary: Path) -> tuple[Path, dict[str, str]]:
    """A repository whose config, attributes and hooks all name a script that writes the
    canary, a user config doing the same, and the environment naming them."""
    root = tmp_path / "root"
    repo, _ = history_repo(root / "project")
    script = tmp_path / "evil.sh"
    script.write_text(f'#!/bin/sh\necho ran "$@" >> {canary}\ncat\n')
    script.chmod(0o755)
    repo.write(".gitattributes", "* filter=evil diff=evil\n")
    repo.commit("attributes")
    hooks = repo.path / ".git" / "hooks"
    for name in _HOOKS:
        (hooks / name).write_text(script.read_text())
        (hooks / name).chmod(stat.S_IRWXU)
    with (repo.path / ".git" / "config").open("a") as config:
        config.write(_hostile_settings(script, hooks))
    (repo.path / "b.py").write_text("changed in the work tree\n")
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".gitconfig").write_text(_hostile_settings(script, hooks))
    (home / ".config" / "git" / "config").write_text(_hostile_settings(script, hooks))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_EXTERNAL_DIFF": str(script),
        "GIT_PAGER": str(script),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_SSH_COMMAND": str(script),
        "GIT_ASKPASS": str(script),
        "GIT_DIR": str(tmp_path),
    }
    return root, env


@pytest.fixture
async def gateway(hostile: tuple[Path, dict[str, str]]) -> AsyncIterator[octo.Gateway]:
    root, env = hostile
    async with octo.Gateway(Config(env=env), roots=[root]) as gw:
        yield gw


async def _one(gw: octo.Gateway, tool: str, query: dict[str, Any]) -> dict[str, Any]:
    envelope: dict[str, Any] = (await gw.call(tool, [query])).to_wire()["results"][0]
    return envelope


async def test_reading_history_runs_nothing_from_the_repository(
    gateway: octo.Gateway, canary: Path
) -> None:
    queries: list[tuple[str, dict[str, Any]]] = [
        ("localGitBlame", {"path": "project/b.py"}),
        ("localGitBlame", {"path": "project/b.py", "startLine": 1, "ignoreWhitespace": True}),
        ("localGitHistory", {"path": "project/b.py", "includePatch": True}),
        ("localGitHistory", {"path": "project", "includePatch": True}),
        ("localGitHistory", {"path": "project/b.py", "startLine": 1, "endLine": 3}),
        ("localGitHistory", {"path": "project", "removed": "def g("}),
        ("localGitHistory", {"path": "project", "added": "g", "regex": True}),
        ("traceLine", {"path": "project/b.py", "startLine": 1, "endLine": 3}),
    ]
    for tool, query in queries:
        envelope = await _one(gateway, tool, query)
        assert envelope["status"] == "success", (tool, query, envelope)
    assert not await anyio.Path(canary).exists()


async def test_git_data_outside_the_roots_is_never_read(tmp_path: Path) -> None:
    outside = Repo(tmp_path / "outside")
    outside.commit("secret history", s_py="x = 1\n")
    root = tmp_path / "root"
    pointer = root / "pointer"
    pointer.mkdir(parents=True)
    (pointer / ".git").write_text(f"gitdir: {outside.path / '.git'}\n")
    (pointer / "s.py").write_text("x = 1\n")
    borrowed = Repo(root / "borrowed")
    borrowed.commit("own", b_py="y = 1\n")
    alternates = borrowed.path / ".git" / "objects" / "info" / "alternates"
    alternates.write_text(f"{outside.path / '.git' / 'objects'}\n")
    async with octo.Gateway(Config(), roots=[root]) as gw:
        for tool, path in [
            ("localGitBlame", "pointer/s.py"),
            ("localGitHistory", "pointer"),
            ("localGitHistory", "borrowed"),
        ]:
            envelope = await _one(gw, tool, {"path": path})
            assert envelope["error"]["code"] == "PATH_NOT_ALLOWED", envelope
            assert "secret history" not in str(envelope)
