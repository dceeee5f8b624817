"""localDependencyGraph over HTML (``<script src>``, ``<link href>``) and CSS (``@import``):
links against the file's folder or the root, remote URLs and icons left out, a missing
script named; a stylesheet a script imports is its edge."""

from __future__ import annotations

from typing import Any

from tests.local.conftest import Call
from tests.local.conftest import Tree

WEB = {
    "public/index.html": (
        "<!doctype html>\n<html><head>\n"
        '  <link rel="stylesheet" href="css/site.css?v=2">\n'
        '  <link rel="icon" href="favicon.ico">\n'
        '  <script src="https://cdn.example/lib.js"></script>\n'
        '  <script type="module" src="/src/main.js"></script>\n'
        '  <script src="js/gone.js"></script>\n'
        "</head><body></body></html>\n"
    ),
    "public/css/site.css": '@import "base.css";\n@import url(theme/dark.css) screen;\nbody { color: red; }\n',
    "public/css/base.css": "html { margin: 0; }\n",
    "public/css/theme/dark.css": "body { background: black; }\n",
    "src/main.js": 'import "./main.css";\nimport { run } from "./run.js";\nrun();\n',
    "src/main.css": '@import "../public/css/base.css";\n',
    "src/run.js": "export function run() {}\n",
    "unused.css": "p { margin: 0; }\n",
}


async def _one(call: Call, **query: Any) -> dict[str, Any]:
    return (await call("localDependencyGraph", query))[0]


def _files(answer: dict[str, Any]) -> list[str]:
    return [item["file"] for item in answer["data"]["items"]]


async def test_html_and_css_links(call: Call, tree: Tree) -> None:
    tree(WEB)
    page = await _one(call, operation="dependencies", file="public/index.html")
    items = {i["file"]: i for i in page["data"]["items"]}
    assert set(items) == {"public/css/site.css", "src/main.js", "js/gone.js"}
    assert items["src/main.js"]["line"] == 6
    assert items["js/gone.js"]["kinds"] == ["unresolved"]
    assert "public/index.html:7: 'js/gone.js' not found" in page["data"]["diagnostics"]
    base = await _one(call, operation="dependents", file="public/css/base.css", depth=3)
    assert [(i["file"], i["distance"]) for i in base["data"]["items"]] == [
        ("public/css/site.css", 1),
        ("src/main.css", 1),
        ("public/index.html", 2),
        ("src/main.js", 2),
    ]
    unreachable = await _one(call, operation="unreachable")
    assert _files(unreachable) == ["unused.css"]
