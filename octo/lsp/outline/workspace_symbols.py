"""lspWorkspaceSymbols: symbols across a project by name ("where is class X defined"),
ranked exact > prefix > fuzzy, narrowed by kind and folder."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from typing import Literal

import anyio
from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_hints
from octo.core.budget import page_of
from octo.core.errors import LspNotAvailableError
from octo.core.files.confined import open_confined
from octo.core.files.paths import PathPolicy
from octo.core.secrets.sensitive import Withheld
from octo.lsp.navigation.locations import kind_name
from octo.lsp.navigation.locations import path_of
from octo.lsp.navigation.locations import range_of
from octo.lsp.navigation.locations import see_files
from octo.lsp.navigation.next_calls import symbol_call
from octo.lsp.navigation.target import FileRead
from octo.lsp.navigation.target import FileTarget
from octo.lsp.navigation.target import answer
from octo.lsp.navigation.target import ask
from octo.lsp.navigation.target import on_servers
from octo.lsp.navigation.target import require
from octo.lsp.outline.models import FoundSymbolEntry
from octo.lsp.outline.models import WorkspaceSymbolsQuery
from octo.lsp.outline.models import WorkspaceSymbolsResult
from octo.lsp.servers.running.pool import LspPool
from octo.lsp.servers.running.warm import sample_source
from octo.lsp.servers.wire.documents import Source

Match = Literal["exact", "prefix", "fuzzy"]
_RANK: dict[Match, int] = {"exact": 0, "prefix": 1, "fuzzy": 2}


def match_of(name: str, wanted: str) -> Match:
    """How ``name`` matches the query: the same name, one that starts with it, or other."""
    if name == wanted or name.lower() == wanted.lower():
        return "exact"
    return "prefix" if name.lower().startswith(wanted.lower()) else "fuzzy"


def _project(pool: LspPool, paths: PathPolicy, raw: str) -> tuple[FileRead, Path]:
    """A source file to open the project's server on, and the folder symbols must be under."""
    place = paths.resolve(raw)
    root = paths.root_of(place)
    assert root is not None  # resolve() guarantees it
    sample = place if place.is_file() else sample_source(paths, place)
    if sample is None:
        raise LspNotAvailableError(
            f"No source file of a language octo has servers for under '{raw}'",
            hints=["Point uri at a folder with Python, TypeScript, C, Go or Rust files."],
        )
    language = pool.language(sample)
    folder = place if place.is_dir() else place.parent
    with open_confined(root, sample, raw) as opened:
        data, stat = opened.read_bytes(), opened.stat
    source = Source(
        sample, data.decode("utf-8", errors="replace"), (stat.st_mtime_ns, stat.st_size)
    )
    return FileRead(source, root, language), folder


def _entries(reply: Any) -> list[tuple[str, str, str | None, Path, int]]:
    """(name, kind, container, path, 1-based line) of SymbolInformation / WorkspaceSymbol."""
    found = []
    for item in reply if isinstance(reply, list) else []:
        location = item.get("location") if isinstance(item, Mapping) else None
        if not isinstance(location, Mapping) or not isinstance(location.get("uri"), str):
            continue
        where = location.get("range")
        line = range_of(where).start.line if where else 1
        container = item.get("containerName")
        found.append(
            (
                str(item.get("name", "")),
                kind_name(item.get("kind")),
                container if isinstance(container, str) and container else None,
                path_of(location["uri"]),
                line,
            )
        )
    return found


async def workspace_symbols(
    ctx: QueryContext, query: WorkspaceSymbolsQuery
) -> Answer[WorkspaceSymbolsResult]:
    """Symbols named like ``query.query`` in the project of ``query.uri``."""
    pool = ctx.backend(LspPool)
    read, folder = await anyio.to_thread.run_sync(_project, pool, ctx.paths, query.uri)
    kinds = {kind.lower() for kind in query.kinds or ()}

    async def run(target: FileTarget, _last: bool) -> Answer[WorkspaceSymbolsResult]:
        require(target.slot, "workspaceSymbolProvider", "workspace symbols")
        sent = await ask(target.slot, lsp.WORKSPACE_SYMBOL, {"query": query.query})
        entries = [e for e in _entries(sent) if not kinds or e[1] in kinds]
        seen = await see_files(ctx.paths, [e[3] for e in entries], query, read=False)
        shown: list[FoundSymbolEntry] = []
        needed: set[Withheld] = set()
        for name, kind, container, path, line in entries:
            file = seen[path]
            inside = file.absolute == folder or file.absolute.is_relative_to(folder)
            if file.withheld is not None and inside:
                needed.add(file.withheld)
            if file.external or file.withheld or not inside:
                continue
            shown.append(
                FoundSymbolEntry(
                    name=name,
                    kind=kind,
                    container=container,
                    path=file.path,
                    line=line,
                    match=match_of(name, query.query),
                )
            )
        shown.sort(key=lambda s: (_RANK[s.match], len(s.name), s.path, s.line))
        chosen, pagination = page_of(shown, query.symbolsPerPage, query.page)
        result = WorkspaceSymbolsResult(
            server=target.slot.server_id,
            symbols=chosen,
            totalSymbols=len(shown),
            pagination=pagination,
        )
        hints = page_hints(query.tool, query.params(), "page", pagination, len(shown))
        for symbol in chosen[:1]:
            hints.append(
                f"Its uses: {symbol_call('lspFindReferences', symbol.path, symbol.name, symbol.line)}"
            )
            hints.append(
                f"Its signature: {symbol_call('lspHover', symbol.path, symbol.name, symbol.line)}"
            )
        if needed:
            hints.append(
                "Symbols in hidden or credential files were left out; to list them (secrets stay"
                f" redacted): {query.with_opt_ins(sorted(needed))}"
            )
        return answer(target, result, hints)

    return await on_servers(ctx, query, read, run)
