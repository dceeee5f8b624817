"""The command line as a newcomer meets it: Ctrl+C is one line and exit 130, a relative
directory indexes itself, bad settings stop every command, a list of queries may be inline,
`octo docs` never writes outside a checkout, a bad regex leaves stderr quiet."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO
from .conftest import RunOcto
from .conftest import octo_env


def _ctrl_c_as_on_a_terminal() -> None:
    # A test run started in the background (`cmd &` without job control, nohup, some CI
    # runners) ignores SIGINT, and a child inherits that: octo would rightly never see the
    # Ctrl+C and run the call to its 60 s deadline. A terminal's foreground octo has the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_ctrl_c_during_a_call_is_one_line_and_exit_130(tree: Path) -> None:
    # A GitHub host that accepts the connection and never answers: the call is surely
    # running (not importing) when the interrupt comes.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        env = {**octo_env(tree), "GITHUB_API_URL": f"http://127.0.0.1:{port}"}
        query = '{"keywordsToSearch": ["x"]}'
        with subprocess.Popen(
            [sys.executable, "-m", "octo", "call", "githubSearchRepositories", "-q", query],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            preexec_fn=_ctrl_c_as_on_a_terminal,
        ) as process:
            listener.settimeout(60)
            connection, _ = listener.accept()
            with connection:
                process.send_signal(signal.SIGINT)
                _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert stderr == "octo: interrupted\n"


def test_a_bad_setting_stops_octo_tools_with_its_name(run_octo: RunOcto) -> None:
    done = run_octo("tools", env={"OCTO_MAX_TOKENS": "abc"})
    assert done.returncode == 2
    assert "OCTO_MAX_TOKENS" in done.stderr
    assert done.stdout == ""


# An `octo call` process: 0.6 s of start.
@pytest.mark.slow
def test_an_inline_list_of_queries_is_taken_like_one_from_a_file(
    run_octo: RunOcto, tree: Path
) -> None:
    queries = json.dumps(
        [{"pattern": "needle one", "path": "."}, {"pattern": "needle two", "path": "."}]
    )
    done = run_octo("call", "localSearchCode", "--json", "-q", queries, roots=tree)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    assert [result["status"] for result in results] == ["success", "success"]


@pytest.mark.slow
def test_docs_outside_a_checkout_refuses_and_writes_nothing(tmp_path: Path) -> None:
    installed = tmp_path / "site-packages"
    installed.mkdir()
    # A copy of the package without the checkout around it, as pip installs it.
    subprocess.run(["cp", "-r", str(REPO / "octo"), str(installed)], check=True)
    done = subprocess.run(
        [sys.executable, "-m", "octo", "docs"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**octo_env(), "PYTHONPATH": str(installed)},
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "not a checkout" in done.stderr
    assert not (tmp_path / "docs").exists()
    snapshot = installed / "octo" / "faces" / "tools_list.json"
    assert snapshot.read_bytes() == (REPO / "octo" / "faces" / "tools_list.json").read_bytes()


@pytest.mark.slow
def test_docs_to_standard_output_prints_the_reference(run_octo: RunOcto) -> None:
    done = run_octo("docs", "--output", "-")
    assert done.returncode == 0
    assert done.stdout == (REPO / "docs" / "tools.md").read_text(encoding="utf-8")


# Two `octo call` processes (0.6 s of start each).
@pytest.mark.slow
def test_a_bad_regex_is_answered_without_lines_on_stderr(run_octo: RunOcto, tree: Path) -> None:
    query = json.dumps({"path": "src/app.py", "matchString": "(", "matchStringIsRegex": True})
    done = run_octo("call", "localGetFileContent", "-q", query, roots=tree)
    assert "RE2" in done.stdout
    assert "re2.cc" not in done.stderr and "absl" not in done.stderr
    search = json.dumps({"pattern": "(unclosed", "path": "."})
    done = run_octo("call", "localSearchCode", "-q", search, roots=tree)
    assert "re2.cc" not in done.stderr and "absl" not in done.stderr


@pytest.mark.slow
def test_index_of_a_relative_directory_indexes_that_directory(tree: Path) -> None:
    nested = tree / "src" / "src"
    nested.mkdir()
    (nested / "decoy.py").write_text("def decoy():\n    return 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "octo", "index", "src", "--no-wait"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**octo_env(), "XDG_CACHE_HOME": str(tree.parent / "cache")},
        cwd=tree,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # src holds app.py, util.py and src/decoy.py; src/src alone would be one file.
    assert "filesAdded: 3" in done.stdout, done.stdout + done.stderr


def test_the_version_is_one_and_octo_says_it(run_octo: RunOcto) -> None:
    from importlib.metadata import version

    from octo.core import VERSION

    done = run_octo("--version")
    assert done.stdout == f"octo {VERSION}\n"
    assert version("octo-gateway") == VERSION
    assert 'dynamic = ["version"]' in (REPO / "pyproject.toml").read_text(encoding="utf-8")
