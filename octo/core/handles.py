"""Content handles: text an answer had to cut, kept for a while under an unguessable name so
getCachedContent can page through all of it.

Handles live in their own store, never in the result cache: cache pressure must not lose a
handle an answer just gave out. :class:`HandleStore` is the interface (a shared store for a
team can implement it); :class:`MemoryHandleStore` keeps them in this process, bounded in
entries and characters, each for ``ttl`` seconds.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from typing import Protocol


@dataclass(frozen=True)
class Origin:
    """What a handle was cut from: the call that gave it out, the roots in force then, and
    the credential identity it ran under (:func:`credential_identity`).

    ``roots`` is None for content that is not local (a GitHub file): any roots may read it.
    Only a reader of the same ``identity`` may read it at all (a private repository's file
    read with A's token is not B's, nor a tokenless replica's).
    """

    tool: str
    query: Mapping[str, Any]
    roots: tuple[str, ...] | None
    identity: str = ""


#: Variables whose values authenticate octo to a host or registry: what a call would send.
#: The HTTP server's own token and the Redis password authenticate clients and replicas,
#: not calls, so replicas of one team with one set of host tokens share handles.
_CREDENTIAL_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSPHRASE|CREDENTIAL|AUTH|KEY", re.I)
_NOT_SENT = frozenset({"OCTO_HTTP_TOKEN", "OCTO_REDIS_PASSWORD", "OCTO_REDIS_URL"})


def credential_identity(env: Mapping[str, str], others: Iterable[str] = ()) -> str:
    """A hash of the credentials in ``env`` that calls send upstream, and of ``others``
    (those read from elsewhere: a hosts file's token files and commands); none at all is an
    identity of its own (the hash of nothing), distinct from every token's."""
    sent: list[Any] = sorted(
        (name, value)
        for name, value in env.items()
        if value and name not in _NOT_SENT and _CREDENTIAL_NAME.search(name)
    )
    extra = sorted(others)
    # Without others, the hash of the environment's alone (as before others were counted).
    digest = hashlib.sha256(
        json.dumps([sent, extra] if extra else sent, separators=(",", ":")).encode()
    )
    return digest.hexdigest()[:32]


@dataclass(frozen=True)
class Stored:
    """A handle's record. ``content`` is None once the handle expired or was evicted: its
    origin is kept a while longer, so the answer can say which call gives it again."""

    content: str | None
    origin: Origin


class HandleStore(Protocol):
    """Where handles live. Asynchronous, so a store may sit across the network."""

    async def put(self, content: str, origin: Origin) -> str:
        """Keep ``content``; the new handle."""

    async def get(self, handle: str) -> Stored | None:
        """The record of ``handle``; None when it was never given out here (or long gone)."""


def new_handle() -> str:
    """An unguessable handle: 144 random bits, URL-safe."""
    return secrets.token_urlsafe(18)


class ExpiringHandles:
    """What the handle stores share: each handle read for ``ttl`` seconds of ``clock``, at
    most ``max_entries`` of them kept."""

    def __init__(self, ttl: float, max_entries: int, clock: Callable[[], float]) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self.clock = clock

    def expiry(self) -> float:
        """When a handle given out now stops being readable (by ``clock``)."""
        return self.clock() + self.ttl


class MemoryHandleStore(ExpiringHandles):
    """Handles in this process: each lives ``ttl`` seconds; beyond ``max_entries`` or
    ``max_chars`` the oldest go first. The origins of lost handles are remembered (up to
    ``max_entries`` of them) for the hint that repeats their call."""

    def __init__(
        self,
        ttl: float,
        *,
        max_entries: int = 10_000,
        max_chars: int = 64 * 1024 * 1024,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(ttl, max_entries, clock)
        self.max_chars = max_chars
        # One TTL for all, so insertion order is expiry order: the oldest are at the front.
        self._live: OrderedDict[str, tuple[float, str, Origin]] = OrderedDict()
        self._lost: OrderedDict[str, Origin] = OrderedDict()
        self._chars = 0

    def __len__(self) -> int:
        self._expire()
        return len(self._live)

    async def put(self, content: str, origin: Origin) -> str:
        handle = new_handle()
        self._live[handle] = (self.expiry(), content, origin)
        self._chars += len(content)
        self._expire()
        while self._live and (len(self._live) > self.max_entries or self._chars > self.max_chars):
            self._drop_oldest()
        return handle

    async def get(self, handle: str) -> Stored | None:
        self._expire()
        live = self._live.get(handle)
        if live is not None:
            return Stored(live[1], live[2])
        origin = self._lost.get(handle)
        return Stored(None, origin) if origin is not None else None

    def _expire(self) -> None:
        now = self.clock()
        while self._live and next(iter(self._live.values()))[0] <= now:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        handle, (_expires, content, origin) = self._live.popitem(last=False)
        self._chars -= len(content)
        self._lost[handle] = origin
        while len(self._lost) > self.max_entries:
            self._lost.popitem(last=False)
