"""Servers that are more than a program on the path. The Perl server is a module: ``octo lsp``
calls it installed only when perl finds Perl::LanguageServer in its library, which perl is asked
for without loading a module or reading a file of the project. vue-language-server answers
alone only in version 2, and only with the TypeScript it loads beside it."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from octo.core.errors import LspNotAvailableError
from octo.lsp.servers.inventory import inventory
from octo.lsp.servers.inventory import inventory_lines
from octo.lsp.servers.table.commands import find_servers
from octo.lsp.servers.table.commands import server_options
from octo.lsp.servers.table.commands import server_table
from tests.lsp.conftest import lsp_env


def _fake_perl(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A ``perl`` first on OCTO_LSP_PATH whose @INC is one directory of the test's, and that
    leaves a mark if anything but ``-e`` is asked of it."""
    bin_dir, library = tmp_path / "bin", tmp_path / "lib"
    bin_dir.mkdir()
    library.mkdir()
    perl = bin_dir / "perl"
    perl.write_text(
        "#!/bin/sh\n"
        f'[ "$1" = "-e" ] || touch {tmp_path / "ran"}\n'
        f"echo /nonexistent; echo {library}\n"
    )
    perl.chmod(perl.stat().st_mode | stat.S_IEXEC)
    return lsp_env(OCTO_LSP_PATH=str(bin_dir)), library


def test_perl_without_the_module_is_no_perl_server(tmp_path: Path) -> None:
    env, _ = _fake_perl(tmp_path)
    with pytest.raises(LspNotAvailableError) as raised:
        find_servers("perl", env)
    assert "libperl-languageserver-perl" in " ".join(raised.value.hints)
    lines = inventory_lines(inventory(server_table(env), env))
    (perl,) = [line for line in lines if line.startswith("perl-language-server")]
    assert "not installed (perl)" in perl
    assert not (tmp_path / "ran").exists()


def test_perl_with_the_module_in_its_library_is_the_perl_server(tmp_path: Path) -> None:
    env, library = _fake_perl(tmp_path)
    (library / "Perl").mkdir()
    (library / "Perl" / "LanguageServer.pm").write_text("1;\n")
    (server,) = find_servers("perl", env)
    assert server.argv[:2] == (str(tmp_path / "bin" / "perl"), "-MPerl::LanguageServer")
    assert not (tmp_path / "ran").exists()


def _vue_install(tmp_path: Path, version: str, *, typescript: bool = True) -> dict[str, str]:
    """An npm install of @vue/language-server ``version`` (its .bin link) under tmp_path."""
    modules = tmp_path / "node_modules"
    package = modules / "@vue" / "language-server"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps({"name": "@vue/language-server", "version": version})
    )
    script = package / "bin" / "vue-language-server.js"
    script.write_text("#!/bin/sh\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (modules / ".bin").mkdir()
    (modules / ".bin" / "vue-language-server").symlink_to(script)
    if typescript:
        (modules / "typescript" / "lib").mkdir(parents=True)
        (modules / "typescript" / "lib" / "typescript.js").write_text("")
    return lsp_env(OCTO_LSP_PATH=str(modules / ".bin"))


def test_vue_language_server_2_starts_alone_with_the_typescript_beside_it(
    tmp_path: Path,
) -> None:
    env = _vue_install(tmp_path, "2.1.10")
    (server,) = find_servers("vue", env)
    assert server_options(server) == {
        "typescript": {"tsdk": str(tmp_path / "node_modules" / "typescript" / "lib")},
        "vue": {"hybridMode": False},
    }


@pytest.mark.parametrize(("version", "typescript"), [("3.0.0", True), ("2.1.10", False)])
def test_vue_language_server_3_or_without_typescript_is_no_vue_server(
    tmp_path: Path, version: str, typescript: bool
) -> None:
    env = _vue_install(tmp_path, version, typescript=typescript)
    with pytest.raises(LspNotAvailableError) as raised:
        find_servers("vue", env)
    assert "@vue/language-server@2" in " ".join(raised.value.hints)
