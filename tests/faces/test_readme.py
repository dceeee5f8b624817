"""README.md as a newcomer follows it: the MCP client snippets start a server that answers,
the library example runs (also from the folder that holds the checkout), and CI installs
what step 1 installs and runs the full suite under the coverage gates the README names."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp import StdioServerParameters

from octo.registry import all_tools

from .conftest import REPO
from .conftest import octo_env

README = (REPO / "README.md").read_text(encoding="utf-8")
#: The placeholder the snippets ask the reader to replace with the checkout's path.
PLACEHOLDER = "/path/to/octo"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)


def _mcp_servers() -> list[dict[str, Any]]:
    """Every server entry of the README's MCP client configurations."""
    found = []
    for block in _blocks("json"):
        config = json.loads(block)
        for key in ("mcpServers", "servers"):
            found.extend(config.get(key, {}).values())
    return found


def test_the_readme_configures_three_clients_from_the_checkout() -> None:
    servers = _mcp_servers()
    assert len(servers) == 3  # Claude Desktop, VS Code, Cursor
    for server in servers:
        assert server["command"] == f"{PLACEHOLDER}/.venv/bin/octo"
        assert server["args"] == ["serve"]
    # The package-index form is there, but only as the clearly marked later variant.
    assert "uvx --from octo-gateway" not in "".join(_blocks("json") + _blocks("bash"))
    assert "**Once published**" in README
    assert f"uvx --from {PLACEHOLDER} octo serve" in README


@pytest.mark.slow
@pytest.mark.parametrize("index", range(3))
async def test_each_mcp_snippet_starts_a_server_that_lists_the_tools(
    index: int, tmp_path: Path
) -> None:
    server = _mcp_servers()[index]
    command = server["command"].replace(PLACEHOLDER, str(REPO))
    if not await anyio.Path(command).exists():
        pytest.skip(f"{command} is missing: README step 1 was not run in this checkout")
    env = {**octo_env(), **server.get("env", {})}
    params = StdioServerParameters(command=command, args=server["args"], env=env, cwd=tmp_path)
    with anyio.fail_after(60):
        async with Client(params) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == [spec.name for spec in all_tools()]


@pytest.mark.slow
def test_the_library_example_runs_from_the_folder_that_holds_the_checkout(
    tmp_path: Path,
) -> None:
    # Seen from its parent, the checkout is a folder named octo; a Python that put it on
    # sys.path as a namespace package would fail: module 'octo' has no attribute 'Gateway'.
    (tmp_path / "octo").symlink_to(REPO, target_is_directory=True)
    (tmp_path / "app.py").write_text("def main():\n    return 0\n")
    (example,) = _blocks("python")
    (tmp_path / "example.py").write_text(example)
    done = subprocess.run(
        [sys.executable, "example.py"],
        cwd=tmp_path,
        env=octo_env(),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("0 success")
    assert lines[1] == "  app.py 1"  # result.data.files: typed models, read as attributes
    assert json.loads(lines[-1])["results"][0]["status"] == "success"


def test_ci_installs_as_step_1_says() -> None:
    step_1 = re.search(r'pip install -e "(\.\[[^]]+\])"', README)
    assert step_1 is not None
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.findall(r'pip install -e "([^"]+)"', ci) == [step_1.group(1)]


def _coverage_gates(text: str) -> set[tuple[str, str]]:
    """Each `coverage report --fail-under` of ``text``: its level and its --include ('' for all)."""
    gates = set()
    for line in text.replace("\\\n", " ").splitlines():
        level = re.search(r"coverage report .*--fail-under=(\d+)", line)
        include = re.search(r"--include=('[^']*')", line)
        if level:
            gates.add((level.group(1), include.group(1) if include else ""))
    return gates


def test_ci_runs_the_readme_full_suite_under_its_coverage_gates() -> None:
    development = README.split("## Development", 1)[1]
    full_suite = re.search(r"^(\.venv/bin/python -m coverage run -m pytest)\s+#", development, re.M)
    assert full_suite is not None
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert f"{full_suite.group(1)} -q -p no:cacheprovider" in ci
    assert (
        _coverage_gates(development)
        == _coverage_gates(ci)
        == {
            ("90", ""),
            ("95", "'octo/contract/*,octo/dispatch.py'"),
        }
    )


def _install_size_bench() -> Any:
    path = REPO / "benchmarks" / "bench_install_size.py"
    spec = importlib.util.spec_from_file_location("bench_install_size", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_table_of_installs_is_the_measured_one() -> None:
    # Written by `bench_install_size.py --readme`: one row per extra of pyproject.toml, each
    # size as measured in this venv (within a quarter: releases move), for the extras
    # installed here.
    bench = _install_size_bench()
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    extras = set(project["project"]["optional-dependencies"])
    assert set(bench.BRINGS) == {"", *extras} and set(bench.EXTRAS) == extras
    written = README.split(bench.TABLE_START + "\n", 1)[1].split(bench.TABLE_END, 1)[0]
    measured = bench.measure()
    rows = dict(zip(bench.BRINGS, written.strip().splitlines()[2:], strict=True))
    assert [row.split(" | ")[1] for row in rows.values()] == list(bench.BRINGS.values())
    for extra in bench.BRINGS:
        if _installed(extra, project):
            size = bench.megabytes(measured[extra])
            assert 0.75 <= size / _size_in(rows[extra]) <= 1.25, (extra, size, rows[extra])


def _size_in(row: str) -> float:
    return float(row.rsplit("|", 2)[1].strip().removesuffix(" MB"))


def _installed(extra: str, project: dict[str, Any]) -> bool:
    """Whether every distribution ``extra`` names directly is installed here."""
    if not extra:
        return True
    names = [
        re.split(r"[<>=;\[ ]", line, maxsplit=1)[0]
        for line in project["project"]["optional-dependencies"][extra]
    ]
    try:
        for name in names:
            importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True
