"""The call graph of a function: expanded breadth-first over incoming or outgoing calls,
each level's functions asked concurrently.

A function whose request fails (no answer in time, a server error, a malformed reply) is
recorded as a failure and the expansion goes on with the others, so the caller can answer with
the calls found. The whole expansion has one deadline; each request gets what is left of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import anyio
from lsprotocol import types as lsp

from octo.core.concurrency import map_settled
from octo.core.errors import OctoError
from octo.core.files.paths import PathPolicy
from octo.lsp.guards.outside_roots import inside_only
from octo.lsp.models import Range
from octo.lsp.navigation.locations import path_of
from octo.lsp.navigation.locations import range_of
from octo.lsp.navigation.locations import see_files
from octo.lsp.servers.running.pool import ServerSlot
from octo.lsp.servers.wire.client import MalformedReplyError
from octo.lsp.servers.wire.client import RequestTimeoutError

#: Calls kept per function of the deeper levels, and functions visited in all. The asked
#: function's own calls (level 1) are kept up to ROOT_CALLS: they are paged, not cut.
FAN_OUT = 50
MAX_NODES = 200
ROOT_CALLS = 2000

ItemKey = tuple[str, int, int]


def item_key(item: Mapping[str, Any]) -> ItemKey:
    """A call-hierarchy item's identity: its file and where its name starts."""
    start = item.get("selectionRange", {}).get("start", {})
    return (str(item.get("uri")), int(start.get("line", -1)), int(start.get("character", -1)))


@dataclass
class Edge:
    """``caller`` calls ``callee`` at ``from_ranges``; items are the server's own JSON."""

    depth: int
    caller: Mapping[str, Any]
    callee: Mapping[str, Any]
    from_ranges: list[Range]


@dataclass(frozen=True)
class Failure:
    """The calls of ``item`` (at ``depth``) could not be had."""

    depth: int
    item: Mapping[str, Any]
    error: OctoError


@dataclass
class CallGraph:
    """What an expansion of the calls found, and what kept it from finding more."""

    edges: list[Edge] = field(default_factory=list)
    #: Functions whose calls came back, and those whose request failed.
    answered: int = 0
    failures: list[Failure] = field(default_factory=list)
    #: A size limit (calls per function, functions in all) dropped some calls.
    cut: bool = False
    #: The depth the deadline stopped the expansion before, if it did.
    stopped_at: int | None = None


@dataclass(frozen=True)
class _Call:
    other: Mapping[str, Any]
    path: Path
    ranges: list[Range]


def _calls_in(reply: Any, incoming: bool) -> list[_Call]:
    """The calls in an incomingCalls / outgoingCalls reply, checked for their shape."""
    if reply is None:
        return []
    if not isinstance(reply, list):
        raise MalformedReplyError(f"Bad call hierarchy reply: {reply!r:.100}")
    calls = []
    for call in reply:
        other = call.get("from" if incoming else "to") if isinstance(call, Mapping) else None
        if not isinstance(other, Mapping) or not isinstance(other.get("uri"), str):
            raise MalformedReplyError(f"Bad call hierarchy entry: {call!r:.100}")
        range_of(other.get("selectionRange") or other.get("range"))
        ranges = [range_of(raw) for raw in call.get("fromRanges") or []]
        calls.append(_Call(other, path_of(other["uri"]), ranges))
    return calls


async def expand_calls(
    slot: ServerSlot,
    root: Mapping[str, Any],
    *,
    incoming: bool,
    depth: int,
    paths: PathPolicy,
    deadline: float,
) -> CallGraph:
    """Calls from (outgoing) or to (incoming) ``root``, breadth-first to ``depth`` levels,
    within ``deadline`` seconds; functions outside the allowed roots are not followed."""
    method = lsp.CALL_HIERARCHY_INCOMING_CALLS if incoming else lsp.CALL_HIERARCHY_OUTGOING_CALLS
    client = slot.live_client()
    ends_at = anyio.current_time() + deadline
    graph = CallGraph()
    edges: dict[tuple[ItemKey, str, str], Edge] = {}
    visited = {item_key(root)}
    frontier: list[Mapping[str, Any]] = [root]
    for level in range(1, depth + 1):
        left = ends_at - anyio.current_time()
        if left <= 0:
            graph.stopped_at = level
            break
        seconds = min(slot.pool.settings.request_timeout, left)

        async def calls_of(item: Mapping[str, Any], seconds: float = seconds) -> list[_Call]:
            reply = await slot.request(method, {"item": item}, seconds, count_hang=False)
            reply = await inside_only(reply)
            return _calls_in(reply, incoming)

        outcomes = await map_settled(calls_of, frontier)
        found: list[_Call] = []
        for item, outcome in zip(frontier, outcomes, strict=True):
            if outcome.error is not None:
                graph.failures.append(Failure(level, item, outcome.error))
                continue
            graph.answered += 1
            calls = outcome.value or []
            kept = ROOT_CALLS if level == 1 else FAN_OUT
            graph.cut = graph.cut or len(calls) > kept
            for call in calls[:kept]:
                caller, callee = (call.other, item) if incoming else (item, call.other)
                key = (item_key(item), str(call.other["uri"]), str(call.other.get("name")))
                edge = edges.get(key)
                if edge is None:
                    edges[key] = Edge(level, caller, callee, call.ranges)
                else:
                    # Overloads (print in typeshed) come back as one edge per signature.
                    edge.from_ranges.extend(r for r in call.ranges if r not in edge.from_ranges)
                other = item_key(call.other)
                if level == depth or other in visited:
                    continue
                visited.add(other)
                if len(visited) > MAX_NODES:
                    graph.cut = True
                else:
                    found.append(call)
        if level == depth or not found:
            break
        seen = await see_files(paths, [call.path for call in found], None, read=False)
        frontier = [call.other for call in found if not seen[call.path].external]
        if not frontier:
            break
    graph.edges = list(edges.values())
    if not graph.answered and any(isinstance(f.error, RequestTimeoutError) for f in graph.failures):
        # Nothing came back at all: the server may hang (a slow one still answers some).
        slot.note_hang(client)
    return graph
