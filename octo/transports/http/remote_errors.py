"""How a host's answers become octo's errors: an HTTP status, a rate limit that outlasts the
wait a query may afford; every message with the host's own secrets scrubbed out."""

from __future__ import annotations

import math

import httpx

from octo.core.errors import AuthenticationError
from octo.core.errors import InvalidQueryError
from octo.core.errors import NotFoundError
from octo.core.errors import OctoError
from octo.core.errors import RateLimitError
from octo.core.formats import iso_utc
from octo.transports.http.policy import HostPolicy


def scrubbed(policy: HostPolicy, text: str) -> str:
    """``text`` without the secrets ``policy`` sends."""
    for secret in policy.secrets():
        if secret:
            text = text.replace(secret, "[REDACTED]")
    return text


def rate_limit_error(policy: HostPolicy, wait: float, reason: str, now: float) -> RateLimitError:
    """The error of a query that would have to wait ``wait`` seconds from ``now``."""
    reset_at = now + wait
    when = iso_utc(reset_at)
    return RateLimitError(
        f"{policy.name} rate limit: {reason}; retry after {math.ceil(wait)} s ({when})",
        reset_at=reset_at,
        hints=[f"Limit resets at {when}", *policy.rate_limit_hints],
    )


def status_error(policy: HostPolicy, response: httpx.Response) -> OctoError:
    """The error of a 4xx answer that no retry mends."""
    status = response.status_code
    message = scrubbed(policy, f"{policy.name} answered {status}: {policy.error_message(response)}")
    if status in (401, 403):
        return AuthenticationError(message, hints=list(policy.auth_hints))
    if status in (404, 410):
        return NotFoundError(message)
    return InvalidQueryError(message)
