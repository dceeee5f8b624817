"""localDependencyGraph: one operation over the import graph of a root (built once, kept,
refreshed by what changed)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from pathlib import PurePosixPath
from typing import TypeVar
from typing import cast

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_hints
from octo.core.budget import page_of
from octo.core.budget import with_tokens
from octo.core.errors import InvalidQueryError
from octo.core.errors import NotFoundError
from octo.core.errors import PathNotAllowedError
from octo.core.formats import compact_json
from octo.core.secrets.sensitive import withheld
from octo.local.graph.graph import Edge
from octo.local.graph.graph import ImportGraph
from octo.local.graph.imports import DYNAMIC
from octo.local.graph.imports import LAZY
from octo.local.graph.imports import TYPE_ONLY
from octo.local.graph.languages.compiled_modules import COMPILED_SUFFIXES
from octo.local.graph.languages.compiled_modules import is_standard
from octo.local.graph.languages.functional_modules import FUNCTIONAL_SUFFIXES
from octo.local.graph.languages.functional_modules import is_functional_standard
from octo.local.graph.languages.interpreted_modules import INTERPRETED_SUFFIXES
from octo.local.graph.languages.python_modules import is_standard_library
from octo.local.graph.languages.python_modules import script_modules
from octo.local.graph.languages.script_modules import NODE_BUILTINS
from octo.local.graph.languages.script_modules import SCRIPT_SUFFIXES
from octo.local.graph.languages.web_links import WEB_SUFFIXES
from octo.local.graph.models import DependencyGraphQuery
from octo.local.graph.models import DependencyGraphResult
from octo.local.graph.models import GraphItem
from octo.local.graph.models import Hop
from octo.local.graph.sources import is_source
from octo.local.graph.store import BuiltGraph
from octo.local.graph.store import GraphKey
from octo.local.graph.store import GraphStore
from octo.local.graph.store import RootGraph

TOOL = "localDependencyGraph"
PER_PAGE = 50
_DIAGNOSTICS_SHOWN = 20
_TEST_FOLDERS = frozenset({"test", "tests", "testing", "__tests__"})


async def dependency_graph(
    ctx: QueryContext, query: DependencyGraphQuery
) -> Answer[DependencyGraphResult]:
    """The answer to one operation over the import graph of the query's root."""
    key = await anyio.to_thread.run_sync(_key, ctx, query)
    # A build still running at 3/4 of the query's time answers partial (and goes on).
    left = anyio.current_effective_deadline() - anyio.current_time()
    wait = (left if left != math.inf else ctx.config.query_timeout) * 0.75
    state = await ctx.backend(GraphStore).fresh(ctx, key, wait)
    built = state.built
    if built is None:
        return _building(query, key, state)
    items, entries = _items(built, key, query)
    makers, pagination = page_of(items, PER_PAGE, query.page)
    chosen = [
        GraphItem.model_validate(_shown(make().model_dump(exclude_none=True))) for make in makers
    ]
    entries = _shown(entries)
    shown = _shown(built.diagnostics[:_DIAGNOSTICS_SHOWN])
    if len(built.diagnostics) > len(shown):
        shown.append(f"... {len(built.diagnostics) - len(shown)} more")
    partial = state.running is not None or built.truncated
    result = DependencyGraphResult(
        root=str(key.start),
        operation=query.operation,
        files=len(built.graph.files),
        edges=len(built.graph.edges),
        items=chosen,
        totalItems=len(items),
        entryPoints=entries,
        diagnostics=shown or None,
        pagination=pagination,
        partial=True if partial else None,
    )
    next_step = f"page={query.page + 1}" if pagination.hasMore else None
    result = with_tokens(result, ctx.config, next_step=next_step)
    done = Answer(result, partial=partial)
    done.hint(*page_hints(TOOL, query.params(), "page", pagination, len(items)))
    done.hint(*_next_calls(key.start, query, chosen))
    if built.truncated:
        done.hint("The root holds more files than one graph reads; narrow path.")
    elif state.running is not None:
        done.hint("Files changed: the graph is being rebuilt; ask again for the new one.")
    return done


Shown = TypeVar("Shown")


