"""After githubCloneRepo, a real language server and the semantic index work on the clone's
localPath in the same gateway (the clone folder is a read root of every local tool)."""

from __future__ import annotations

from pathlib import Path

import pytest

from octo import Gateway
from octo.core.config import Config
from tests.codehosts.clone.archive_server import github_with_archive
from tests.codehosts.clone.archives import build
from tests.codehosts.clone.test_clone_repo import clone_env
from tests.codehosts.clone.test_clone_repo import one
from tests.lsp.conftest import lsp_env

# A real language server starts and indexes: seconds.
pytestmark = pytest.mark.slow


async def test_lsp_and_semantic_tools_work_on_a_clone(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with github_with_archive(build()) as (api, _):
        env = {
            **lsp_env(OCTO_LSP_PYTHON_SERVERS="basedpyright"),
            **clone_env(api, tmp_path, OCTO_INDEX_DIR=str(tmp_path / "indexes")),
        }
        async with Gateway(Config.from_env(env), roots=[work]) as gw:
            cloned = await one(gw, "githubCloneRepo", owner="o", repo="r", ref="main")
            local = Path(cloned["data"]["localPath"])
            found = await one(
                gw,
                "lspGotoDefinition",
                uri=str(local / "pkg" / "use.py"),
                symbolName="area_of_square",
                lineHint=5,
            )
            assert found["status"] == "success", found
            assert "pkg/shapes.py" in str(found["data"])
            indexed = await one(gw, "semanticIndexCodebase", path=str(local), indexName="o-r")
            assert indexed["status"] == "success", indexed
