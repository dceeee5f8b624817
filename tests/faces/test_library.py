"""The Python library face, and the promise that `import octo` stays light."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import octo
from octo.registry import get_tool


async def test_gateway_tool_method_and_generic_call_agree(tree: Path) -> None:
    query = {"path": str(tree), "name": "*.py"}
    async with octo.Gateway(roots=[tree]) as gw:
        by_method = await gw.local_find_files([query])
        by_name = await gw.call("localFindFiles", [query])
    assert by_method.to_wire() == by_name.to_wire()
    assert by_method.results[0].status == "success"


async def test_gateway_runs_the_spec_a_face_found_without_looking_it_up_again(
    tree: Path,
) -> None:
    # The MCP face and the command line find the spec first: the gateway takes it as given
    # (a name the registry does not know proves no second lookup).
    spec = replace(get_tool("localFindFiles"), name="localFindFilesAsFound")
    query = {"path": str(tree), "name": "*.py"}
    async with octo.Gateway(roots=[tree]) as gw:
        by_spec = await gw.call(spec, [query])
        by_name = await gw.call("localFindFiles", [query])
    assert by_spec.to_wire() == by_name.to_wire()
    assert by_spec.results[0].status == "success"


async def test_gateway_search_with_a_typed_query(tree: Path) -> None:
    spec = get_tool("localSearchCode")
    typed = spec.query_model.model_validate({"pattern": "needle", "path": str(tree)})
    async with octo.Gateway(roots=[tree]) as gw:
        response = await gw.local_search_code([typed, {"pattern": "needle", "path": "/"}])
    assert [r.status for r in response.results] == ["success", "error"]
    assert response.results[1].error is not None
    assert response.results[1].error.code == "PATH_NOT_ALLOWED"


@pytest.mark.slow
@pytest.mark.parametrize(
    "statement",
    [
        "import octo",
        "import octo; octo.Gateway; octo.all_tools()",
        "import octo.faces.cli.commands, octo.faces.tool_docs; octo.faces.tool_docs.render_tools_markdown()",
    ],
)
def test_import_octo_does_not_import_mcp(statement: str) -> None:
    check = f"{statement}; import sys; assert 'mcp' not in sys.modules, 'mcp was imported'"
    subprocess.run([sys.executable, "-c", check], check=True, timeout=60)


@pytest.mark.slow
def test_the_registry_loads_no_backend() -> None:
    # `octo tools`, `octo docs` and the server's tools/list need only the models: providers
    # (language-server protocol types, the HTTP client, retry policies) load on first call.
    check = (
        "import sys, octo; octo.all_tools(); "
        "heavy = sorted({'lsprotocol', 'pygls', 'httpx', 'tenacity', 'mcp'} & set(sys.modules)); "
        "assert not heavy, f'the registry imported {heavy}'"
    )
    subprocess.run([sys.executable, "-c", check], check=True, timeout=60)


async def test_model_dump_gives_plain_values(tree: Path) -> None:
    async with octo.Gateway(roots=[tree]) as gw:
        response = await gw.local_search_code(
            [{"pattern": "needle", "path": "."}, {"pattern": "x", "path": "/elsewhere"}]
        )
    found, refused = (result.model_dump(exclude_none=True) for result in response.results)
    assert type(found["status"]) is str and found["status"] == "success"
    assert type(refused["error"]["code"]) is str and refused["error"]["code"] == "PATH_NOT_ALLOWED"
    assert response.model_dump()["results"][0]["status"] == "success"
