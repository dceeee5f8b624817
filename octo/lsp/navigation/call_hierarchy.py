"""lspCallHierarchy: who calls a function, or what it calls, to depth 1-3, paged.

When some functions' calls could not be had (a request timed out, the server failed on
it), the answer holds the calls found, is flagged partial and says what failed. When no
request was answered in time, the next server of the language is asked (within what is left
of the expansion's deadline); when none is left, the answer is the function itself, partial,
with the retry in a hint. Any other failure is the query's own error.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_of
from octo.core.errors import ErrorCode
from octo.core.errors import NotFoundError
from octo.core.formats import compact_json
from octo.lsp.models import Call
from octo.lsp.models import CallEnd
from octo.lsp.models import CallHierarchyQuery
from octo.lsp.models import CallHierarchyResult
from octo.lsp.navigation.call_graph import FAN_OUT
from octo.lsp.navigation.call_graph import MAX_NODES
from octo.lsp.navigation.call_graph import ROOT_CALLS
from octo.lsp.navigation.call_graph import CallGraph
from octo.lsp.navigation.call_graph import Edge
from octo.lsp.navigation.call_graph import Failure
from octo.lsp.navigation.call_graph import expand_calls
from octo.lsp.navigation.call_graph import item_key
from octo.lsp.navigation.locations import SeenFile
from octo.lsp.navigation.locations import code_location
from octo.lsp.navigation.locations import path_of
from octo.lsp.navigation.locations import range_of
from octo.lsp.navigation.locations import see_files
from octo.lsp.navigation.locations import withheld_hints
from octo.lsp.navigation.next_calls import body_hint
from octo.lsp.navigation.next_calls import call_page_hints
from octo.lsp.navigation.next_calls import further_hint
from octo.lsp.navigation.next_calls import no_calls_hint
from octo.lsp.navigation.next_calls import outside_roots
from octo.lsp.navigation.target import Target
from octo.lsp.navigation.target import answer
from octo.lsp.navigation.target import ask
from octo.lsp.navigation.target import navigate
from octo.lsp.navigation.target import require
from octo.lsp.servers.wire.client import MalformedReplyError


def _end(seen: dict[Path, SeenFile], item: Mapping[str, Any]) -> CallEnd:
    file = seen[path_of(str(item["uri"]))]
    name = range_of(item.get("selectionRange") or item.get("range")).start
    return CallEnd(
        name=str(item.get("name", "?")),
        path=file.path,
        line=name.line,
        character=name.character,
        external=True if file.external else None,
        withheld=file.withheld,
    )


def _call(seen: dict[Path, SeenFile], edge: Edge, context: int, asked: Any) -> Call:
    """``edge`` as a call, leaving out the end that is the ``asked`` function (its key)."""
    caller_file = seen[path_of(str(edge.caller["uri"]))]
    name = range_of(edge.caller.get("selectionRange") or edge.caller.get("range"))
    site = edge.from_ranges[0] if edge.from_ranges else name
    shown = code_location(caller_file, site, context)
    ends = {
        side: None if item_key(item) == asked else _end(seen, item)
        for side, item in (("from", edge.caller), ("to", edge.callee))
    }
    return Call.model_validate(
        {
            **ends,
            "callSites": [where.start for where in edge.from_ranges],
            "content": shown.content if shown else None,
            "contextBefore": shown.contextBefore if shown else [],
            "contextAfter": shown.contextAfter if shown else [],
            "depth": edge.depth,
        }
    )


def _retry(target: Target, query: CallHierarchyQuery, depth: int) -> str:
    """The query again, pointed at the resolved line, at ``depth``."""
    again = {
        "uri": query.uri,
        "symbolName": query.symbolName,
        "lineHint": target.resolved.line,
        "direction": query.direction,
        "depth": depth,
    }
    return f"lspCallHierarchy {compact_json(again)}"


def _limit_hints(
    graph: CallGraph, target: Target, query: CallHierarchyQuery, deadline: float
) -> list[str]:
    """What kept the expansion from the whole hierarchy, each with the call to make next."""
    hints: list[str] = []
    failed: dict[ErrorCode, list[Failure]] = {}
    for failure in graph.failures:
        failed.setdefault(failure.error.code, []).append(failure)
    for code, failures in failed.items():
        first = failures[0]
        lower = max(1, min(f.depth for f in failures) - 1)
        advice = (
            "retry (the server may still be indexing)" if code is ErrorCode.TIMEOUT else "retry"
        )
        if lower < query.depth:
            advice += f", or lower depth: {_retry(target, query, lower)}"
        names = ", ".join(str(f.item.get("name", "?")) for f in failures[:3])
        more = f" and {len(failures) - 3} more" if len(failures) > 3 else ""
        hints.append(
            f"{code.value}: the calls of {names}{more} are missing ({first.error.message});"
            f" {advice}."
        )
    if graph.stopped_at is not None:
        lower = max(1, graph.stopped_at - 1)
        advice = f", or lower depth: {_retry(target, query, lower)}" if lower < query.depth else ""
        hints.append(
            f"TIMEOUT: the call graph's expansion stopped at its {deadline:g} s deadline before depth "
            f"{graph.stopped_at}; retry{advice}."
        )
    if graph.cut:
        limits = (
            f"{FAN_OUT} calls per function below the first level, {MAX_NODES} functions"
            if query.depth > 1
            else f"{ROOT_CALLS} calls"
        )
        advice = "lower depth to see it whole" if query.depth > 1 else "lspFindReferences lists all"
        hints.append(f"The call hierarchy was cut by a size limit ({limits}): {advice}.")
    return hints


def _read_hints(
    seen: dict[Path, SeenFile], chosen: list[Edge], query: CallHierarchyQuery
) -> list[str]:
    """Read a function of the page: its first caller (incoming) or callee (outgoing) inside
    the allowed roots."""
    incoming = query.direction == "incoming"
    hints: list[str] = []
    for edge in chosen:
        item = edge.caller if incoming else edge.callee
        file = seen[path_of(str(item["uri"]))]
        if file.external:
            continue
        extent = range_of(item.get("range") or item.get("selectionRange"))
        what = f"the {'caller' if incoming else 'callee'} {item.get('name', '?')}"
        hints.append(body_hint(what, file, extent.start.line, extent.end.line))
        break
    else:
        if chosen:
            item = chosen[0].caller if incoming else chosen[0].callee
            hints.append(outside_roots(seen[path_of(str(item["uri"]))]))
    return hints


async def _far_end(
    ctx: QueryContext, edges: list[Edge], query: CallHierarchyQuery
) -> tuple[SeenFile, str, int] | None:
    """A function at the last level reached, inside the allowed roots, to go on from."""
    incoming = query.direction == "incoming"
    deepest = [e.caller if incoming else e.callee for e in edges if e.depth == query.depth]
    files = await see_files(ctx.paths, [path_of(str(i["uri"])) for i in deepest], None, read=False)
    for item in deepest:
        file = files[path_of(str(item["uri"]))]
        if not file.external:
            where = range_of(item.get("selectionRange") or item.get("range"))
            return file, str(item.get("name", "?")), where.start.line
    return None


async def call_hierarchy(
    ctx: QueryContext, query: CallHierarchyQuery
) -> Answer[CallHierarchyResult]:
    """Callers (incoming) or callees (outgoing) of a function, to depth 1-3, paged."""
    ends_at: float | None = None

    async def run(target: Target, last: bool) -> Answer[CallHierarchyResult]:
        nonlocal ends_at
        slot = target.slot
        require(slot, "callHierarchyProvider", "call hierarchy")
        items = await ask(slot, lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, target.params())
        if not isinstance(items, list) or not items:
            raise NotFoundError(
                f"'{query.symbolName}' at line {target.resolved.line} is not a function the "
                "server can build a call hierarchy for",
                hints=["Point at a function or method name (its definition or a call)."],
            )
        root = items[0]
        if not isinstance(root, Mapping) or not isinstance(root.get("uri"), str):
            raise MalformedReplyError(f"Bad call hierarchy item: {root!r:.100}")
        deadline = slot.pool.settings.calls_deadline
        # One deadline for the expansion, whichever server expands: a fallback gets what is left.
        if ends_at is None:
            ends_at = anyio.current_time() + deadline
        graph = await expand_calls(
            slot,
            root,
            incoming=query.direction == "incoming",
            depth=query.depth,
            paths=ctx.paths,
            deadline=ends_at - anyio.current_time(),
        )
        if graph.failures and not graph.answered:
            first = graph.failures[0].error
            # Timed out: the function is known, its calls were not had in time. The next
            # server may answer; with none left, that is a partial answer (with the retry
            # in a hint). Any other failure is the query's error.
            if first.code is not ErrorCode.TIMEOUT or not last:
                raise first
        return await _answer(ctx, query, target, root, graph, deadline)

    return await navigate(ctx, query, run)


async def _answer(
    ctx: QueryContext,
    query: CallHierarchyQuery,
    target: Target,
    root: Mapping[str, Any],
    graph: CallGraph,
    deadline: float,
) -> Answer[CallHierarchyResult]:
    edges = sorted(graph.edges, key=lambda e: (e.depth, item_key(e.caller), item_key(e.callee)))
    chosen, pagination = page_of(edges, query.callsPerPage, query.page)
    files = [path_of(root["uri"])]
    files += [path_of(str(item["uri"])) for edge in chosen for item in (edge.caller, edge.callee)]
    seen = await see_files(ctx.paths, files, query)
    result = CallHierarchyResult(
        resolved=target.resolved,
        server=target.slot.server_id,
        item=_end(seen, root),
        calls=[_call(seen, edge, query.contextLines, item_key(root)) for edge in chosen],
        totalCalls=len(edges),
        pagination=pagination,
    )
    partial = bool(graph.failures) or graph.cut or graph.stopped_at is not None
    hints = [
        *_limit_hints(graph, target, query, deadline),
        *call_page_hints(query, pagination, len(edges)),
        *withheld_hints(query, seen.values()),
    ]
    if chosen:
        hints += _read_hints(seen, chosen, query)
        hints += further_hint(query, target.resolved.line, await _far_end(ctx, edges, query))
    elif not edges and not partial:
        hints.append(no_calls_hint(query, target.resolved.line))
    return answer(target, result, hints, partial=partial)
