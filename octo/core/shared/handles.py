"""Content handles every replica can read: kept in the shared store, else in this process.

A handle's record (its content and the call it came from) lives ``ttl`` seconds under
``h:<handle>``; its origin alone lives a day longer under ``o:<handle>``, so a replica
asked for a lost handle still names the call that gives it again. Content that packs
larger than the store's value limit, and every handle while the store is down, stays in
the local store: readable on this replica only.
"""

from __future__ import annotations

from typing import Any

from octo.core.handles import HandleStore
from octo.core.handles import Origin
from octo.core.handles import Stored
from octo.core.handles import new_handle
from octo.core.shared.codec import pack
from octo.core.shared.codec import unpack
from octo.core.shared.store import SharedStore

#: How long the origin of an expired handle is remembered beyond its lifetime.
ORIGIN_GRACE = 86_400.0


def _origin_document(origin: Origin) -> dict[str, Any]:
    return {
        "tool": origin.tool,
        "query": dict(origin.query),
        "roots": list(origin.roots) if origin.roots is not None else None,
    }


def _origin(document: Any) -> Origin:
    roots = document["roots"]
    return Origin(
        str(document["tool"]), dict(document["query"]), tuple(roots) if roots is not None else None
    )


class SharedHandleStore:
    """:class:`~octo.core.handles.HandleStore` over the shared store and a local one."""

    def __init__(self, shared: SharedStore, local: HandleStore, ttl: float) -> None:
        self.shared = shared
        self.local = local
        self.ttl = ttl

    async def put(self, content: str, origin: Origin) -> str:
        origin_document = _origin_document(origin)
        record = pack({"content": content, "origin": origin_document})
        if len(record) <= self.shared.settings.max_value_bytes:
            handle = new_handle()
            kept = await self.shared.put(
                [
                    (f"h:{handle}", record, self.ttl),
                    (f"o:{handle}", pack(origin_document), self.ttl + ORIGIN_GRACE),
                ]
            )
            if kept:
                return handle
        return await self.local.put(content, origin)

    async def get(self, handle: str) -> Stored | None:
        local = await self.local.get(handle)
        if local is not None:
            return local
        found = await self.shared.get(f"h:{handle}", f"o:{handle}")
        if found is None:
            return None
        record, origin = found
        try:
            if record is not None:
                document = unpack(record)
                return Stored(str(document["content"]), _origin(document["origin"]))
            if origin is not None:
                return Stored(None, _origin(unpack(origin)))
        except (ValueError, KeyError, TypeError):
            return None
        return None
