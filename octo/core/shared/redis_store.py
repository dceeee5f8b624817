"""The shared store on Redis (or Valkey), with the redis-py asyncio client.

Imported only when ``OCTO_REDIS_URL`` is set (:func:`octo.core.shared.store.
open_shared_store`). Every call runs under the configured timeout behind a circuit
breaker: a failure or a slow answer is counted, logged once per outage, and answered as
"unavailable"; while the breaker is open no call waits on Redis. redis-py's own retries
are off (the breaker decides when to try again) and its pool reconnects by itself.

A leader's outcome is announced on one channel (``<prefix>settled``): each runtime listens
on one connection and wakes the followers waiting for that outcome at once.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Sequence
from typing import Any
from typing import TypeVar

import anyio
import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from octo.core.meters import Meters
from octo.core.shared.breaker import CircuitBreaker
from octo.core.shared.store import SharedSettings

T = TypeVar("T")

# Take a free lease, else name its holder. One script rather than SET NX GET, which
# Redis accepts only from 7.0 on: octo runs on the 6.x a managed Redis may still be.
# A lease is honoured only while its holder renews it: one without an expiry, or with
# more time left than a lease is ever given, was not set by a renewing holder and is taken.
_CLAIM = """
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return ARGV[1]
end
local left = redis.call('pttl', KEYS[1])
if left == -1 or left > tonumber(ARGV[2]) then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
return redis.call('get', KEYS[1])
"""

# Extend a lease only while it is still the caller's.
_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""

# Leave the outcome for the followers and announce it, then end the lease if it is still
# the caller's.
_SETTLE = """
if ARGV[2] ~= '' then
  redis.call('set', KEYS[2], ARGV[2], 'PX', ARGV[3])
  redis.call('publish', KEYS[3], ARGV[4])
end
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
end
return 1
"""
#: Seconds one read of the listener waits for a message (its own bound: the call timeout
#: is for commands, and an announcement may be minutes away).
_LISTEN_WAIT = 1.0


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


class RedisStore:
    """:class:`~octo.core.shared.store.SharedStore` on one Redis; keys get the prefix."""

    def __init__(self, settings: SharedSettings, meters: Meters) -> None:
        self.settings = settings
        self.meters = meters
        self.breaker = CircuitBreaker(f"Redis at {settings.where}", settings.cooldown)
        options: dict[str, Any] = {
            "socket_timeout": settings.timeout,
            "socket_connect_timeout": settings.timeout,
            "retry": Retry(NoBackoff(), 0),
        }
        if settings.password:
            options["password"] = settings.password
        self._client: redis.Redis = redis.Redis.from_url(settings.url, **options)
        self._claim = self._client.register_script(_CLAIM)
        self._renew = self._client.register_script(_RENEW)
        self._settle = self._client.register_script(_SETTLE)
        self._channel = self._key("settled")
        self._waiting: dict[str, anyio.Event] = {}

    def _key(self, key: str) -> str:
        return self.settings.prefix + key

    async def _call(self, operation: str, call: Callable[[], Awaitable[T]]) -> T | None:
        """``call()`` under the timeout and the breaker; None when it could not be made."""
        if not self.breaker.allows():
            return None
        try:
            with anyio.fail_after(self.settings.timeout):
                result = await call()
        except (RedisError, OSError, TimeoutError) as exc:
            self.meters.shared_store(operation, ok=False)
            self.breaker.failed(f"{operation}: {type(exc).__name__}")
            return None
        self.meters.shared_store(operation, ok=True)
        self.breaker.succeeded()
        return result

    async def ping(self) -> bool:
        # Readiness asks even while the breaker is open: a success closes it early.
        try:
            with anyio.fail_after(self.settings.timeout):
                await self._client.ping()
        except (RedisError, OSError, TimeoutError):
            return False
        self.breaker.succeeded()
        return True

    async def get(self, *keys: str) -> list[bytes | None] | None:
        names = [self._key(k) for k in keys]
        found = await self._call("get", lambda: self._client.mget(names))
        # Without decode_responses every value comes back as bytes.
        return (
            None
            if found is None
            else [v if v is None else bytes(v, "utf-8") if isinstance(v, str) else v for v in found]
        )

    async def put(self, items: Sequence[tuple[str, bytes, float]]) -> bool:
        async def write() -> bool:
            async with self._client.pipeline(transaction=False) as pipe:
                for key, value, ttl in items:
                    pipe.set(self._key(key), value, px=_ms(ttl))
                await pipe.execute()
            return True

        return bool(await self._call("put", write))

    async def claim(self, key: str, owner: str, lease: float) -> str | None:
        async def take() -> str:
            holder = await self._claim(keys=[self._key(key)], args=[owner, _ms(lease)])
            return holder.decode() if isinstance(holder, bytes) else str(holder)

        return await self._call("claim", take)

    async def renew(self, key: str, owner: str, lease: float) -> bool:
        renewed = await self._call(
            "renew", lambda: self._renew(keys=[self._key(key)], args=[owner, _ms(lease)])
        )
        return bool(renewed)

    async def settle(self, key: str, owner: str, outcome: tuple[str, bytes, float] | None) -> bool:
        outcome_key, value, ttl = outcome or ("", b"", 1.0)
        done = await self._call(
            "settle",
            lambda: self._settle(
                keys=[self._key(key), self._key(outcome_key), self._channel],
                args=[owner, value, _ms(ttl), outcome_key],
            ),
        )
        return bool(done)

    def announced(self, key: str) -> anyio.Event:
        event = self._waiting.get(key)
        if event is None:
            event = self._waiting[key] = anyio.Event()
        return event

    def forget(self, key: str) -> None:
        self._waiting.pop(key, None)

    async def listen(self) -> None:
        while True:
            try:
                async with self._client.pubsub(ignore_subscribe_messages=True) as channel:
                    await channel.subscribe(self._channel)
                    while True:
                        message = await channel.get_message(timeout=_LISTEN_WAIT)
                        if message is not None and message.get("type") == "message":
                            self._wake(message["data"])
            except (RedisError, OSError, TimeoutError):
                # The breaker's calls report the outage; followers poll meanwhile.
                await anyio.sleep(self.settings.cooldown)

    def _wake(self, data: bytes | str) -> None:
        key = data.decode() if isinstance(data, bytes) else data
        event = self._waiting.get(key)
        if event is not None:
            event.set()

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True):
            await self._client.aclose()