def _shown(value: Shown) -> Shown:
    """``value`` with file names fit for JSON: bytes that are not UTF-8 become U+FFFD."""
    if isinstance(value, str):
        return cast(Shown, value.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
    if isinstance(value, list):
        return cast(Shown, [_shown(item) for item in value])
    if isinstance(value, dict):
        return cast(Shown, {key: _shown(item) for key, item in value.items()})
    return value


def _key(ctx: QueryContext, query: DependencyGraphQuery) -> GraphKey:
    real = ctx.paths.resolve(query.path)
    root = ctx.paths.root_of(real)
    assert root is not None  # resolve() guarantees it
    if not real.is_dir():
        if real.exists():
            raise InvalidQueryError(
                f"'{query.path}' is a file: path is the root folder, file the file asked about",
                hints=[
                    f"{TOOL} "
                    + compact_json({**query.params(), "path": str(real.parent), "file": real.name})
                ],
            )
        raise NotFoundError(
            f"'{query.path}' does not exist",
            hints=[
                "Check the spelling; path is absolute or relative to the first allowed root.",
                "See what exists: localViewStructure " + compact_json({"path": str(root)}),
            ],
        )
    reason = withheld(real, root, hidden=query.hidden, include_sensitive=True, raw=query.path)
    if reason is not None:
        raise PathNotAllowedError(
            f"'{query.path}' is hidden",
            hints=[f"To use it anyway: {TOOL} {compact_json({**query.params(), 'hidden': True})}"],
        )
    return GraphKey(root, real, query.hidden, query.noIgnore, query.includeSensitive)


def _building(
    query: DependencyGraphQuery, key: GraphKey, state: RootGraph
) -> Answer[DependencyGraphResult]:
    progress = (
        f"read {state.parsed} of {state.to_parse} files" if state.to_parse else "listing the files"
    )
    result = DependencyGraphResult(
        root=str(key.start),
        operation=query.operation,
        files=0,
        edges=0,
        items=[],
        totalItems=0,
        pagination=page_of([], PER_PAGE, 1)[1],
        partial=True,
        progress=progress,
    )
    done = Answer(result, partial=True)
    done.hint(
        f"The graph is still being built ({progress}); the same query again uses it when done."
    )
    return done


def _file(built: BuiltGraph, key: GraphKey, raw: str, field: str) -> str:
    """The graph's file for what a query names: a path (absolute, relative to path, or
    relative to the allowed root) or a dotted Python module."""
    start = key.start
    for candidate in (start / raw, key.root / raw):
        try:
            rel = PurePosixPath(os.path.normpath(candidate)).relative_to(start).as_posix()
        except ValueError:
            continue
        if rel in built.records:
            return rel
    module = built.resolvers.modules.file_of(raw)
    if module is not None:
        return module
    raise NotFoundError(
        f"{field} '{raw}' is not a source file of the graph of {start}",
        hints=[
            "Give a path relative to path, or a dotted Python module.",
            "Find it: localFindFiles "
            + compact_json({"path": str(start), "iname": f"*{Path(raw).name}*"}),
        ],
    )


Item = Callable[[], GraphItem]


def _items(
    built: BuiltGraph, key: GraphKey, query: DependencyGraphQuery
) -> tuple[list[Item], list[str] | None]:
    """The operation's items in order, each made when its page is shown (a whole graph's
    items are thousands of models)."""
    graph = built.graph
    operation = query.operation
    if operation in ("dependencies", "dependents"):
        rel = _file(built, key, query.file or "", "file")
        forward = operation == "dependencies"
        reached = graph.reach(rel, query.depth, forward=forward)
        return [
            partial(_reached, edge, distance, forward=forward) for distance, edge in reached
        ], None
    if operation == "path":
        start = _file(built, key, query.file or "", "file")
        goal = _file(built, key, query.target or "", "target")
        chain = graph.path(start, goal)
        if chain is None:
            return [], None
        hops = [_hop(edge) for edge in chain]
        return [partial(GraphItem, file=start, distance=len(chain), hops=hops)], None
    if operation == "cycles":
        cycles = built.memo.get("cycles")
        if cycles is None:
            cycles = built.memo["cycles"] = graph.cycles()
        return [partial(_cycle, graph, members) for members in cycles], None
    if operation == "hotspots":
        fans = built.memo.get("fans")
        if fans is None:
            fans = [(graph.fan(rel), rel) for rel in graph.files]
            fans.sort(key=lambda fan: (-fan[0][0] - fan[0][1], fan[1]))
            built.memo["fans"] = fans
        return [
            partial(GraphItem, file=rel, fanIn=fan_in, fanOut=fan_out)
            for (fan_in, fan_out), rel in fans
            if fan_in or fan_out
        ], None
    entries = (
        [_file(built, key, raw, "entryPoints") for raw in query.entryPoints]
        if query.entryPoints
        else built.memo.get(("entries", query.includeTests))
    )
    if entries is None:
        entries = built.memo[("entries", query.includeTests)] = _detected_entries(
            built, query.includeTests
        )
    memo = ("unreachable", tuple(entries))
    unreachable = built.memo.get(memo)
    if unreachable is None:
        unreachable = built.memo[memo] = _unreachable(
            graph, entries, built.resolvers.modules.packages_of
        )
    return unreachable, entries


def _reached(edge: Edge, distance: int, *, forward: bool) -> GraphItem:
    kinds = [
        name
        for flag, name in ((TYPE_ONLY, "typeOnly"), (LAZY, "lazy"), (DYNAMIC, "dynamic"))
        if edge.flags & flag
    ]
    if edge.target is None and edge.package is None:
        kinds.append("unresolved")
    # Forward, what is reached is the edge's target (or the package it names); backward, the
    # file that imports.
    reached = edge.target or edge.package or edge.spec or "?"
    file, via = (reached, edge.source) if forward else (edge.source, edge.target)
    package = edge.package if forward else None
    return GraphItem(
        file=file,
        distance=distance,
        via=via,
        line=edge.line,
        text=edge.text,
        package=package,
        standardLibrary=True if package and _standard(edge) else None,
        kinds=kinds or None,
    )


def _cycle(graph: ImportGraph, members: list[str]) -> GraphItem:
    hops = [_hop(edge) for edge in graph.witness(members)]
    return GraphItem(file=members[0], size=len(members), members=members, hops=hops)


def _standard(edge: Edge) -> bool:
    """True when the external package is the language's own (Python's, Node's)."""
    package = edge.package or ""
    if edge.source.endswith(SCRIPT_SUFFIXES):
        return package in NODE_BUILTINS
    if edge.source.endswith(COMPILED_SUFFIXES):
        return is_standard(edge.source, package)
    if edge.source.endswith(FUNCTIONAL_SUFFIXES):
        return is_functional_standard(edge.source, package)
    if edge.source.endswith((*INTERPRETED_SUFFIXES, *WEB_SUFFIXES)):
        return False
    return is_standard_library(package)


def _hop(edge: Edge) -> Hop:
    return Hop(
        file=edge.source, line=edge.line, text=edge.text, imports=edge.target or edge.package or "?"
    )


def is_test(rel: str) -> bool:
    """True for a test file (a test folder, ``test_*``/``*_test``, ``conftest.py``)."""
    parts = rel.split("/")
    name = parts[-1].rsplit(".", 1)[0]
    return (
        any(part in _TEST_FOLDERS for part in parts[:-1])
        or name.startswith("test_")
        or name.endswith(("_test", ".test", ".spec"))
        or name == "conftest"
    )


def _detected_entries(built: BuiltGraph, include_tests: bool) -> list[str]:
    """Programs (``__main__.py``, ``if __name__ == "__main__"``, console scripts of
    pyproject.toml and setup.cfg, ``main`` in Go, Java, Kotlin, Scala, C#, C, Haskell, a
    Swift ``@main``, scripts with ``#!``, HTML pages), the top packages of each
    Python source root (a library's API), the files package.json files name, Rust crate
    roots, and tests unless left out."""
    entries = []
    for rel, record in built.records.items():
        if not is_source(rel):
            continue
        name = rel.rsplit("/", 1)[-1]
        if is_test(rel):
            if include_tests:
                entries.append(rel)
            continue
        if name == "__main__.py" or record.runs:
            entries.append(rel)
    resolvers = built.resolvers
    scripts, _ = script_modules(resolvers.scripts.configs)
    entries.extend(f for f in map(resolvers.modules.file_of, scripts) if f is not None)
    entries.extend(resolvers.scripts.entry_points())
    entries.extend(resolvers.compiled.entry_points())
    for module, rel in resolvers.modules.by_name.items():
        if "." not in module and rel.endswith(("__init__.py", "__init__.pyi")):
            entries.append(rel)
    return sorted(set(entries))


def _unreachable(
    graph: ImportGraph, entries: list[str], implied: Callable[[str], list[str]]
) -> list[Item]:
    reached = graph.reached(entries, implied)
    items: list[Item] = []
    for rel in graph.files:
        if rel in reached:
            continue
        importers = sorted({edge.source for edge in graph.in_edges.get(rel, ())})
        if not importers:
            reason = "no file imports it"
        else:
            shown = ", ".join(importers[:3]) + (" ..." if len(importers) > 3 else "")
            reason = f"imported only by unreachable files: {shown}"
        items.append(partial(GraphItem, file=rel, reason=reason))
    return items


def _next_calls(start: Path, query: DependencyGraphQuery, chosen: list[GraphItem]) -> list[str]:
    hints = []
    external = next(
        (
            i
            for i in chosen
            if i.package
            and not i.standardLibrary
            and (i.via or "").endswith((".py", ".pyi", *SCRIPT_SUFFIXES))
        ),
        None,
    )
    for item in chosen[:1]:
        if item.hops:
            hop = item.hops[-1] if query.operation == "cycles" else item.hops[0]
            read = {
                "path": str(start / hop.file),
                "startLine": max(1, hop.line - 3),
                "endLine": hop.line + 3,
            }
            hints.append(f"See the import: localGetFileContent {compact_json(read)}")
            if query.operation == "cycles" and hop.file.endswith((".py", ".pyi")):
                # The last name a Python import binds: where the cycle can be cut.
                name = hop.text.rsplit(" ", 1)[-1].strip("(),")
                where = {"uri": str(start / hop.file), "symbolName": name, "lineHint": hop.line}
                hints.append(f"Who uses the imported name: lspFindReferences {compact_json(where)}")
        elif item.line is not None:
            holder = item.file if query.operation == "dependents" else item.via or item.file
            read = {
                "path": str(start / holder),
                "startLine": max(1, item.line - 3),
                "endLine": item.line + 3,
            }
            hints.append(f"See the import: localGetFileContent {compact_json(read)}")
    if external is not None:
        ecosystem = "python" if (external.via or "").endswith((".py", ".pyi")) else "npm"
        found = {"name": external.package, "ecosystem": ecosystem}
        hints.append(f"About the package: packageSearch {compact_json(found)}")
    return hints
