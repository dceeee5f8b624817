"""The new search fields and localFindAndSearchCode reach every face from the models alone:
MCP schemas and calls, the library method and the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

import octo
from octo import Config
from octo.faces.mcp.server import build_server

from .conftest import Tree


@pytest.mark.slow
async def test_mcp_lists_and_runs_the_new_fields(tree: Tree) -> None:
    root = tree({"src/a.py": "TODO one\nTODO two\n", "src/b.md": "TODO\n"})
    async with Client(build_server(Config(roots=(root,))), raise_exceptions=True) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        joined = listed["localFindAndSearchCode"].input_schema["properties"]["queries"]["items"]
        assert {"fileLimit", "sortBy", "names", "extensions", "outputMode", "word"} <= set(
            joined["properties"]
        )
        search = listed["localSearchCode"].input_schema["properties"]["queries"]["items"]
        assert search["properties"]["outputMode"]["enum"] == [
            "groupByFile",
            "totalOnly",
            "countOnly",
            "summary",
        ]
        result = await client.call_tool(
            "localFindAndSearchCode",
            {
                "queries": [
                    {
                        "path": str(root),
                        "extensions": ["py"],
                        "pattern": "TODO",
                        "outputMode": "totalOnly",
                    },
                    {"path": str(root), "pattern": "TODO", "total_only": True},
                ]
            },
        )
    assert result.structured_content is not None
    total, renamed = result.structured_content["results"]
    assert total["data"]["stats"]["totalMatches"] == 2
    assert total["data"]["find"]["searchedFileCount"] == 1
    assert 'did you mean outputMode: "totalOnly"?' in renamed["error"]["message"]


async def test_the_library_has_a_method_per_tool(tree: Tree) -> None:
    root = tree({"a.py": "x\n"})
    async with octo.Gateway(Config(), roots=[root]) as gw:
        response = await gw.local_find_and_search_code(
            [{"path": ".", "pattern": "x", "outputMode": "countOnly"}]
        )
    assert response.results[0].data is not None
    assert response.results[0].data.files is not None
    assert [f.path for f in response.results[0].data.files] == ["a.py"]


@pytest.mark.slow
def test_the_command_line_calls_the_new_tool(tree: Tree) -> None:
    root = tree({"src/a.py": "TODO\n"})
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCTO_")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "octo",
            "call",
            "localFindAndSearchCode",
            "--json",
            '--query={"path": ".", "names": ["*.py"], "pattern": "TODO", "outputMode": "summary"}',
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**env, "OCTO_ROOTS": str(root)},
        cwd=Path(__file__).resolve().parents[2],
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    [answer] = json.loads(done.stdout)["results"]
    assert answer["data"]["files"][0]["matches"] == [{"lineNumber": 1, "content": "TODO"}]
    assert answer["data"]["otherFiles"] == 0
