"""lspTypeHierarchy: the classes and interfaces above (supertypes) and below (subtypes) a
type, breadth-first to depth 3, from servers that offer type hierarchy (ty does;
basedpyright and typescript-language-server do not: the error names one that does)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.errors import NotFoundError
from octo.lsp.models import TypeHierarchyQuery
from octo.lsp.models import TypeHierarchyResult
from octo.lsp.models import TypeNode
from octo.lsp.navigation.locations import SeenFile
from octo.lsp.navigation.locations import kind_name
from octo.lsp.navigation.locations import path_of
from octo.lsp.navigation.locations import range_of
from octo.lsp.navigation.locations import see_files
from octo.lsp.navigation.locations import withheld_hints
from octo.lsp.navigation.next_calls import symbol_call
from octo.lsp.navigation.target import Target
from octo.lsp.navigation.target import answer
from octo.lsp.navigation.target import ask
from octo.lsp.navigation.target import navigate
from octo.lsp.navigation.target import require
from octo.lsp.servers.wire.client import MalformedReplyError

#: Types listed per direction at most: a base class of everything has many subtypes.
MAX_TYPES = 200
#: Named in the error of a server without type hierarchy.
SUPPORTED_BY = (
    "ty answers type hierarchy for Python (pip install ty; it is first in "
    "OCTO_LSP_PYTHON_SERVERS' default order). For TypeScript no server octo knows offers it: "
    "lspGotoDefinition with kind 'implementation' lists an interface's implementations."
)

Item = Mapping[str, Any]


def _key(item: Item) -> tuple[str, int, int]:
    start = item.get("selectionRange", item.get("range", {})).get("start", {})
    return (str(item.get("uri")), int(start.get("line", 0)), int(start.get("character", 0)))


async def _expand(
    target: Target, root: Item, method: str, depth: int
) -> tuple[list[tuple[Item, int, str]], bool]:
    """(item, depth, the name it was reached from) breadth-first; True when MAX_TYPES cut it."""
    found: list[tuple[Item, int, str]] = []
    seen = {_key(root)}
    level: list[Item] = [root]
    for at in range(1, depth + 1):
        following: list[Item] = []
        for item in level:
            reply = await ask(target.slot, method, {"item": dict(item)})
            for child in reply if isinstance(reply, list) else []:
                if not isinstance(child, Mapping) or _key(child) in seen:
                    continue
                if len(found) >= MAX_TYPES:
                    return found, True
                seen.add(_key(child))
                found.append((child, at, str(item.get("name", ""))))
                following.append(child)
        level = following
    return found, False


def _node(item: Item, depth: int, of: str, seen: Mapping[Path, SeenFile]) -> TypeNode:
    uri = item.get("uri")
    if not isinstance(uri, str):
        raise MalformedReplyError(f"Language server returned a bad type item: {item!r:.100}")
    file = seen[path_of(uri)]
    name = range_of(item.get("selectionRange") or item.get("range")).start
    return TypeNode(
        name=str(item.get("name", "")),
        kind=kind_name(item.get("kind")),
        detail=item.get("detail") if isinstance(item.get("detail"), str) else None,
        path=file.path,
        line=name.line,
        character=name.character,
        depth=depth,
        of=of,
        external=True if file.external else None,
        withheld=file.withheld,
    )


async def type_hierarchy(
    ctx: QueryContext, query: TypeHierarchyQuery
) -> Answer[TypeHierarchyResult]:
    """Supertypes and/or subtypes of the type at uri near lineHint."""

    async def run(target: Target, _last: bool) -> Answer[TypeHierarchyResult]:
        require(target.slot, "typeHierarchyProvider", "type hierarchy", SUPPORTED_BY)
        prepared = await ask(target.slot, lsp.TEXT_DOCUMENT_PREPARE_TYPE_HIERARCHY, target.params())
        if not isinstance(prepared, list) or not prepared or not isinstance(prepared[0], Mapping):
            raise NotFoundError(
                f"{target.slot.server_id} found no type at '{query.symbolName}'",
                hints=["Point at a class or interface name (its definition or a use)."],
            )
        root = prepared[0]
        expansions: dict[str, tuple[list[tuple[Item, int, str]], bool]] = {}
        async with anyio.create_task_group() as group:
            for direction, method in (
                ("supertypes", lsp.TYPE_HIERARCHY_SUPERTYPES),
                ("subtypes", lsp.TYPE_HIERARCHY_SUBTYPES),
            ):
                if query.direction in (direction, "both"):

                    async def one(direction: str = direction, method: str = method) -> None:
                        expansions[direction] = await _expand(target, root, method, query.depth)

                    group.start_soon(one)
        items = [root, *(item for found, _ in expansions.values() for item, _, _ in found)]
        seen = await see_files(
            ctx.paths, [path_of(str(item.get("uri"))) for item in items], query, read=False
        )
        nodes = {
            direction: [_node(item, depth, of, seen) for item, depth, of in found]
            for direction, (found, _) in expansions.items()
        }
        result = TypeHierarchyResult(
            resolved=target.resolved,
            server=target.slot.server_id,
            item=_node(root, 0, "", seen),
            supertypes=nodes.get("supertypes", []),
            subtypes=nodes.get("subtypes", []),
        )
        cut = [d for d, (_, capped) in expansions.items() if capped]
        hints = [f"More {d} than {MAX_TYPES}: the first ones are listed." for d in cut]
        for node in [*result.subtypes, *result.supertypes][:1]:
            if not (node.external or node.withheld):
                where = symbol_call("lspGotoDefinition", node.path, node.name, node.line)
                hints.append(f"Go to {node.name}: {where}")
        hints.extend(withheld_hints(query, seen.values()))
        return answer(target, result, hints, partial=bool(cut))

    return await navigate(ctx, query, run)
