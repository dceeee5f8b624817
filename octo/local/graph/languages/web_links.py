"""HTML and CSS: the files a page or a stylesheet links, read by ast-grep and resolved.
HTML's ``<script src>`` and ``<link href>`` (stylesheets, modules, icons), CSS's ``@import``
(a string or ``url()``): against the file's folder, or the root for ``/x``. A URL with a
scheme or ``//`` is left out (nothing of the root), and so is a link to no script or
stylesheet (an icon); an HTML page is an entry."""

from __future__ import annotations

import posixpath

from ast_grep_py import SgRoot

from octo.local.graph.graph import Edge
from octo.local.graph.imports import Extracted
from octo.local.graph.imports import RawImport
from octo.local.graph.imports import shown_text
from octo.local.graph.imports import syntax_problem
from octo.local.graph.languages.script_modules import SCRIPT_SUFFIXES

#: ast-grep's grammar for each file suffix.
WEB_GRAMMARS = {".html": "html", ".htm": "html", ".css": "css"}
WEB_SUFFIXES = tuple(WEB_GRAMMARS)
_LINKS = {"script": "src", "link": "href"}


def web_imports(data: bytes, grammar: str) -> Extracted:
    """The files an HTML page or a stylesheet links."""
    if grammar == "html":
        return _html(data)
    return _css(data)


def _html(data: bytes) -> Extracted:
    if b"<script" not in data and b"<link" not in data:
        return Extracted([], runs=True)
    root = SgRoot(data.decode("utf-8", "replace"), "html").root()
    found = []
    for tag in root.find_all(any=[{"kind": "start_tag"}, {"kind": "self_closing_tag"}]):
        name = tag.find(kind="tag_name")
        wanted = _LINKS.get(name.text().lower()) if name is not None else None
        if wanted is None:
            continue
        for attribute in tag.children():
            key = attribute.find(kind="attribute_name")
            value = attribute.find(kind="attribute_value")
            if key is None or value is None or key.text().lower() != wanted:
                continue
            link = value.text().split("?", 1)[0].split("#", 1)[0]
            if link and not _remote(link):
                found.append(RawImport(tag.range().start.line + 1, shown_text(tag.text()), link))
    return Extracted(found, runs=True)


def _css(data: bytes) -> Extracted:
    # ``@import`` comes before every other rule: only its lines are parsed.
    lines: list[bytes] = []
    origins: list[int] = []
    for number, text in enumerate(data.split(b"\n")):
        if text.lstrip().startswith(b"@import"):
            lines.append(text)
            origins.append(number)
    if not lines:
        return Extracted([])
    root = SgRoot(b"\n".join(lines).decode("utf-8", "replace"), "css").root()
    found = []
    for node in root.find_all(kind="import_statement"):
        value = node.find(any=[{"kind": "string_content"}, {"kind": "plain_value"}])
        if value is not None and not _remote(value.text()):
            line = origins[node.range().start.line] + 1
            found.append(RawImport(line, shown_text(node.text()), value.text()))
    return Extracted(found, problem=syntax_problem(root))


def _remote(link: str) -> bool:
    return link.startswith("//") or ":" in link.split("/", 1)[0]


class WebLinks:
    """What the links of a root's HTML and CSS files name."""

    def __init__(self, files: frozenset[str]) -> None:
        self.files = files

    def edges(self, rel: str, imports: tuple[RawImport, ...]) -> tuple[list[Edge], list[str]]:
        """The edges of ``rel``'s links, and the links to no file of the root."""
        edges: list[Edge] = []
        problems: list[str] = []
        for raw in imports:
            base = "" if raw.spec.startswith("/") else posixpath.dirname(rel)
            path = posixpath.normpath(posixpath.join(base, raw.spec.lstrip("/")))
            target = path if path in self.files else None
            if target is None and not raw.spec.endswith((".css", *SCRIPT_SUFFIXES)):
                continue  # an icon, a font, an image: no file of the graph
            if target is None:
                problems.append(f"{rel}:{raw.line}: '{raw.spec}' not found")
            edges.append(Edge(rel, target, None, raw.line, raw.text, raw.flags, raw.spec))
        return edges, problems
