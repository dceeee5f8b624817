"""The three LSP operations: resolve the symbol, ask the pool's server, shape the answer."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote, urlparse

import anyio
from lsprotocol import types as lsp

from octo.core.errors import LspNotAvailableError, NotFoundError
from octo.core.paths import PathPolicy
from octo.core.redaction import redact
from octo.lsp.client import MalformedReplyError
from octo.lsp.models import (
    Call,
    CallEnd,
    CallHierarchyQuery,
    CallHierarchyResult,
    CodeLocation,
    FindReferencesQuery,
    FindReferencesResult,
    GotoDefinitionQuery,
    GotoDefinitionResult,
    LspPagination,
    Position,
    Range,
    ResolvedSymbol,
)
from octo.lsp.pool import LspPool, ServerSlot
from octo.lsp.symbols import resolve_symbol, split_lines

if TYPE_CHECKING:
    from octo.legacy import QueryRun

T = TypeVar("T")

_MAX_LINE = 200
#: Call hierarchy limits: callers/callees kept per function, functions visited in total.
_FAN_OUT = 50
_MAX_NODES = 200


@dataclass
class _Target:
    """The queried symbol, and the server that knows about its file."""

    path: Path
    slot: ServerSlot
    resolved: ResolvedSymbol
    position: dict[str, int]

    @property
    def text_document(self) -> dict[str, str]:
        return {"uri": self.path.as_uri()}


async def _target(run: QueryRun, uri: str, symbol: str, line_hint: int, order: int) -> _Target:
    path = run.paths.resolve(uri)
    if not path.is_file():
        raise NotFoundError(
            f"'{uri}' is not a file", hints=["Find the file first with localFindFiles."]
        )
    allowed_root = run.paths.root_of(path)
    assert allowed_root is not None  # resolve() guarantees it
    pool = run.provider(LspPool)
    language = pool.language(path)
    text = path.read_text(encoding="utf-8", errors="replace")
    found = resolve_symbol(text, symbol, line_hint, order, language=language.language_id)
    if found.line_offset:
        run.hint(f"'{symbol}' was found on line {found.line + 1}, not on line {line_hint}.")
    slot = await pool.acquire(path, allowed_root)
    client = slot.live_client()
    client.sync_document(path, text, language.language_id)
    if not slot.settled:
        # The first answers of a fresh server can point at the wrong place while it indexes.
        await client.progress.settle(slot.settle_cap)
        slot.settled = True
        slot.pool.touch(slot)
    resolved = ResolvedSymbol(
        line=found.line + 1,
        character=found.character,
        lineOffset=found.line_offset,
        text=found.text,
    )
    return _Target(path, slot, resolved, {"line": found.line, "character": found.character})


async def _ask(slot: ServerSlot, method: str, params: dict[str, Any]) -> Any:
    """One request; asked again once indexing ends when the server was busy while answering.

    typescript-language-server first points at the import line, clangd at the header,
    until their indexing is done.
    """
    result = await slot.request(method, params)
    client = slot.client
    if client is not None and client.progress.busy:
        await client.progress.settle(slot.settle_cap)
        result = await slot.request(method, params)
    return result


def _require(slot: ServerSlot, capability: str, what: str) -> None:
    if not slot.live_client().supports(capability):
        raise LspNotAvailableError(
            f"{slot.server_id} does not support {what}",
            hints=[
                "Choose a server that does with OCTO_LSP_<LANGUAGE>_SERVERS "
                "(basedpyright, pyright, ty, tsgo, typescript-language-server, clangd, gopls).",
                "localSearchCode finds the symbol's uses by text meanwhile.",
            ],
        )


def _flag_partial(run: QueryRun, slot: ServerSlot) -> bool | None:
    client = slot.client
    if client is not None and client.progress.busy:
        run.hint(f"{slot.server_id} is still indexing: the answer may be partial; retry shortly.")
        return True
    return None


@lru_cache(maxsize=256)
def _file_lines(path: Path, mtime_ns: int, size: int) -> tuple[str, ...]:
    return tuple(split_lines(path.read_text(encoding="utf-8", errors="replace")))


def _lines_of(path: Path) -> tuple[str, ...]:
    try:
        stat = path.stat()
        return _file_lines(path, stat.st_mtime_ns, stat.st_size)
    except OSError:
        return ()


def _cut(line: str) -> str:
    line = line.rstrip()
    return redact(line if len(line) <= _MAX_LINE else line[:_MAX_LINE] + "...")


def _path_of(uri: str) -> Path:
    if not uri.startswith("file:"):
        raise MalformedReplyError(f"Language server returned a non-file URI: {uri[:100]}")
    return Path(unquote(urlparse(uri).path))


def _range(raw: Any) -> Range:
    try:
        start, end = raw["start"], raw["end"]
        return Range(
            start=Position(line=int(start["line"]) + 1, character=int(start["character"])),
            end=Position(line=int(end["line"]) + 1, character=int(end["character"])),
        )
    except (KeyError, TypeError, ValueError):
        raise MalformedReplyError(f"Language server returned a bad range: {raw!r:.100}") from None


@dataclass(frozen=True)
class _Place:
    path: Path
    range: Range


def _places(result: Any) -> list[_Place]:
    """Location | Location[] | LocationLink[] | None as places, deduplicated and sorted."""
    if result is None:
        return []
    items = result if isinstance(result, list) else [result]
    places: dict[tuple[str, int, int], _Place] = {}
    for item in items:
        if not isinstance(item, Mapping):
            raise MalformedReplyError(f"Language server returned a bad location: {item!r:.100}")
        if "targetUri" in item:
            uri, raw = (
                item["targetUri"],
                item.get("targetSelectionRange") or item.get("targetRange"),
            )
        else:
            uri, raw = item.get("uri"), item.get("range")
        if not isinstance(uri, str):
            raise MalformedReplyError(f"Language server returned a bad location: {item!r:.100}")
        place = _Place(_path_of(uri), _range(raw))
        places[(str(place.path), place.range.start.line, place.range.start.character)] = place
    return sorted(places.values(), key=lambda p: (str(p.path), p.range.start.line))


def _display(paths: PathPolicy, path: Path) -> tuple[str, Path | None]:
    """(uri shown to the caller, readable real path or None when outside the roots)."""
    real = path.resolve()
    if paths.root_of(real) is None:
        return str(path), None
    return paths.relative(real), real


def _location(paths: PathPolicy, place: _Place, context: int) -> CodeLocation:
    shown, readable = _display(paths, place.path)
    if readable is None:
        return CodeLocation(uri=shown, range=place.range, external=True)
    lines = _lines_of(readable)
    index = place.range.start.line - 1
    if not 0 <= index < len(lines):
        return CodeLocation(uri=shown, range=place.range)
    # Empty lists are left out like None: every location would repeat them.
    return CodeLocation(
        uri=shown,
        range=place.range,
        content=_cut(lines[index]),
        contextBefore=[_cut(line) for line in lines[max(0, index - context) : index]] or None,
        contextAfter=[_cut(line) for line in lines[index + 1 : index + 1 + context]] or None,
    )


def _page(items: Sequence[T], per_page: int, page: int) -> tuple[list[T], LspPagination]:
    total_pages = max(1, math.ceil(len(items) / per_page))
    chosen = list(items[(page - 1) * per_page : page * per_page])
    return chosen, LspPagination(
        currentPage=page, totalPages=total_pages, hasMore=page < total_pages
    )


def _page_hints(run: QueryRun, pagination: LspPagination, total: int, what: str) -> None:
    if pagination.currentPage > pagination.totalPages and total:
        run.hint(f"Page {pagination.currentPage} is past the last page ({pagination.totalPages}).")
    elif pagination.hasMore:
        run.hint(
            f"{total} {what} in all: ask for page={pagination.currentPage + 1} for the next ones."
        )


async def goto_definition(run: QueryRun, query: GotoDefinitionQuery) -> GotoDefinitionResult:
    """Definitions of the symbol at uri near lineHint."""
    target = await _target(run, query.uri, query.symbolName, query.lineHint, query.orderHint)
    _require(target.slot, "definitionProvider", "go to definition")
    params = {"textDocument": target.text_document, "position": target.position}
    places = _places(await _ask(target.slot, lsp.TEXT_DOCUMENT_DEFINITION, params))
    definitions = [_location(run.paths, p, query.contextLines) for p in places]
    if not definitions:
        run.hint(
            "The server found no definition: check the name and line, or use lspFindReferences."
        )
    else:
        run.hint("Next: lspFindReferences or lspCallHierarchy on the definition's line.")
    return GotoDefinitionResult(
        resolved=target.resolved,
        server=target.slot.server_id,
        partial=_flag_partial(run, target.slot),
        definitions=definitions,
    )


async def find_references(run: QueryRun, query: FindReferencesQuery) -> FindReferencesResult:
    """References to the symbol, paged."""
    target = await _target(run, query.uri, query.symbolName, query.lineHint, query.orderHint)
    _require(target.slot, "referencesProvider", "find references")
    params = {
        "textDocument": target.text_document,
        "position": target.position,
        "context": {"includeDeclaration": query.includeDeclaration},
    }
    places = _places(await _ask(target.slot, lsp.TEXT_DOCUMENT_REFERENCES, params))
    chosen, pagination = _page(places, query.referencesPerPage, query.page)
    _page_hints(run, pagination, len(places), "references")
    return FindReferencesResult(
        resolved=target.resolved,
        server=target.slot.server_id,
        partial=_flag_partial(run, target.slot),
        references=[_location(run.paths, p, query.contextLines) for p in chosen],
        totalReferences=len(places),
        pagination=pagination,
    )


def _item_key(item: Mapping[str, Any]) -> tuple[str, int, int]:
    start = item.get("selectionRange", {}).get("start", {})
    return (str(item.get("uri")), int(start.get("line", -1)), int(start.get("character", -1)))


def _call_end(paths: PathPolicy, item: Any) -> tuple[CallEnd, Path | None]:
    if not isinstance(item, Mapping) or not isinstance(item.get("uri"), str):
        raise MalformedReplyError(f"Language server returned a bad call item: {item!r:.100}")
    shown, readable = _display(paths, _path_of(item["uri"]))
    end = CallEnd(
        name=str(item.get("name", "?")),
        uri=shown,
        range=_range(item.get("selectionRange") or item.get("range")),
        external=True if readable is None else None,
    )
    return end, readable


@dataclass
class _Edge:
    depth: int
    caller: Mapping[str, Any]
    callee: Mapping[str, Any]
    from_ranges: list[Any]


async def _ask_each(slot: ServerSlot, method: str, items: list[Mapping[str, Any]]) -> list[Any]:
    """One hop of the hierarchy: ask about every item concurrently (the slot bounds in-flight)."""
    answers: list[Any] = [None] * len(items)

    async def ask(index: int, item: Mapping[str, Any]) -> None:
        answers[index] = await slot.request(method, {"item": item})

    async with anyio.create_task_group() as tg:
        for index, item in enumerate(items):
            tg.start_soon(ask, index, item)
    return answers


async def _walk(
    slot: ServerSlot, root: Mapping[str, Any], incoming: bool, depth: int, paths: PathPolicy
) -> tuple[list[_Edge], bool]:
    """Breadth-first calls from ``root``; returns the edges and whether a limit cut the walk."""
    method = lsp.CALL_HIERARCHY_INCOMING_CALLS if incoming else lsp.CALL_HIERARCHY_OUTGOING_CALLS
    visited = {_item_key(root)}
    frontier: list[Mapping[str, Any]] = [root]
    edges: dict[tuple[tuple[str, int, int], str, str], _Edge] = {}
    cut = False
    with anyio.move_on_after(slot.pool.settings.calls_deadline) as deadline:
        for level in range(1, depth + 1):
            answers = await _ask_each(slot, method, frontier)
            next_frontier: list[Mapping[str, Any]] = []
            for item, calls in zip(frontier, answers, strict=True):
                if not isinstance(calls, list):
                    calls = []
                cut = cut or len(calls) > _FAN_OUT
                for call in calls[:_FAN_OUT]:
                    if not isinstance(call, Mapping):
                        raise MalformedReplyError(f"Bad call hierarchy entry: {call!r:.100}")
                    other = call.get("from") if incoming else call.get("to")
                    if not isinstance(other, Mapping):
                        raise MalformedReplyError(f"Bad call hierarchy entry: {call!r:.100}")
                    ranges = list(call.get("fromRanges") or [])
                    caller, callee = (other, item) if incoming else (item, other)
                    edge_key = (_item_key(item), str(other.get("uri")), str(other.get("name")))
                    if edge_key in edges:
                        # Overloads (print in typeshed) come back as one edge per signature.
                        edges[edge_key].from_ranges.extend(
                            r for r in ranges if r not in edges[edge_key].from_ranges
                        )
                    else:
                        edges[edge_key] = _Edge(level, caller, callee, ranges)
                    key = _item_key(other)
                    if key in visited:
                        continue
                    visited.add(key)
                    inside = _display(paths, _path_of(str(other.get("uri"))))[1] is not None
                    if inside and len(visited) <= _MAX_NODES:
                        next_frontier.append(other)
                    cut = cut or len(visited) > _MAX_NODES
            frontier = next_frontier
            if not frontier:
                break
    return list(edges.values()), cut or deadline.cancelled_caught


def _call(paths: PathPolicy, edge: _Edge, context: int) -> Call:
    caller, caller_path = _call_end(paths, edge.caller)
    callee, _ = _call_end(paths, edge.callee)
    ranges = [_range(r) for r in edge.from_ranges]
    site = _Place(caller_path or Path(caller.uri), ranges[0] if ranges else caller.range)
    shown = _location(paths, site, context) if caller_path else None
    return Call.model_validate(
        {
            "from": caller,
            "to": callee,
            "fromRanges": ranges,
            "content": shown.content if shown else None,
            "contextBefore": shown.contextBefore if shown else None,
            "contextAfter": shown.contextAfter if shown else None,
            "depth": edge.depth,
        }
    )


async def call_hierarchy(run: QueryRun, query: CallHierarchyQuery) -> CallHierarchyResult:
    """Callers (incoming) or callees (outgoing) of a function, to depth 1-3, paged."""
    target = await _target(run, query.uri, query.symbolName, query.lineHint, query.orderHint)
    _require(target.slot, "callHierarchyProvider", "call hierarchy")
    params = {"textDocument": target.text_document, "position": target.position}
    items = await _ask(target.slot, lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, params)
    if not isinstance(items, list) or not items:
        raise NotFoundError(
            f"'{query.symbolName}' at line {target.resolved.line} is not a function the server "
            "can build a call hierarchy for",
            hints=["Point at a function or method name (its definition or a call)."],
        )
    root = items[0]
    if not isinstance(root, Mapping):
        raise MalformedReplyError(f"Bad call hierarchy item: {root!r:.100}")
    edges, cut = await _walk(
        target.slot, root, query.direction == "incoming", query.depth, run.paths
    )
    if cut:
        run.hint("The call hierarchy was cut by a time or size limit: lower depth to see it whole.")
    edges.sort(key=lambda e: (e.depth, _item_key(e.caller), _item_key(e.callee)))
    chosen, pagination = _page(edges, query.callsPerPage, query.page)
    _page_hints(run, pagination, len(edges), "calls")
    item, _ = _call_end(run.paths, root)
    return CallHierarchyResult(
        resolved=target.resolved,
        server=target.slot.server_id,
        partial=True if cut else _flag_partial(run, target.slot),
        item=item,
        calls=[_call(run.paths, e, query.contextLines) for e in chosen],
        totalCalls=len(edges),
        pagination=pagination,
    )
