"""What a :class:`~octo.transports.http.client.RemoteClient` keeps between requests: answers
(with their ETags), requests in flight, and rate-limit pauses.

Alone, a process keeps them in its :class:`~octo.core.cache.ResultCache` and in memory,
as always. With a shared store (a team's replicas on one Redis) each of them is shared too:

- answers: a fresh answer one replica fetched is a cache hit on every other; a stale one
  is revalidated with its ETag. The local cache stays in front (no round trip for a local
  hit) and behind (the answer is there when the store is not).
- requests in flight: identical requests on several replicas cost one upstream request.
  The first replica claims a short lease (renewed while it works); the others wait for
  its outcome (the answer and its notes, or its error), woken when it is announced, and
  take over when the lease ends without one.
- pauses: a replica that sees a resource exhausted (or told to back off) pauses it for
  every replica until the reset.

Only the kinds of answer a client declares a ``shape`` for (a type pydantic validates the
JSON back into) are shared. Keys hash the request with the credential identity (the host
and its credentials, hashed): never a token, and two teams with different tokens never
share an answer. Whatever the store does, a query is answered: from the local cache or
upstream.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from typing import TypeVar

import anyio
from pydantic import TypeAdapter
from pydantic import ValidationError

from octo.core.cache import CacheEntry
from octo.core.cache import ResultCache
from octo.core.errors import OctoError
from octo.core.formats import compact_json
from octo.core.meters import Meters
from octo.core.shared.codec import error_document
from octo.core.shared.codec import error_from
from octo.core.shared.codec import pack
from octo.core.shared.codec import unpack
from octo.core.shared.store import SharedStore

L = TypeVar("L")

#: Seconds a leader's claim lives unless renewed; it is renewed every third of that, so a
#: replica that dies holding one delays the others by at most this long.
LEASE = 3.0
#: Seconds a leader's outcome waits for its followers.
OUTCOME_TTL = 10.0
#: A follower's longest wait between two looks at the leader's outcome: it is woken at once
#: when the outcome is announced, and looks anyway (an announcement missed, a lease expired).
POLL_MAX = 0.2


@dataclass(frozen=True)
class Shared:
    """What a leader's answer gives its followers on other replicas: the value, and the
    notes the caller hears about how it was had (a redirect to another origin)."""

    value: Any
    notes: tuple[str, ...] = ()


class _Verdict:
    """What a follower learned besides an answer or an error."""

    #: The leader's lease ended without an outcome (it failed, or died): lead instead.
    TAKE_OVER = object()
    #: No shared outcome (too large, unreadable, the store is down): ask upstream.
    ASK_UPSTREAM = object()


class RemoteState:
    """The answers, flights and pauses of one remote client (see the module's doc)."""

    def __init__(
        self,
        cache: ResultCache,
        shared: SharedStore | None,
        meters: Meters,
        host: str,
        shapes: Mapping[str, Any],
    ) -> None:
        self.cache = cache
        self.shared = shared
        self.meters = meters
        self.host = host
        self._shapes = dict(shapes)
        self._adapters: dict[str, TypeAdapter[Any]] = {}

    def scope(self, credentials: Mapping[str, str]) -> str:
        """The credential identity: a hash of the host and what authenticates to it (only
        a shared store needs one: alone, "")."""
        if self.shared is None:
            return ""
        identity = compact_json([self.host, sorted(credentials.items())])
        return hashlib.sha256(identity.encode()).hexdigest()[:32]

    def _adapter(self, kind: str) -> TypeAdapter[Any] | None:
        """How answers of ``kind`` are validated back from JSON; None: kept local."""
        if self.shared is None or kind not in self._shapes:
            return None
        adapter = self._adapters.get(kind)
        if adapter is None:
            adapter = self._adapters[kind] = TypeAdapter(self._shapes[kind])
        return adapter

    @staticmethod
    def _name(scope: str, key: str) -> str:
        return hashlib.sha256(f"{scope}\n{key}".encode()).hexdigest()[:40]

    async def entry(self, key: str, kind: str, scope: str) -> CacheEntry[Any] | None:
        """The entry for ``key``, even stale (for revalidation): this process's, else the
        shared one (kept locally from then on). Counts the hit or miss."""
        local = self.cache.entry(key)
        if local is not None and local.fresh:
            self.meters.cache("hit", "local")
            return local
        adapter = self._adapter(kind)
        found = None if adapter is None else await self._shared_entry(key, scope, adapter)
        store = "local" if adapter is None else "shared"
        if found is None or (local is not None and not found.fresh):
            self.meters.cache("miss", store)
            return local
        self.meters.cache("hit" if found.fresh else "miss", store)
        return found

    async def _shared_entry(
        self, key: str, scope: str, adapter: TypeAdapter[Any]
    ) -> CacheEntry[Any] | None:
        assert self.shared is not None
        found = await self.shared.get(f"e:{self._name(scope, key)}")
        if not found or found[0] is None:
            return None
        try:
            document = unpack(found[0])
            value = adapter.validate_python(document["value"])
            etag, expires_at = document["etag"], float(document["expires_at"])
        except (ValueError, KeyError, TypeError, ValidationError):
            return None
        remaining = expires_at - time.time()
        self.cache.set(key, value, remaining, etag=etag)
        return CacheEntry(value, time.monotonic() + remaining, 0, etag)

    async def store(
        self,
        key: str,
        kind: str,
        scope: str,
        value: Any,
        ttl: float,
        etag: str | None,
        *,
        revalidated: bool = False,
    ) -> None:
        """Keep ``value`` for ``ttl`` seconds here and, when it is shared, in the store;
        ``revalidated``: a stale entry the host confirmed (HTTP 304)."""
        self.cache.set(key, value, ttl, etag=etag)
        adapter = self._adapter(kind)
        if revalidated:
            self.meters.cache("revalidated", "local" if adapter is None else "shared")
        if adapter is None:
            return
        assert self.shared is not None
        record = pack(
            {
                "value": adapter.dump_python(value, mode="json"),
                "etag": etag,
                "expires_at": time.time() + ttl,
            }
        )
        if len(record) <= self.shared.settings.max_value_bytes:
            await self.shared.put(
                [(f"e:{self._name(scope, key)}", record, ttl + self.cache.stale_ttl)]
            )

    async def coalesce(
        self,
        key: str,
        kind: str,
        scope: str,
        load: Callable[[], Awaitable[L]],
        value_of: Callable[[L], Shared],
        answer: Callable[[Shared, bool], L],
    ) -> L:
        """``load()`` once for every identical request in flight, in this process and on
        every replica. ``value_of`` is what a load's result shares; ``answer(shared,
        cached)`` makes a result of what another replica shared (or stored)."""
        adapter = self._adapter(kind)
        if adapter is None:
            result, _shared = await self.cache.coalesce(key, load)
            return result

        async def across_replicas() -> L:
            return await self._across(key, scope, adapter, load, value_of, answer)

        result, _shared = await self.cache.coalesce(key, across_replicas)
        return result

    async def _across(
        self,
        key: str,
        scope: str,
        adapter: TypeAdapter[Any],
        load: Callable[[], Awaitable[L]],
        value_of: Callable[[L], Shared],
        answer: Callable[[Shared, bool], L],
    ) -> L:
        assert self.shared is not None
        name = self._name(scope, key)
        lease, owner = f"l:{name}", secrets.token_hex(8)
        while True:
            holder = await self.shared.claim(lease, owner, LEASE)
            if holder is None:
                return await load()
            if holder == owner:
                # Another replica may have stored the answer just before the lease was free.
                found = await self._shared_entry(key, scope, adapter)
                if found is not None and found.fresh:
                    await self.shared.settle(lease, owner, None)
                    self.meters.cache("hit", "shared")
                    return answer(Shared(found.value), True)
                return await self._lead(name, lease, owner, adapter, load, value_of)
            verdict = await self._follow(name, lease, holder, adapter)
            if verdict is _Verdict.TAKE_OVER:
                continue
            if isinstance(verdict, OctoError):
                raise verdict
            if isinstance(verdict, Shared):
                return answer(verdict, False)
            return await load()

    async def _lead(
        self,
        name: str,
        lease: str,
        owner: str,
        adapter: TypeAdapter[Any],
        load: Callable[[], Awaitable[L]],
        value_of: Callable[[L], Shared],
    ) -> L:
        assert self.shared is not None
        results: list[L] = []
        failures: list[BaseException] = []
        try:
            async with anyio.create_task_group() as renewals:
                renewals.start_soon(self._keep_lease, lease, owner)
                try:
                    results.append(await load())
                except BaseException as exc:  # noqa: BLE001 - settled below, then raised as it is
                    failures.append(exc)
                renewals.cancel_scope.cancel()
        finally:
            outcome = self._outcome(results, failures, value_of, adapter)
            with anyio.CancelScope(shield=True):
                await self.shared.settle(
                    lease,
                    owner,
                    None if outcome is None else (f"d:{name}:{owner}", outcome, OUTCOME_TTL),
                )
        if failures:
            raise failures[0]
        return results[0]

    def _outcome(
        self,
        results: list[L],
        failures: list[BaseException],
        value_of: Callable[[L], Shared],
        adapter: TypeAdapter[Any],
    ) -> bytes | None:
        """What the followers get: the answer, or an error of octo's (anything else, a
        cancellation or a bug, leaves them to take over)."""
        assert self.shared is not None
        if results:
            shared = value_of(results[0])
            document: dict[str, Any] = {
                "value": adapter.dump_python(shared.value, mode="json"),
                "notes": list(shared.notes),
            }
        elif failures and isinstance(failures[0], OctoError):
            error = error_document(failures[0])
            if error is None:
                return None
            document = {"error": error}
        else:
            return None
        packed = pack(document)
        if len(packed) > self.shared.settings.max_value_bytes:
            return pack({"unshared": True})
        return packed

    async def _keep_lease(self, lease: str, owner: str) -> None:
        assert self.shared is not None
        while True:
            await anyio.sleep(LEASE / 3)
            if not await self.shared.renew(lease, owner, LEASE):
                return

    async def _follow(
        self, name: str, lease: str, holder: str, adapter: TypeAdapter[Any]
    ) -> Shared | OctoError | object:
        """Wait for the outcome of the replica holding ``lease``."""
        assert self.shared is not None
        while True:
            outcome = f"d:{name}:{holder}"
            announced = self.shared.announced(outcome)
            try:
                found = await self.shared.get(outcome, lease)
                if found is None:
                    return _Verdict.ASK_UPSTREAM
                done, current = found
                if done is not None:
                    return self._read_outcome(done, adapter)
                if current is None:
                    return _Verdict.TAKE_OVER
                if current.decode() == holder:
                    with anyio.move_on_after(POLL_MAX):
                        await announced.wait()
                holder = current.decode()
            finally:
                self.shared.forget(outcome)

    @staticmethod
    def _read_outcome(data: bytes, adapter: TypeAdapter[Any]) -> Shared | OctoError | object:
        try:
            document = unpack(data)
            if "value" in document:
                value = adapter.validate_python(document["value"])
                return Shared(value, tuple(str(note) for note in document.get("notes", ())))
            if "error" in document:
                return error_from(document["error"]) or _Verdict.ASK_UPSTREAM
        except (ValueError, TypeError, ValidationError):
            pass
        return _Verdict.ASK_UPSTREAM

    async def paused_until(self, scope: str, resource: str) -> float | None:
        """The Unix time before which no replica may send to ``resource``, if one paused it."""
        if self.shared is None:
            return None
        found = await self.shared.get(f"p:{scope}:{resource}")
        if not found or found[0] is None:
            return None
        try:
            return float(unpack(found[0])["until"])
        except (ValueError, KeyError, TypeError):
            return None

    async def pause(self, scope: str, resource: str, until: float, now: float) -> None:
        """Let no replica send to ``resource`` before ``until`` (Unix time)."""
        if self.shared is not None and until > now:
            await self.shared.put([(f"p:{scope}:{resource}", pack({"until": until}), until - now)])
