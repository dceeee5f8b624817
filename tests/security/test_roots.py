"""Configured roots are the ceiling: a client's roots only narrow them, over stdio, over HTTP
and through the library. With nothing configured, stdio lets the client set its roots and
HTTP keeps the server's working directory as the ceiling."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp import StdioServerParameters
from pydantic import FileUrl

from octo.core.files.paths import PathPolicy
from octo.faces.library import Gateway
from tests.faces.conftest import served_http

OUTSIDE = Path("/etc/passwd")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('inside')\n")
    (root / "README.md").write_text("# project\n")
    return root


def _env(roots: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCTO_")}
    if roots is not None:
        env["OCTO_ROOTS"] = str(roots)
    return env


def _read(path: Path) -> dict[str, Any]:
    return {"path": str(path)}


def _rows(result: types.CallToolResult) -> list[dict[str, Any]]:
    assert result.structured_content is not None
    rows: list[dict[str, Any]] = result.structured_content["results"]
    return rows


def _roots_callback(*paths: Path) -> Any:
    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=FileUrl(path.as_uri())) for path in paths]
        )

    return list_roots


def test_a_client_root_inside_narrows_and_one_outside_is_ignored(
    tree: Path, caplog: pytest.LogCaptureFixture
) -> None:
    policy = PathPolicy([tree])
    assert policy.narrowed([tree / "src"]).roots == ((tree / "src").resolve(),)
    # A client root above the configured one narrows to the configured one.
    assert policy.narrowed([Path("/")]).roots == (tree.resolve(),)
    with caplog.at_level(logging.WARNING, logger="octo.paths"):
        assert policy.narrowed([Path("/tmp/elsewhere")]).roots == (tree.resolve(),)
    assert "outside the configured roots" in caplog.text


def test_without_configured_roots_the_client_roots_apply(tree: Path) -> None:
    assert PathPolicy([]).narrowed([tree]).roots == (tree.resolve(),)


async def test_library_call_roots_cannot_widen_the_gateway_roots(tree: Path) -> None:
    async with Gateway(roots=[tree]) as gateway:
        wide = await gateway.call("localGetFileContent", [_read(OUTSIDE)], roots=["/"])
        narrow = await gateway.call(
            "localGetFileContent", [_read(tree / "README.md")], roots=[tree / "src"]
        )
    assert wide.results[0].error is not None
    assert wide.results[0].error.code == "PATH_NOT_ALLOWED"
    assert narrow.results[0].error is not None
    assert narrow.results[0].error.code == "PATH_NOT_ALLOWED"


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_stdio_client_root_slash_cannot_read_outside(mode: str, tree: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "octo", "serve"], env=_env(tree)
    )
    with anyio.fail_after(60):
        async with Client(
            params, mode=mode, list_roots_callback=_roots_callback(Path("/"))
        ) as client:
            result = await client.call_tool(
                "localGetFileContent", {"queries": [_read(OUTSIDE), _read(tree / "README.md")]}
            )
    rows = _rows(result)
    assert rows[0]["error"]["code"] == "PATH_NOT_ALLOWED"
    assert rows[1]["status"] == "success"


@pytest.mark.slow
async def test_stdio_without_configured_roots_takes_the_client_roots(
    tree: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "octo", "serve"], env=_env(None), cwd=elsewhere
    )
    with anyio.fail_after(60):
        async with Client(params, list_roots_callback=_roots_callback(tree)) as client:
            result = await client.call_tool(
                "localGetFileContent", {"queries": [_read(tree / "README.md")]}
            )
    assert _rows(result)[0]["status"] == "success"


@pytest.mark.slow
@pytest.mark.parametrize("configured", [True, False], ids=["OCTO_ROOTS", "working-directory"])
async def test_http_client_root_slash_cannot_read_outside(configured: bool, tree: Path) -> None:
    # Unconfigured, the HTTP server's working directory is the ceiling.
    with served_http(_env(tree if configured else None), cwd=tree) as url:
        with anyio.fail_after(60):
            async with Client(url, list_roots_callback=_roots_callback(Path("/"))) as client:
                result = await client.call_tool(
                    "localGetFileContent",
                    {"queries": [_read(OUTSIDE), _read(tree / "README.md")]},
                )
    rows = _rows(result)
    assert rows[0]["error"]["code"] == "PATH_NOT_ALLOWED"
    assert rows[1]["status"] == "success"
