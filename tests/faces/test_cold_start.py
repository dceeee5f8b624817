"""`octo serve` answers initialize and tools/list without importing a tool family: the
definitions come from the snapshot `octo docs` writes; the registry loads in a worker thread
once tools/list is answered."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import REPO
from .conftest import octo_env

PROBE = """
import sys, threading, anyio
from mcp import Client
from octo.faces.mcp_server import build_server

main_thread = []

def seen(event, args):
    if event == "import" and threading.current_thread() is threading.main_thread():
        name = args[0]
        if name.startswith("octo.") and name.endswith((".specs", ".models", ".registry")):
            main_thread.append(name)

sys.addaudithook(seen)

async def main():
    async with Client(build_server(), mode="legacy") as client:
        tools = (await client.list_tools()).tools
        print(len(tools), sorted(main_thread))
        await client.call_tool("getToolCategories", {"queries": [{}]})
        print("octo.registry" in sys.modules)

anyio.run(main)
"""


@pytest.mark.slow
def test_tools_list_imports_no_family_until_the_first_call() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=octo_env(REPO),
        cwd=REPO,
        timeout=60,
        check=True,
    )
    from octo.registry import all_tools

    assert done.stdout.splitlines() == [f"{len(all_tools())} []", "True"], done.stderr
