"""Language servers by configuration: a servers file adds a language or replaces a built-in,
a bad entry stops start-up naming its line, and ``octo lsp`` lists and tries servers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from octo.core.config import ConfigError
from octo.faces.cli.commands import main
from octo.lsp.servers.table.catalog import builtin_servers
from octo.lsp.servers.table.catalog import load_servers
from octo.lsp.servers.table.commands import DEFAULT_ORDER
from octo.lsp.servers.table.commands import find_servers
from octo.lsp.servers.table.commands import server_table
from tests.lsp.conftest import FAKE_SERVER
from tests.lsp.conftest import GatewayFactory
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import result_of

FAKE_ENTRY = f"""
[[servers]]
name = "fakelang-server"
languages = ["fakelang"]
extensions = [".fake"]
filenames = ["Fakefile"]
command = [{str(sys.executable)!r}, {str(FAKE_SERVER)!r}, "plain"]
root_markers = ["fake.project"]
initialization_options = {{ mode = "quiet" }}
settings = {{ fakelang = {{ lint = false }} }}
env = ["LANG"]
priority = 5
"""


def _servers_file(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "servers.toml"
    path.write_text(text)
    return lsp_env(OCTO_LSP_SERVERS_FILE=str(path))


def test_the_built_in_table_keeps_todays_order_and_adds_the_new_languages() -> None:
    assert DEFAULT_ORDER["python"] == (
        "ty",
        "basedpyright",
        "pyright",
        "pylsp",
        "jedi-language-server",
    )
    assert DEFAULT_ORDER["typescript"] == ("tsgo", "typescript-language-server")
    names = {entry.name for entry in builtin_servers()}
    for wanted in ("intelephense", "bash-language-server", "yaml-language-server", "jdtls", "zls"):
        assert wanted in names


def test_an_unknown_key_is_an_error_naming_its_line(tmp_path: Path) -> None:
    env = _servers_file(tmp_path, FAKE_ENTRY.replace("priority = 5", "priorty = 5"))
    with pytest.raises(ConfigError, match=r"servers.toml:12: unknown key 'priorty'"):
        load_servers(env)


def test_a_missing_command_is_an_error_naming_the_entry_line(tmp_path: Path) -> None:
    text = '# servers\n\n[[servers]]\nname = "x"\nlanguages = ["x"]\n'
    env = _servers_file(tmp_path, text)
    with pytest.raises(ConfigError, match=r"servers.toml:3: server 'x' has no command"):
        load_servers(env)


def test_a_credential_named_in_env_is_refused(tmp_path: Path) -> None:
    env = _servers_file(tmp_path, FAKE_ENTRY.replace('env = ["LANG"]', 'env = ["GITHUB_TOKEN"]'))
    with pytest.raises(ConfigError, match="GITHUB_TOKEN"):
        load_servers(env)


def test_a_named_servers_file_that_is_missing_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_servers(lsp_env(OCTO_LSP_SERVERS_FILE=str(tmp_path / "none.toml")))


def test_a_user_entry_with_a_built_ins_name_replaces_it(tmp_path: Path) -> None:
    text = FAKE_ENTRY.replace('"fakelang-server"', '"ty"').replace('["fakelang"]', '["python"]')
    text = text.replace("priority = 5", "priority = 100")
    env = _servers_file(tmp_path, text)
    (first, *_rest) = find_servers("python", env)
    assert first.server_id == "ty"
    assert first.argv[1] == str(FAKE_SERVER)
    assert [e.name for e in server_table(env).entries].count("ty") == 1


def test_the_file_adds_a_language_by_extension_and_by_name(tmp_path: Path) -> None:
    table = server_table(_servers_file(tmp_path, FAKE_ENTRY))
    found = table.language_of(tmp_path / "shapes.fake")
    assert found is not None and (found.family, found.language_id) == ("fakelang", "fakelang")
    by_name = table.language_of(tmp_path / "Fakefile")
    assert by_name is not None and by_name.family == "fakelang"
    assert table.markers["fakelang"] == ("fake.project",)


@pytest.mark.slow
async def test_a_configured_server_answers_for_its_language(
    gateway: GatewayFactory, project: Path
) -> None:
    (project / "shapes.fake").write_text("shape target\n\nuse target\n")
    gw = await gateway(_servers_file(project, FAKE_ENTRY))
    query = {"uri": "shapes.fake", "symbolName": "target", "lineHint": 3}
    data = result_of(await gw.lsp_goto_definition([query]))["data"]
    assert data["server"] == "fakelang-server"
    (definition,) = data["definitions"]
    assert (definition["path"], definition["line"]) == ("shapes.fake", 1)


@pytest.mark.slow
async def test_the_entrys_options_and_settings_reach_its_server(
    gateway: GatewayFactory, project: Path
) -> None:
    (project / "shapes.fake").write_text("shape target\n\nuse target\n")
    gw = await gateway(_servers_file(project, FAKE_ENTRY.replace('"plain"', '"config"')))
    query = {"uri": "shapes.fake", "symbolName": "target", "lineHint": 3}
    data = result_of(await gw.lsp_hover([query]))["data"]
    assert json.loads(data["markdown"]) == {
        "options": {"mode": "quiet"},
        "settings": [{"lint": False}],
    }


# Starts the fake server (a Python process importing pygls), like the other slow tests here.
@pytest.mark.slow
async def test_an_operation_the_server_lacks_names_a_server_of_the_language(
    gateway: GatewayFactory, project: Path
) -> None:
    (project / "shapes.fake").write_text("shape target\n\nuse target\n")
    gw = await gateway(_servers_file(project, FAKE_ENTRY))
    query = {"uri": "shapes.fake", "symbolName": "target", "lineHint": 3}
    result = result_of(await gw.lsp_hover([query]))
    assert result["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "does not support hover" in result["error"]["message"]
    assert any("servers file" in hint for hint in result["hints"])


def test_octo_lsp_lists_servers_and_where_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in _servers_file(tmp_path, FAKE_ENTRY).items():
        monkeypatch.setenv(name, value)
    assert main(["lsp"]) == 0
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if line.startswith("fakelang-server")]
    assert sys.executable in line and "servers.toml:2" in line
    assert any(line.startswith("jdtls") and "not installed" in line for line in out.splitlines())


def test_octo_lsp_stops_on_a_bad_servers_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OCTO_LSP_SERVERS_FILE", str(tmp_path / "servers.toml"))
    (tmp_path / "servers.toml").write_text('[[servers]]\nname = "x"\nwhat = 1\n')
    assert main(["lsp"]) == 2
    assert "servers.toml:3: unknown key 'what'" in capsys.readouterr().err


def test_octo_serve_does_not_start_on_a_bad_servers_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OCTO_LSP_SERVERS_FILE", str(tmp_path / "servers.toml"))
    (tmp_path / "servers.toml").write_text('\n[[servers]]\nname = "x"\nlanguages = ["x"]\n')
    assert main(["serve"]) == 2
    assert "servers.toml:2: server 'x' has no command" in capsys.readouterr().err


@pytest.mark.slow
def test_octo_lsp_check_tries_the_files_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in _servers_file(tmp_path, FAKE_ENTRY).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OCTO_ROOTS", raising=False)
    (tmp_path / "a.fake").write_text("shape target\n")
    assert main(["lsp", "check", str(tmp_path / "a.fake")]) == 0
    out = capsys.readouterr().out
    assert "server: fakelang-server" in out
    assert "offers: definition, references, callHierarchy" in out
    assert "definition of 'shape' (line 1): 1 location(s)" in out
