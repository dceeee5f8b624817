"""What differs between HTTP hosts: rate-limit state and headers, backoff, authentication,
error wording. A :class:`HostPolicy` subclass per host; the
:class:`~octo.transports.http.client.RemoteClient` does the rest the same way for every host."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import httpx


@dataclass
class RateLimit:
    """The last known state of one rate-limited resource of a host."""

    resource: str
    remaining: int
    reset_at: float | None = None
    limit: int | None = None

    @property
    def exhausted(self) -> bool:
        return self.remaining <= 0

    @property
    def running_low(self) -> bool:
        """True when at most max(3, 15 %) of the limit is left."""
        if self.limit is None:
            return self.remaining <= 3
        return self.remaining <= max(3, math.floor(0.15 * self.limit))


def rate_limit_from_headers(
    headers: Mapping[str, str], prefix: str, resource: str
) -> RateLimit | None:
    """The state that ``{prefix}remaining``, ``reset`` (Unix time) and ``limit`` headers tell;
    None without a remaining count (a host with limits off)."""
    remaining = headers.get(f"{prefix}remaining")
    if remaining is None or not remaining.isdigit():
        return None
    reset = headers.get(f"{prefix}reset")
    limit = headers.get(f"{prefix}limit")
    return RateLimit(
        resource=resource,
        remaining=int(remaining),
        reset_at=float(reset) if reset and reset.isdigit() else None,
        limit=int(limit) if limit and limit.isdigit() else None,
    )


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with jitter: ``first``, doubled per try, capped at ``maximum``."""

    first: float
    maximum: float
    attempts: int
    jitter: float = 0.0

    def delay(self, retry_number: int) -> float:
        """The wait before retry number ``retry_number`` (1 = the first retry)."""
        base = min(self.maximum, self.first * 2.0 ** (retry_number - 1))
        return base + random.uniform(0, self.jitter)


class HostPolicy:
    """What a host does differently; subclass it per host and override what differs.

    The defaults fit a host with no rate-limit headers, no authentication and
    JSON error bodies carrying a ``message``.
    """

    #: Name used in error messages ("GitHub", "GitLab", "the npm registry").
    name: str = "the remote API"
    #: Backoff for secondary limits (a 403/429 without a wait the host told us).
    secondary_backoff: Backoff = Backoff(first=5.0, maximum=60.0, attempts=4, jitter=1.0)
    #: Backoff for 5xx answers and read timeouts.
    server_error_backoff: Backoff = Backoff(first=0.5, maximum=4.0, attempts=3, jitter=0.5)

    async def headers(self) -> dict[str, str]:
        """Headers sent with every request (authentication, API version, media type)."""
        return {}

    def secrets(self) -> tuple[str, ...]:
        """Values that must never appear in an error message (tokens)."""
        return ()

    def resource_for(self, path: str) -> str:
        """The rate-limit resource a request to ``path`` spends."""
        return "core"

    def concurrency(self, resource: str) -> int:
        """How many requests to ``resource`` may be in flight at once."""
        return 8

    def rate_limit(self, response: httpx.Response) -> RateLimit | None:
        """The rate-limit state a response reports, or None when it reports none."""
        return None

    def is_secondary_limit(self, response: httpx.Response) -> bool:
        """True when a 403/429 is a rate limit without a stated wait; a bare 429 always is."""
        return response.status_code == 429

    def error_message(self, response: httpx.Response) -> str:
        """The host's own words for a failed request."""
        try:
            body = response.json()
        except ValueError:
            return response.text.strip()[:300] or response.reason_phrase
        if isinstance(body, dict):
            message = body.get("message") or body.get("error") or ""
            details = body.get("errors")
            if isinstance(details, list) and details:
                extra = "; ".join(
                    str(d.get("message") or d.get("code") or d) if isinstance(d, dict) else str(d)
                    for d in details
                )
                message = f"{message} ({extra})" if message else extra
            if message:
                return str(message)[:500]
        return response.text.strip()[:300] or response.reason_phrase

    #: What to do when the host refuses the credentials (401/403).
    auth_hints: tuple[str, ...] = ()
    #: What to do while a rate limit is exhausted.
    rate_limit_hints: tuple[str, ...] = ("Narrow the query or retry after the reset time.",)


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - now)
    except (TypeError, ValueError):
        return None
