"""Language servers start in the background once an MCP client announces its roots, so the
first LSP answer finds one ready; initialize and tools/list never wait for it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from pydantic import FileUrl

from octo import Config
from octo import Gateway
from octo.contract import QueryContext
from octo.core.files.paths import PathPolicy
from octo.faces.mcp.server import build_server
from octo.lsp.servers.running.warm import sample_source
from octo.lsp.servers.running.warm import warm_roots
from tests.lsp.conftest import DEFINITION
from tests.lsp.conftest import FAKE_SERVER
from tests.lsp.conftest import assert_no_leftovers
from tests.lsp.conftest import command_line
from tests.lsp.conftest import fake_env
from tests.lsp.conftest import leftovers
from tests.lsp.conftest import open_pipes
from tests.lsp.conftest import server_pids
from tests.lsp.conftest import server_sessions


def _files(root: Path, names: list[str]) -> Path:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n")
    return root


def test_the_sample_is_a_file_of_the_main_language_outside_generated_folders(
    tmp_path: Path,
) -> None:
    root = _files(
        tmp_path,
        [
            *(f"node_modules/pkg/m{i}.js" for i in range(9)),
            *(f".venv/lib/m{i}.py" for i in range(9)),
            "web/app.ts",
            "src/pkg/b.py",
            "src/pkg/a.py",
            "setup.py",
            "README.md",
        ],
    )
    assert (
        sample_source(PathPolicy([root]), root) == root / "setup.py"
    )  # python (3 files), the shallowest
    assert (
        sample_source(PathPolicy([tmp_path]), _files(tmp_path / "docs", ["index.md", "notes.txt"]))
        is None
    )


def _fake_servers() -> list[int]:
    """The fake servers running (not the shell each runs under on Linux, see processes.py)."""
    return [
        pid
        for pid in leftovers()
        if str(FAKE_SERVER) in (argv := command_line(pid)) and argv[0] != "/bin/sh"
    ]


async def _until_a_server_runs() -> list[int]:
    for _ in range(200):  # 10 s at most
        found = _fake_servers()
        if found:
            return found
        await anyio.sleep(0.05)
    pytest.fail("no language server started")


@pytest.mark.slow
async def test_a_client_announcing_roots_finds_its_server_warm(project: Path) -> None:
    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=FileUrl(project.as_uri()))])

    pipes = open_pipes()
    server = build_server(replace(Config.from_env(fake_env("plain")), roots=(project,)))
    async with Client(server, mode="legacy", list_roots_callback=list_roots) as client:
        # Nothing asked yet: the announced roots alone start the server.
        (warm,) = await _until_a_server_runs()
        sessions = server_sessions()
        result = await client.call_tool("lspGotoDefinition", {"queries": [DEFINITION]})
        assert result.structured_content is not None
        assert result.structured_content["results"][0]["status"] == "success"
        assert _fake_servers() == [warm]  # the query used the warm server
    await assert_no_leftovers(sessions)
    assert open_pipes() <= pipes


@pytest.mark.slow
async def test_warming_never_delays_initialize_or_tools_list(project: Path) -> None:
    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=FileUrl(project.as_uri()))])

    # This server would hang in its own initialize for a minute.
    config = replace(Config.from_env(fake_env("slow-start")), roots=(project,))
    pipes = open_pipes()
    with anyio.fail_after(10):
        async with Client(
            build_server(config), mode="legacy", list_roots_callback=list_roots
        ) as client:
            tools = await client.list_tools()
            assert "lspGotoDefinition" in {tool.name for tool in tools.tools}
            await _until_a_server_runs()  # still starting, in the background
            sessions = server_sessions()
    await assert_no_leftovers(sessions)
    assert open_pipes() <= pipes


async def test_a_root_without_source_files_starts_nothing(tmp_path: Path) -> None:
    docs = _files(tmp_path, ["README.md", "notes/todo.txt"])
    env = fake_env("plain")
    async with Gateway(Config.from_env(env), roots=[docs]) as gw:
        await warm_roots(QueryContext(gw.runtime, PathPolicy([docs])))
        assert server_pids() == []
        assert _fake_servers() == []
