"""The remote transport every HTTP backend shares (GitHub, GitLab, package registries).

A :class:`RemoteClient` wraps the runtime's one ``httpx.AsyncClient`` for one host.
It tracks rate limits per resource and sends nothing while a resource is exhausted,
honours ``Retry-After``, backs off from secondary limits and retries 5xx answers
(tenacity, with an injectable ``sleep``), revalidates cached answers with their ETag
through the runtime's :class:`~octo.core.cache.ResultCache`, lets identical requests in
flight share one upstream request, and maps HTTP statuses to :mod:`octo.core.errors`.
With a shared store, answers, requests in flight and rate-limit pauses are shared by
every replica (:mod:`octo.transports.http.remote_state`). Bodies are read within a byte limit
per kind of answer (:mod:`octo.transports.http.body`).

Everything specific to a host (rate-limit header names, how a secondary limit reads,
authentication, hints) lives in a :class:`HostPolicy` subclass, so a new host
writes a small policy and reuses the client.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from typing import Generic
from typing import TypeVar

import anyio
import httpx

from octo.core.cache import ResultCache
from octo.core.errors import InvalidQueryError
from octo.core.errors import ToolNotAvailableError
from octo.core.formats import compact_json
from octo.core.meters import Meters
from octo.core.registries import CA_SETTINGS_HINT
from octo.core.registries import is_verification_failure
from octo.core.shared.store import SharedStore
from octo.transports.http.body import MAX_JSON_BYTES
from octo.transports.http.body import BodySink
from octo.transports.http.body import parsed
from octo.transports.http.policy import HostPolicy
from octo.transports.http.policy import RateLimit
from octo.transports.http.policy import retry_after_seconds
from octo.transports.http.redirects import origin
from octo.transports.http.redirects import redirect_notes
from octo.transports.http.redirects import send_following
from octo.transports.http.remote_errors import rate_limit_error
from octo.transports.http.remote_errors import scrubbed
from octo.transports.http.remote_errors import status_error
from octo.transports.http.remote_state import RemoteState
from octo.transports.http.remote_state import Shared
from octo.transports.http.retries import Attempts
from octo.transports.http.retries import Retry

logger = logging.getLogger("octo.http")

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class Fetched(Generic[T]):
    """A parsed answer and where it came from."""

    value: T
    cached: bool = False
    revalidated: bool = False
    rate_limit: RateLimit | None = None
    #: What the caller should hear about how it was had (a redirect to another origin).
    notes: tuple[str, ...] = ()


class RemoteClient:
    """Requests to one host through the shared HTTP client and cache.

    ``sleep`` and ``clock`` (Unix time) are public so tests can inject a recording
    sleep and a fixed clock. ``max_wait`` bounds any single wait when the caller has
    no deadline; with a deadline (the dispatcher's per-query timeout) the remaining
    time bounds the waits too, and a longer wait fails fast with RateLimitError.

    ``shared`` is the team's shared store, if any; ``shapes`` names, per kind of answer,
    the type its JSON is validated back into (kinds without one stay in this process).
    ``account`` names the account when one host has several (a hosts file's entries).
    """

    def __init__(
        self,
        http: httpx.AsyncClient,
        cache: ResultCache,
        base_url: str,
        policy: HostPolicy,
        *,
        max_wait: float = 60.0,
        shared: SharedStore | None = None,
        meters: Meters | None = None,
        shapes: Mapping[str, Any] | None = None,
        account: str = "",
    ) -> None:
        self.http = http
        # Two accounts on one host never share a cached answer.
        self.account = account
        self.cache = cache
        self.base_url = base_url.rstrip("/")
        self.policy = policy
        self.max_wait = max_wait
        self.meters = meters or Meters()
        self.state = RemoteState(cache, shared, self.meters, self.base_url, shapes or {})
        self._host = httpx.URL(self.base_url).host
        self.sleep: Sleep = anyio.sleep
        self.clock: Callable[[], float] = time.time
        self.rate_limits: dict[str, RateLimit] = {}
        self._limiters: dict[str, anyio.CapacityLimiter] = {}

    def url(self, path: str) -> str:
        """Absolute URL of ``path`` (an absolute URL, e.g. from a ``link`` header, passes)."""
        if path.startswith(("http://", "https://")):
            return path
        return f"{self.base_url}/{path.lstrip('/')}"

    def hints(self, fetched: Fetched[Any]) -> list[str]:
        """The notes of ``fetched`` (a redirect to another origin), and a hint when the quota
        it spent is running low."""
        rate = fetched.rate_limit
        if rate is None or not rate.running_low:
            return list(fetched.notes)
        return [
            *fetched.notes,
            f"{self.policy.name} {rate.resource} quota running low: {rate.remaining}"
            + (f"/{rate.limit}" if rate.limit else "")
            + " left; batch related queries and prefer cached ones.",
        ]

    def _on_own_host(self, url: httpx.URL) -> bool:
        """True when ``url`` is on the configured origin (scheme, host and port alike)."""
        return origin(url) == origin(httpx.URL(self.base_url))

    def _budget(self) -> float:
        """Seconds this request may still spend waiting."""
        deadline = anyio.current_effective_deadline()
        if math.isinf(deadline):
            return self.max_wait
        # Keep a second for the request itself after the wait.
        return max(0.0, min(self.max_wait, deadline - anyio.current_time() - 1.0))

    def _limiter(self, resource: str) -> anyio.CapacityLimiter:
        limiter = self._limiters.get(resource)
        if limiter is None:
            limiter = self._limiters[resource] = anyio.CapacityLimiter(
                self.policy.concurrency(resource)
            )
        return limiter

    async def _await_quota(self, resource: str, scope: str) -> None:
        """Send nothing to an exhausted resource (here or, shared, on another replica):
        wait for its reset if the budget allows."""
        paused = await self.state.paused_until(scope, resource)
        if paused is not None:
            known = self.rate_limits.get(resource)
            if known is None or not known.exhausted or (known.reset_at or 0.0) < paused:
                self.rate_limits[resource] = RateLimit(resource, 0, reset_at=paused)
        state = self.rate_limits.get(resource)
        if state is None or not state.exhausted or state.reset_at is None:
            return
        wait = state.reset_at - self.clock() + 1.0
        if wait <= 0:
            return
        if wait > self._budget():
            raise rate_limit_error(
                self.policy, wait, f"the {resource} quota is used up", self.clock()
            )
        logger.info("%s %s quota exhausted; waiting %.0f s", self.policy.name, resource, wait)
        await self.sleep(wait)
        self.rate_limits.pop(resource, None)

    async def _record(self, response: httpx.Response, resource: str, scope: str) -> None:
        state = self.policy.rate_limit(response)
        if state is not None:
            self.rate_limits[state.resource or resource] = state
            self.meters.quota(self._host, state.resource or resource, state.remaining)
            if state.exhausted and state.reset_at is not None:
                await self.state.pause(
                    scope, state.resource or resource, state.reset_at, self.clock()
                )

    def _classify(self, response: httpx.Response, resource: str) -> httpx.Response:
        """Return a usable response; raise Retry for a retryable one, OctoError otherwise."""
        status = response.status_code
        if status < 400:
            return response
        now = self.clock()
        if status in (403, 429):
            retry_after = retry_after_seconds(response.headers.get("retry-after"), now)
            if retry_after is not None:
                raise Retry("the host asked to retry later", rate_limited=True, delay=retry_after)
            state = self.rate_limits.get(resource)
            if state is not None and state.exhausted and state.reset_at is not None:
                raise Retry(
                    f"the {resource} quota is used up",
                    rate_limited=True,
                    delay=max(0.0, state.reset_at - now) + 1.0,
                    attempts=2,
                    resets=resource,
                )
            if self.policy.is_secondary_limit(response):
                raise Retry(
                    "secondary rate limit", rate_limited=True, backoff=self.policy.secondary_backoff
                )
        if status >= 500:
            raise Retry(
                f"{self.policy.name} answered {status}",
                rate_limited=False,
                backoff=self.policy.server_error_backoff,
            )
        raise status_error(self.policy, response)

    async def _send_once(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str],
        credentials: Mapping[str, str],
        scope: str,
        max_bytes: int | None,
        sink: BodySink | None,
        content: bytes | None = None,
    ) -> httpx.Response:
        resource = self.policy.resource_for(httpx.URL(url).path)
        await self._await_quota(resource, scope)
        async with self._limiter(resource):
            try:
                response = await send_following(
                    self.http,
                    method,
                    url,
                    params=params,
                    headers=headers,
                    credentials=credentials,
                    is_own=self._on_own_host,
                    name=self.policy.name,
                    max_bytes=max_bytes,
                    sink=sink,
                    content=content,
                )
            except httpx.TimeoutException:
                self.meters.upstream(self._host, "timeout")
                raise Retry(
                    f"{self.policy.name} timed out",
                    rate_limited=False,
                    backoff=self.policy.server_error_backoff,
                ) from None
            except httpx.TransportError as exc:
                self.meters.upstream(self._host, "unreachable")
                hint = "Check the network and the configured API URL."
                if is_verification_failure(exc):
                    hint = CA_SETTINGS_HINT
                raise ToolNotAvailableError(
                    scrubbed(
                        self.policy, f"{self.policy.name} is unreachable at {self.base_url}: {exc}"
                    ),
                    hints=[hint],
                ) from None
        self.meters.upstream(self._host, str(response.status_code))
        await self._record(response, resource, scope)
        try:
            return self._classify(response, resource)
        except Retry as retry:
            if retry.rate_limited:
                # Every replica holds back as long as this one will.
                now = self.clock()
                await self.state.pause(scope, resource, now + retry.wait(1), now)
            raise

    async def send(
        self,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        method: str = "GET",
        max_bytes: int | None = MAX_JSON_BYTES,
        sink: BodySink | None = None,
        content: bytes | None = None,
    ) -> httpx.Response:
        """Send one request (with the body ``content``: a GraphQL POST) with rate-limit
        handling and retries; a 304 is returned as is. A successful answer's body goes to
        ``sink`` as it streams when given (a download to a file, a log to its reducer; it
        starts over on a retry), else it is held; at most ``max_bytes`` of it either way
        (None: what the sink takes, for a sink that stops itself).

        Raises RateLimitError when a needed wait exceeds the budget or retries run out,
        AuthenticationError (401/403), NotFoundError (404/410), InvalidQueryError
        (other 4xx, with the host's message), ToolNotAvailableError (5xx after retries,
        unreachable host), InvalidResponseError (a body cut off or over ``max_bytes``).
        """
        url = self.url(path)
        try:
            # httpx refuses a URL component over 64 KiB only when sending: check it first.
            httpx.URL(url, params=params)
        except httpx.InvalidURL as exc:
            raise InvalidQueryError(
                scrubbed(
                    self.policy, f"The query does not fit in a {self.policy.name} request: {exc}"
                ),
                hints=["Shorten the query's longest value (keywords, path, filters)."],
            ) from None
        # Credentials go to the configured origin only: never to a host a response linked
        # or redirected to.
        credentials = await self.policy.headers()
        scope = self.state.scope(credentials)
        attempts = Attempts(self._budget, self._sleep_logged, self._before_retry)
        try:
            async for attempt in attempts:
                with attempt:
                    return await self._send_once(
                        method,
                        url,
                        params,
                        headers or {},
                        credentials,
                        scope,
                        max_bytes,
                        sink,
                        content,
                    )
        except Retry as exc:
            if exc.rate_limited:
                raise rate_limit_error(
                    self.policy, attempts.refused_wait, exc.reason, self.clock()
                ) from None
            raise ToolNotAvailableError(
                f"{exc.reason}; gave up after {exc.attempts} tries",
                hints=[f"{self.policy.name} seems to be having trouble; retry in a minute."],
            ) from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    def _before_retry(self, retry: Retry) -> None:
        if retry.resets:
            self.rate_limits.pop(retry.resets, None)

    async def _sleep_logged(self, seconds: float) -> None:
        logger.info("%s: waiting %.1f s before retrying", self.policy.name, seconds)
        await self.sleep(seconds)

    def cache_key(
        self,
        kind: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> str:
        """The cache key of a request whose parsed answer is of ``kind``."""
        request = [
            kind,
            self.url(path),
            sorted((params or {}).items()),
            sorted((headers or {}).items()),
        ]
        return compact_json([*request, self.account] if self.account else request)

    async def fetch(
        self,
        path: str,
        *,
        kind: str,
        ttl: float,
        parse: Callable[[httpx.Response], T],
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        cacheable: Callable[[T], bool] | None = None,
        max_bytes: int = MAX_JSON_BYTES,
    ) -> Fetched[T]:
        """GET ``path`` and ``parse`` the response, through the cache.

        A fresh entry answers without a request; identical fetches in flight share one
        request; a stale entry with an ETag is revalidated (a 304 refreshes it). ``kind``
        names what ``parse`` makes, so two parsers of one URL never share entries.
        ``cacheable`` can refuse to cache a value (partial search results). Bodies over
        ``max_bytes`` or unreadable by ``parse`` are InvalidResponseErrors.
        """
        key = self.cache_key(kind, path, params, headers)
        # Alone, nothing is awaited first: identical fetches join one flight at once.
        scope = "" if self.state.shared is None else self.state.scope(await self.policy.headers())
        entry = await self.state.entry(key, kind, scope)
        if entry is not None and entry.fresh:
            return Fetched(entry.value, cached=True)

        async def load() -> Fetched[T]:
            stale = self.cache.entry(key)
            conditional = dict(headers or {})
            if stale is not None and stale.etag:
                conditional["If-None-Match"] = stale.etag
            response = await self.send(
                path, params=params, headers=conditional, max_bytes=max_bytes
            )
            rate = self.rate_limits.get(self.policy.resource_for(response.request.url.path))
            notes = redirect_notes(response)
            if response.status_code == 304 and stale is not None:
                await self.state.store(
                    key, kind, scope, stale.value, ttl, stale.etag, revalidated=True
                )
                return Fetched(
                    stale.value, cached=True, revalidated=True, rate_limit=rate, notes=notes
                )
            value = parsed(response, parse, name=self.policy.name)
            if cacheable is None or cacheable(value):
                await self.state.store(key, kind, scope, value, ttl, response.headers.get("etag"))
            return Fetched(value, rate_limit=rate, notes=notes)

        return await self.state.coalesce(
            key,
            kind,
            scope,
            load,
            value_of=lambda fetched: Shared(fetched.value, fetched.notes),
            answer=lambda shared, cached: Fetched(shared.value, cached=cached, notes=shared.notes),
        )
