"""The `octo` command as a real subprocess."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from octo import Gateway
from octo.faces.tool_docs import summary
from octo.faces.tool_docs import tool_reference
from octo.registry import all_tools
from octo.registry import get_tool

from .conftest import octo_env


@pytest.mark.slow
def test_tools_lists_every_tool_with_its_whole_summary(run_octo: Any) -> None:
    done = run_octo("tools")
    assert done.returncode == 0, done.stderr
    listing, _, footer = done.stdout.rpartition("\n\n")
    # One block per tool: its first line, then lines indented under the summary column.
    blocks = re.split(r"\n(?! )", listing)
    assert len(blocks) == len(all_tools())
    for block, spec in zip(blocks, all_tools(), strict=True):
        words = block.split()
        assert words[:4] == [spec.name, spec.category.value, "max", str(spec.max_queries)]
        # The first sentence whole: not cut mid-word nor mid-sentence.
        assert " ".join(words[4:]) == summary(spec)
        assert summary(spec).endswith(".")
    assert (
        footer
        == f"{len(all_tools())} tools. `octo tools NAME` shows one tool's parameters and an example.\n"
    )


@pytest.mark.slow
def test_tools_name_prints_the_tools_reference(run_octo: Any) -> None:
    done = run_octo("tools", "lspFindReferences")
    assert done.returncode == 0, done.stderr
    spec = get_tool("lspFindReferences")
    assert done.stdout == tool_reference(spec)  # the one renderer docs/tools.md uses too
    assert (
        "| `referencesPerPage` | `integer` | no | `20` | References per page. (range 1-50) |"
        in (done.stdout)
    )
    assert "### Example" in done.stdout
    assert '"symbolName": "load_config"' in done.stdout
    unknown = run_octo("tools", "lspFindReference")
    assert unknown.returncode == 2
    assert unknown.stdout == ""
    assert unknown.stderr == (
        "octo: Unknown tool 'lspFindReference'\nDid you mean: lspFindReferences?\n"
    )


@pytest.mark.slow
async def test_call_json_prints_exactly_the_bulk_response(run_octo: Any, tree: Path) -> None:
    queries = [{"path": str(tree), "name": "*.py"}, {"name": "*.py"}]
    args = [f"--query={json.dumps(q)}" for q in queries]
    done = run_octo("call", "localFindFiles", "--json", *args, roots=tree)
    assert done.returncode == 0, done.stderr
    async with Gateway(roots=[tree]) as gateway:
        expected = (await gateway.call("localFindFiles", queries)).to_wire()
    assert json.loads(done.stdout) == expected


@pytest.mark.slow
def test_call_prints_a_readable_answer(run_octo: Any, tree: Path) -> None:
    done = run_octo(
        "call",
        "localFindFiles",
        "--query",
        json.dumps({"path": str(tree), "name": "*.py"}),
        "--query",
        json.dumps({"path": str(tree), "maxDepth": 99}),
        roots=tree,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[0] success")
    assert "\n    - path: src/app.py\n" in done.stdout
    assert "[1] error VALIDATION_ERROR: maxDepth" in done.stdout
    assert "  hint: " in done.stdout


@pytest.mark.slow
def test_query_file_holds_one_query_or_a_list(run_octo: Any, tree: Path, tmp_path: Path) -> None:
    query_file = tmp_path / "queries.json"
    query_file.write_text(json.dumps([{"path": str(tree), "name": "*.py"}] * 2))
    done = run_octo("call", "localFindFiles", "--json", f"--query=@{query_file}", roots=tree)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["results"]) == 2


@pytest.mark.slow
def test_every_query_failing_exits_non_zero(run_octo: Any, tree: Path) -> None:
    done = run_octo("call", "localFindFiles", "--json", '--query={"name": "*.py"}', roots=tree)
    assert done.returncode == 1
    assert json.loads(done.stdout)["results"][0]["status"] == "error"


@pytest.mark.slow
def test_malformed_calls_exit_2_with_a_message(run_octo: Any, tree: Path) -> None:
    too_many = ["--query=" + json.dumps({"path": str(tree)})] * 6
    cases = {
        "unknown tool": ["call", "localFindFile", '--query={"path": "."}'],
        "bad json": ["call", "localFindFiles", "--query={path"],
        "too many": ["call", "localFindFiles", *too_many],
    }
    for case, args in cases.items():
        done = run_octo(*args, roots=tree)
        assert done.returncode == 2, case
        assert done.stdout == "", case
        assert done.stderr.startswith("octo: "), case
    assert "Did you mean: localFindFiles" in run_octo(*cases["unknown tool"]).stderr


@pytest.mark.slow
def test_a_reader_that_leaves_early_is_no_error(tree: Path) -> None:
    # `octo call ... | head -1`: the pipe closes before octo has printed everything.
    reader, writer = os.pipe()
    os.close(reader)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "octo",
            "call",
            "localSearchCode",
            '--query={"pattern":"n","path":"."}',
        ],
        stdout=writer,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=octo_env(tree),
        cwd=tree,
        timeout=60,
        check=False,
    )
    os.close(writer)
    assert done.returncode == 0
    assert done.stderr == ""


@pytest.mark.slow
def test_an_unusable_variable_stops_call_and_serve_with_its_name(tree: Path) -> None:
    for args in (["call", "localSearchCode", '--query={"pattern":"n","path":"."}'], ["serve"]):
        done = subprocess.run(
            [sys.executable, "-m", "octo", *args],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            env={**octo_env(tree), "OCTO_MAX_TOKENS": "lots"},
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, args
        assert done.stderr == "octo: OCTO_MAX_TOKENS must be a whole number, got 'lots'\n"


@pytest.mark.slow
def test_serve_http_refuses_a_bad_port_or_host_in_one_line(run_octo: Any) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = str(taken.getsockname()[1])
        cases = {
            ("--port", "99999"): "octo serve: argument --port: must be 0-65535 (0: any free "
            "port), got '99999' (see `octo serve --help`)",
            ("--port", "http"): "octo serve: argument --port: must be 0-65535 (0: any free "
            "port), got 'http' (see `octo serve --help`)",
            ("--port", busy): f"octo serve: cannot listen on 127.0.0.1 port {busy}: ",
            ("--host", "no-such-host.invalid"): "octo serve: cannot listen on "
            "no-such-host.invalid port 8000: ",
        }
        for args, message in cases.items():
            done = run_octo("serve", "--http", *args)
            assert done.returncode == 2, args
            assert done.stdout == "", args
            assert done.stderr.startswith(message), args
            assert done.stderr.count("\n") == 1, done.stderr  # one line, no traceback


@pytest.mark.slow
def test_call_under_a_missing_root_says_the_root_is_missing(run_octo: Any, tree: Path) -> None:
    gone = tree / "gone"
    query = '--query={"pattern":"n","path":"."}'
    flag = run_octo("call", "localSearchCode", "--root", str(gone), query, roots=tree)
    assert (flag.returncode, flag.stdout) == (2, "")
    assert flag.stderr == f"octo: the allowed root {gone} (--root) does not exist\n"
    configured = run_octo("call", "localSearchCode", query, roots=gone)
    assert (configured.returncode, configured.stdout) == (2, "")
    assert configured.stderr == f"octo: the allowed root {gone} (OCTO_ROOTS) does not exist\n"
