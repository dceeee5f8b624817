"""lspCallHierarchy: who calls a function, or what it calls, to depth 1-3, paged.

When some functions' calls could not be had (a request timed out, the server failed on
it), the answer holds the calls found, is flagged partial and says what failed. When no
request was answered: a timeout still answers with the function itself, partial, and the
retry in a hint; any other failure is the query's own error.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.errors import ErrorCode
from octo.core.errors import NotFoundError
from octo.core.formats import compact_json
from octo.core.paging import page_of
from octo.lsp.call_walk import FAN_OUT
from octo.lsp.call_walk import MAX_NODES
from octo.lsp.call_walk import Edge
from octo.lsp.call_walk import Failure
from octo.lsp.call_walk import Walk
from octo.lsp.call_walk import item_key
from octo.lsp.call_walk import walk_calls
from octo.lsp.client import MalformedReplyError
from octo.lsp.locations import SeenFile
from octo.lsp.locations import code_location
from octo.lsp.locations import page_hints
from octo.lsp.locations import path_of
from octo.lsp.locations import range_of
from octo.lsp.locations import see_files
from octo.lsp.locations import withheld_hints
from octo.lsp.models import Call
from octo.lsp.models import CallEnd
from octo.lsp.models import CallHierarchyQuery
from octo.lsp.models import CallHierarchyResult
from octo.lsp.target import Target
from octo.lsp.target import answer
from octo.lsp.target import ask
from octo.lsp.target import find_target
from octo.lsp.target import require


def _end(seen: dict[Path, SeenFile], item: Mapping[str, Any]) -> CallEnd:
    file = seen[path_of(str(item["uri"]))]
    return CallEnd(
        name=str(item.get("name", "?")),
        uri=file.uri,
        range=range_of(item.get("selectionRange") or item.get("range")),
        external=True if file.external else None,
        withheld=file.withheld,
    )


def _call(seen: dict[Path, SeenFile], edge: Edge, context: int) -> Call:
    caller, callee = _end(seen, edge.caller), _end(seen, edge.callee)
    caller_file = seen[path_of(str(edge.caller["uri"]))]
    site = edge.from_ranges[0] if edge.from_ranges else caller.range
    shown = code_location(caller_file, site, context)
    return Call.model_validate(
        {
            "from": caller,
            "to": callee,
            "fromRanges": edge.from_ranges,
            "content": shown.content if shown else None,
            "contextBefore": shown.contextBefore if shown else None,
            "contextAfter": shown.contextAfter if shown else None,
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
    walk: Walk, target: Target, query: CallHierarchyQuery, deadline: float
) -> list[str]:
    """What kept the walk from the whole hierarchy, each with the call to make next."""
    hints: list[str] = []
    failed: dict[ErrorCode, list[Failure]] = {}
    for failure in walk.failures:
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
    if walk.stopped_at is not None:
        lower = max(1, walk.stopped_at - 1)
        hints.append(
            f"TIMEOUT: the walk stopped at its {deadline:g} s deadline before depth "
            f"{walk.stopped_at}; retry, or lower depth: {_retry(target, query, lower)}."
        )
    if walk.cut:
        hints.append(
            f"The call hierarchy was cut by a size limit ({FAN_OUT} calls per function, "
            f"{MAX_NODES} functions): lower depth to see it whole."
        )
    return hints


async def call_hierarchy(
    ctx: QueryContext, query: CallHierarchyQuery
) -> Answer[CallHierarchyResult]:
    """Callers (incoming) or callees (outgoing) of a function, to depth 1-3, paged."""
    target = await find_target(ctx, query)
    slot = target.slot
    require(slot, "callHierarchyProvider", "call hierarchy")
    items = await ask(slot, lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, target.params())
    if not isinstance(items, list) or not items:
        raise NotFoundError(
            f"'{query.symbolName}' at line {target.resolved.line} is not a function the server "
            "can build a call hierarchy for",
            hints=["Point at a function or method name (its definition or a call)."],
        )
    root = items[0]
    if not isinstance(root, Mapping) or not isinstance(root.get("uri"), str):
        raise MalformedReplyError(f"Bad call hierarchy item: {root!r:.100}")
    deadline = slot.pool.settings.calls_deadline
    walk = await walk_calls(
        slot,
        root,
        incoming=query.direction == "incoming",
        depth=query.depth,
        paths=ctx.paths,
        deadline=deadline,
    )
    if walk.failures and not walk.answered:
        first = walk.failures[0].error
        # Timed out: the function is known, its calls were not had in time; that is a
        # partial answer (with the retry in a hint). Any other failure is the query's error.
        if first.code is not ErrorCode.TIMEOUT:
            raise first
    edges = sorted(walk.edges, key=lambda e: (e.depth, item_key(e.caller), item_key(e.callee)))
    chosen, pagination = page_of(edges, query.callsPerPage, query.page)
    files = [path_of(root["uri"])]
    files += [path_of(str(item["uri"])) for edge in chosen for item in (edge.caller, edge.callee)]
    seen = await see_files(ctx.paths, files, query)
    result = CallHierarchyResult(
        resolved=target.resolved,
        server=slot.server_id,
        item=_end(seen, root),
        calls=[_call(seen, edge, query.contextLines) for edge in chosen],
        totalCalls=len(edges),
        pagination=pagination,
    )
    hints = [
        *_limit_hints(walk, target, query, deadline),
        *page_hints(pagination, len(edges), "calls"),
        *withheld_hints(query, seen.values()),
    ]
    partial = bool(walk.failures) or walk.cut or walk.stopped_at is not None
    return answer(target, result, hints, partial=partial)
