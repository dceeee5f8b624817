"""The Fortran and Perl servers of the built-in table, real: fortls (the lsp extra) and
Perl::LanguageServer (Debian's libperl-languageserver-perl, which .ci/run installs) answer on
fixtures with known answers."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from octo import Gateway
from octo.core.config import Config
from tests.lsp.conftest import FIXTURES
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import result_of
from tests.lsp.conftest import skip_unless_installed
from tests.lsp.conftest import success_data

FORTRAN = FIXTURES / "fortran_project"
PERL = FIXTURES / "perl_project"

# Real language servers that read their fixture project first: about a second each.
pytestmark = pytest.mark.slow


@pytest.fixture
async def gw() -> AsyncIterator[Gateway]:
    async with Gateway(Config.from_env(lsp_env()), roots=[FORTRAN, PERL]) as gateway:
        yield gateway


async def test_fortls_definition_hover_references_and_symbols(gw: Gateway) -> None:
    skip_unless_installed("fortran")
    use = {"uri": str(FORTRAN / "main.f90"), "symbolName": "circle_area", "lineHint": 4}
    definition = success_data(await gw.lsp_goto_definition([use]))
    assert definition["server"] == "fortls"
    (found,) = definition["definitions"]
    assert (found["path"], found["line"]) == ("shapes.f90", 5)
    hover = success_data(await gw.lsp_hover([use]))
    assert "FUNCTION circle_area(radius) RESULT(area)" in hover["markdown"]
    assert "Area of a circle of the given radius." in hover["markdown"]
    place = {"uri": str(FORTRAN / "shapes.f90"), "symbolName": "circle_area", "lineHint": 5}
    references = success_data(await gw.lsp_find_references([place]))
    where = {(r["path"], r["line"]) for r in references["references"]}
    # The use-only import, the call, the declaration, its `end function` and the call in report.
    assert where == {
        ("main.f90", 2),
        ("main.f90", 4),
        ("shapes.f90", 5),
        ("shapes.f90", 9),
        ("shapes.f90", 13),
    }
    symbols = success_data(await gw.lsp_document_symbols([{"uri": str(FORTRAN / "shapes.f90")}]))
    assert symbols["source"] == "lsp"
    assert [(s["name"], s["kind"], s["startLine"]) for s in symbols["symbols"]] == [
        ("shapes", "module", 1),
        ("circle_area", "function", 5),
        ("report", "function", 11),
    ]


async def test_perl_definition_references_and_symbols(gw: Gateway) -> None:
    skip_unless_installed("perl")
    use = {"uri": str(PERL / "main.pl"), "symbolName": "circle_area", "lineHint": 6}
    definition = success_data(await gw.lsp_goto_definition([use]))
    assert definition["server"] == "perl-language-server"
    (found,) = definition["definitions"]
    assert (found["path"], found["line"]) == ("Shapes.pm", 6)
    # Perl::LanguageServer answers references with the sub's definition (by name), not its uses.
    references = success_data(await gw.lsp_find_references([use]))
    assert [(r["path"], r["line"]) for r in references["references"]] == [("Shapes.pm", 6)]
    symbols = success_data(await gw.lsp_document_symbols([{"uri": str(PERL / "Shapes.pm")}]))
    assert symbols["source"] == "lsp"
    assert [(s["name"], s["kind"], s["startLine"]) for s in symbols["symbols"]] == [
        ("circle_area", "function", 6),
        ("report", "function", 11),
    ]
    # It offers no hover: the answer says so rather than failing.
    hover = result_of(await gw.lsp_hover([use]))
    assert hover["error"]["code"] == "LSP_NOT_AVAILABLE"
    assert "does not support hover" in hover["error"]["message"]
    # Its parse cache goes to octo's cache directory, not under the project's .vscode.
    assert not (PERL / ".vscode").exists()
