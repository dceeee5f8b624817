"""One TTL cache for every provider: bounded in entries and bytes, with request coalescing.

Identical loads in flight at the same time share one execution: the first
caller runs the loader, the others wait for its outcome (value or error).
"""

from __future__ import annotations

import copy
import sys
import time
from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Generic
from typing import TypeVar

import anyio
from cachetools import TLRUCache
from pydantic import BaseModel

T = TypeVar("T")


def estimate_size(value: object) -> int:
    """Approximate bytes held by a cached value; models are measured by their JSON."""
    if isinstance(value, BaseModel):
        return len(value.model_dump_json())
    if isinstance(value, (bytes, str)):
        return len(value)
    return sys.getsizeof(value)


@dataclass
class CacheEntry(Generic[T]):
    """A cached value with its expiry and the validator (ETag) it came with."""

    value: T
    expires_at: float
    size: int
    etag: str | None = None

    @property
    def fresh(self) -> bool:
        return time.monotonic() < self.expires_at


@dataclass
class _Flight:
    done: anyio.Event = field(default_factory=anyio.Event)
    value: Any = None
    error: BaseException | None = None


def _own_copy(error: BaseException) -> BaseException:
    """A waiter's own copy of the leader's error: whoever catches it may decorate it, and no
    other query must see that."""
    try:
        return copy.copy(error)
    except Exception:  # noqa: BLE001 - an uncopyable error is raised as it is
        return error


class ResultCache:
    """TTL + LRU cache keyed by strings, bounded by entry count and total bytes.

    Expired entries are kept until evicted (``stale_ttl`` beyond expiry) so a
    provider can revalidate them with their ETag instead of refetching.
    """

    def __init__(self, max_entries: int, max_bytes: int, stale_ttl: float = 3600.0) -> None:
        self.max_entries = max_entries
        self.stale_ttl = stale_ttl
        self._entries: TLRUCache[str, CacheEntry[Any]] = TLRUCache(
            maxsize=max_bytes,
            ttu=lambda _key, entry, _now: entry.expires_at + self.stale_ttl,
            timer=time.monotonic,
            getsizeof=lambda entry: entry.size,
        )
        self._flights: dict[str, _Flight] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def entry(self, key: str) -> CacheEntry[Any] | None:
        """The entry for ``key`` even when expired (for revalidation), or None."""
        return self._entries.get(key)

    def get(self, key: str) -> Any | None:
        """A fresh value, or None."""
        entry = self._entries.get(key)
        if entry is not None and entry.fresh:
            return entry.value
        return None

    def set(self, key: str, value: Any, ttl: float, *, etag: str | None = None) -> None:
        size = estimate_size(value)
        if size > self._entries.maxsize:
            return
        self._entries[key] = CacheEntry(value, time.monotonic() + ttl, size, etag)
        while len(self._entries) > self.max_entries:
            self._entries.popitem()

    async def get_or_load(
        self, key: str, ttl: float, load: Callable[[], Awaitable[T]]
    ) -> tuple[T, bool]:
        """Return ``(value, from_cache)``; concurrent identical loads run ``load`` once."""
        cached = self.get(key)
        if cached is not None:
            return cached, True
        value, shared = await self.coalesce(key, load)
        if not shared:
            self.set(key, value, ttl)
        return value, False

    async def coalesce(self, key: str, load: Callable[[], Awaitable[T]]) -> tuple[T, bool]:
        """Run ``load`` once for all concurrent callers of ``key``; returns ``(value, shared)``."""
        while (flight := self._flights.get(key)) is not None:
            await flight.done.wait()
            # A cancelled leader says nothing about the upstream: a waiter takes over.
            if isinstance(flight.error, anyio.get_cancelled_exc_class()):
                continue
            if flight.error is not None:
                raise _own_copy(flight.error)
            return flight.value, True
        flight = self._flights[key] = _Flight()
        try:
            flight.value = await load()
            return flight.value, False
        except BaseException as exc:
            flight.error = exc
            raise
        finally:
            del self._flights[key]
            flight.done.set()
