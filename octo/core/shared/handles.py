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


def origin_document(origin: Origin) -> dict[str, Any]:
    """``origin`` as plain data (JSON or the shared codec)."""
    return {
        "tool": origin.tool,
        "query": dict(origin.query),
        "roots": list(origin.roots) if origin.roots is not None else None,
        "identity": origin.identity,
    }


def origin_from(document: Any) -> Origin:
    """The origin :func:`origin_document` wrote; KeyError or TypeError when malformed."""
    roots = document["roots"]
    return Origin(
        str(document["tool"]),
        dict(document["query"]),
        tuple(str(root) for root in roots) if roots is not None else None,
        # A record without an identity (another version, or planted) is nobody's.
        str(document.get("identity") or "\0"),
    )


class SharedHandleStore:
    """:class:`~octo.core.handles.HandleStore` over the shared store and a local one."""

    def __init__(self, shared: SharedStore, local: HandleStore, ttl: float) -> None:
        self.shared = shared
        self.local = local
        self.ttl = ttl

    async def put(self, content: str, origin: Origin) -> str:
        document = origin_document(origin)
        record = pack({"content": content, "origin": document})
        if len(record) <= self.shared.settings.max_value_bytes:
            handle = new_handle()
            kept = await self.shared.put(
                [
                    (f"h:{handle}", record, self.ttl),
                    (f"o:{handle}", pack(document), self.ttl + ORIGIN_GRACE),
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
                return Stored(str(document["content"]), origin_from(document["origin"]))
            if origin is not None:
                return Stored(None, origin_from(unpack(origin)))
        except (ValueError, KeyError, TypeError):
            return None
        return None
