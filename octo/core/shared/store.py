"""State several octo servers share (a team's replicas behind one load balancer): the
interface of the store and its settings.

With ``OCTO_REDIS_URL`` unset nothing here is used and no Redis client is imported: one
process keeps everything in itself, as always. With it set, the result cache, requests in
flight, rate-limit pauses and content handles are shared through Redis
(:mod:`octo.core.shared.redis_store`, opened by the runtime).

The store speaks bytes under short keys; what the bytes mean is decided by its users
(:mod:`octo.transports.http.remote_state`, :mod:`octo.core.shared.handles`). It never raises:
a store that fails or is slow answers "unavailable" (None, False), and its users go on
without it, from their local cache and upstream.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

import anyio


@dataclass(frozen=True)
class SharedSettings:
    """Where the shared store is and how octo treats it (``OCTO_REDIS_*``, read by
    :meth:`octo.core.config.Config.from_env`).

    ``timeout`` bounds every call (a slower store counts as down); after a failure the
    store is left alone for ``cooldown`` seconds, then tried again. Values packed larger
    than ``max_value_bytes`` stay in this process.
    """

    url: str
    password: str | None = None
    prefix: str = "octo:"
    timeout: float = 0.25
    cooldown: float = 5.0
    max_value_bytes: int = 1024 * 1024

    @property
    def where(self) -> str:
        """The store's address for messages: scheme, host and port, never the password."""
        parts = urlsplit(self.url)
        if parts.scheme == "unix":
            return f"unix://{parts.path}"
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{parts.hostname}{port}"


class SharedStore(Protocol):
    """Bytes under keys with a lifetime, and short leases, shared by every replica.

    No method raises: an unavailable store answers None (reads, claims) or False (writes).
    """

    settings: SharedSettings

    async def ping(self) -> bool:
        """True when the store answers now (readiness); a success closes the breaker."""

    async def get(self, *keys: str) -> list[bytes | None] | None:
        """The values of ``keys`` (None for a missing one), or None when unavailable."""

    async def put(self, items: Sequence[tuple[str, bytes, float]]) -> bool:
        """Store each ``(key, value, seconds to live)``; False when unavailable."""

    async def claim(self, key: str, owner: str, lease: float) -> str | None:
        """Take the lease ``key`` for ``owner`` unless someone holds it: the holder
        (``owner`` when taken now), or None when unavailable."""

    async def renew(self, key: str, owner: str, lease: float) -> bool:
        """Extend ``owner``'s lease; False when it is no longer ``owner``'s."""

    async def settle(self, key: str, owner: str, outcome: tuple[str, bytes, float] | None) -> bool:
        """Store ``outcome`` (key, value, seconds) and end ``owner``'s lease, at once."""

    def announced(self, key: str) -> anyio.Event:
        """An event set when a lease is settled with an outcome under ``key`` on any replica
        (while :meth:`listen` runs); call before looking for the outcome, so none is missed."""

    def forget(self, key: str) -> None:
        """No one waits for ``key`` any more."""

    async def listen(self) -> None:
        """Hear the outcomes every replica announces, until cancelled (the runtime runs it
        in its task group); without it, followers only poll."""

    async def aclose(self) -> None:
        """Close the connections."""
