"""The npm language servers of the built-in table, real: intelephense, bash-language-server,
yaml-language-server, the JSON, CSS, HTML, Dockerfile, Svelte and Vue servers answer definition, references, hover and document symbols on fixtures
with known answers (.ci/run installs them into .ci/lsp)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from octo import Gateway
from octo.core.config import Config
from tests.lsp.conftest import FIXTURES
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import skip_unless_installed
from tests.lsp.conftest import success_data

PHP = FIXTURES / "php_project"
SH = FIXTURES / "sh_project"
YAML = FIXTURES / "yaml_project"
WEB = FIXTURES / "web_project"
SVELTE = FIXTURES / "svelte_project"
VUE = FIXTURES / "vue_project"

# Each test starts real npm language servers (node), which index their fixture: 0.7 to 2 s each.
pytestmark = pytest.mark.slow


@pytest.fixture
async def gw() -> AsyncIterator[Gateway]:
    async with Gateway(
        Config.from_env(lsp_env()), roots=[PHP, SH, YAML, WEB, SVELTE, VUE]
    ) as gateway:
        yield gateway


async def test_bash_definition_hover_references_and_symbols(gw: Gateway) -> None:
    skip_unless_installed("bash")
    use = {"uri": str(SH / "main.sh"), "symbolName": "greet", "lineHint": 5}
    definition = success_data(await gw.lsp_goto_definition([use]))
    assert definition["server"] == "bash-language-server"
    (found,) = definition["definitions"]
    assert (found["path"], found["line"]) == ("lib.sh", 3)
    hover = success_data(await gw.lsp_hover([use]))
    assert "Function: **greet**" in hover["markdown"]
    assert "Prints a greeting for its first argument." in hover["markdown"]
    place = {"uri": str(SH / "lib.sh"), "symbolName": "greet", "lineHint": 3}
    references = success_data(await gw.lsp_find_references([place]))
    where = {(r["path"], r["line"]) for r in references["references"]}
    assert where == {("lib.sh", 3), ("main.sh", 5)}
    symbols = success_data(await gw.lsp_document_symbols([{"uri": str(SH / "lib.sh")}]))
    assert symbols["source"] == "lsp"
    assert [(s["name"], s["kind"], s["startLine"]) for s in symbols["symbols"]] == [
        ("greet", "function", 3),
        ("COUNT", "variable", 7),
    ]


async def test_yaml_alias_definition_and_symbols(gw: Gateway) -> None:
    skip_unless_installed("yaml")
    alias = {"uri": str(YAML / "ci.yaml"), "symbolName": "defaults", "lineHint": 6}
    definition = success_data(await gw.lsp_goto_definition([alias]))
    assert definition["server"] == "yaml-language-server"
    (found,) = definition["definitions"]
    assert (found["path"], found["line"]) == ("ci.yaml", 2)
    symbols = success_data(await gw.lsp_document_symbols([{"uri": str(YAML / "ci.yaml")}]))
    top = [(s["name"], s["startLine"]) for s in symbols["symbols"]]
    assert top == [("defaults", 1), ("build", 5), ("test", 9)]
    assert [c["name"] for c in symbols["symbols"][0]["children"]] == ["image", "retries"]


async def test_php_definition_hover_references_and_symbols(gw: Gateway) -> None:
    skip_unless_installed("php")
    use = {"uri": str(PHP / "main.php"), "symbolName": "area", "lineHint": 6}
    definition = success_data(await gw.lsp_goto_definition([use]))
    assert definition["server"] == "intelephense"
    (found,) = definition["definitions"]
    assert (found["path"], found["line"]) == ("Shapes.php", 4)
    hover = success_data(await gw.lsp_hover([use]))
    assert "function area(float $side): float" in hover["markdown"]
    assert "The area of a square with sides of length $side." in hover["markdown"]
    place = {"uri": str(PHP / "Shapes.php"), "symbolName": "area", "lineHint": 4}
    references = success_data(await gw.lsp_find_references([place]))
    where = {(r["path"], r["line"]) for r in references["references"]}
    assert {("Shapes.php", 4), ("Shapes.php", 17), ("main.php", 6)} <= where
    symbols = success_data(await gw.lsp_document_symbols([{"uri": str(PHP / "Shapes.php")}]))
    assert [(s["name"], s["kind"]) for s in symbols["symbols"]] == [
        ("area", "function"),
        ("Square", "class"),
    ]
    methods = [c["name"] for c in symbols["symbols"][1]["children"] if c["kind"] == "method"]
    assert methods == ["area"]


async def test_json_css_and_html(gw: Gateway) -> None:
    for family in ("json", "css", "html"):
        skip_unless_installed(family)
    json_symbols = success_data(await gw.lsp_document_symbols([{"uri": str(WEB / "schema.json")}]))
    assert json_symbols["server"] == "vscode-json-language-server"
    top = [(s["name"], s["startLine"]) for s in json_symbols["symbols"]]
    assert top == [("definitions", 2), ("properties", 5)]
    variable = {"uri": str(WEB / "site.css"), "symbolName": "--accent", "lineHint": 6}
    (found,) = success_data(await gw.lsp_goto_definition([variable]))["definitions"]
    assert (found["path"], found["line"]) == ("site.css", 2)
    selector = {"uri": str(WEB / "site.css"), "symbolName": "button", "lineHint": 5}
    assert "Specificity" in success_data(await gw.lsp_hover([selector]))["markdown"]
    css_symbols = success_data(await gw.lsp_document_symbols([{"uri": str(WEB / "site.css")}]))
    assert [s["name"] for s in css_symbols["symbols"]] == [":root", ".button"]
    element = {"uri": str(WEB / "index.html"), "symbolName": "main", "lineHint": 7}
    assert "main content of the body" in success_data(await gw.lsp_hover([element]))["markdown"]
    html_symbols = success_data(await gw.lsp_document_symbols([{"uri": str(WEB / "index.html")}]))
    assert html_symbols["server"] == "vscode-html-language-server"
    assert html_symbols["symbols"][0]["name"] == "html"


async def test_dockerfile_by_its_file_name(gw: Gateway) -> None:
    skip_unless_installed("dockerfile")
    use = {"uri": str(WEB / "Dockerfile"), "symbolName": "VERSION", "lineHint": 4}
    definition = success_data(await gw.lsp_goto_definition([use]))
    assert definition["server"] == "dockerfile-language-server"
    (found,) = definition["definitions"]
    assert (found["path"], found["line"]) == ("Dockerfile", 1)
    instruction = {"uri": str(WEB / "Dockerfile"), "symbolName": "WORKDIR", "lineHint": 3}
    assert "working directory" in success_data(await gw.lsp_hover([instruction]))["markdown"]
    symbols = success_data(await gw.lsp_document_symbols([{"uri": str(WEB / "Dockerfile")}]))
    assert [s["name"] for s in symbols["symbols"]] == ["ARG", "FROM", "WORKDIR", "RUN"]


async def test_svelte_definition_hover_and_symbols(gw: Gateway) -> None:
    skip_unless_installed("svelte")
    use = {"uri": str(SVELTE / "Counter.svelte"), "symbolName": "double", "lineHint": 6}
    definition = success_data(await gw.lsp_goto_definition([use]))
    assert definition["server"] == "svelte-language-server"
    (found,) = definition["definitions"]
    assert (found["path"], found["line"]) == ("Counter.svelte", 2)
    hover = success_data(await gw.lsp_hover([use]))
    assert "double(value: number): number" in hover["markdown"]
    symbols = success_data(await gw.lsp_document_symbols([{"uri": str(SVELTE / "Counter.svelte")}]))
    script = symbols["symbols"][0]
    assert [(c["name"], c["kind"]) for c in script["children"]] == [
        ("double", "function"),
        ("count", "variable"),
    ]


async def test_vue_definition_hover_references_and_symbols(gw: Gateway) -> None:
    skip_unless_installed("vue")
    use = {"uri": str(VUE / "App.vue"), "symbolName": "circleArea", "lineHint": 5}
    definition = success_data(await gw.lsp_goto_definition([use]))
    assert definition["server"] == "vue-language-server"
    (found,) = definition["definitions"]
    assert (found["path"], found["line"]) == ("shapes.ts", 2)
    hover = success_data(await gw.lsp_hover([use]))
    assert "circleArea(radius: number): number" in hover["markdown"]
    assert "Area of a circle of the given radius." in hover["markdown"]
    references = success_data(await gw.lsp_find_references([use]))
    where = {(r["path"], r["line"]) for r in references["references"]}
    assert where == {("App.vue", 2), ("App.vue", 5), ("shapes.ts", 2)}
    symbols = success_data(await gw.lsp_document_symbols([{"uri": str(VUE / "App.vue")}]))
    assert [(s["name"], s["startLine"]) for s in symbols["symbols"]] == [
        ("script setup", 1),
        ("template", 8),
    ]
