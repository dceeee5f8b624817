"""Credential files by name or by place need the includeSensitive opt-in to be read or
searched (real files, real rg)."""

from __future__ import annotations

from pathlib import Path

import pytest

from octo.faces.library import Gateway

NAMES = [
    "env.production",
    ".env.staging",
    "server.pem",
    "client.p12",
    "release.keystore",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".docker/config.json",
    ".kube/config",
    "secrets.py",
    "secrets.toml",
]


@pytest.mark.parametrize("name", NAMES)
async def test_a_credential_file_needs_the_opt_in(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("needle = 1\n")
    hidden = {"hidden": True}  # dot-files need their own opt-in as well
    async with Gateway(roots=[tmp_path]) as gateway:
        read = await gateway.call("localGetFileContent", [{"path": name, **hidden}])
        search = await gateway.call(
            "localSearchCode", [{"pattern": "needle", "path": ".", **hidden}]
        )
        opted = await gateway.call(
            "localGetFileContent", [{"path": name, **hidden, "includeSensitive": True}]
        )
    assert read.results[0].error is not None
    assert read.results[0].error.code == "PATH_NOT_ALLOWED"
    assert "credential" in read.results[0].error.message
    assert search.results[0].status == "empty"
    assert opted.results[0].status == "success"
