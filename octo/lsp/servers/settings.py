"""The LSP family's limits, from ``OCTO_LSP_*`` variables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from octo.core.config import env_int
from octo.core.config import env_seconds


@dataclass(frozen=True)
class LspSettings:
    """Pool and request limits (seconds unless said otherwise).

    ``calls_deadline`` bounds a whole call graph's expansion; ``settle_timeout`` replaces
    each server's own cap on the wait for indexing after it starts.
    """

    idle_timeout: float = 600.0
    max_servers: int = 4
    init_timeout: float = 60.0
    request_timeout: float = 20.0
    calls_deadline: float = 40.0
    settle_timeout: float | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> LspSettings:
        return cls(
            idle_timeout=env_seconds(env, "OCTO_LSP_IDLE_TIMEOUT", cls.idle_timeout),
            max_servers=env_int(env, "OCTO_LSP_MAX_SERVERS", cls.max_servers, 1, 64),
            init_timeout=env_seconds(env, "OCTO_LSP_INIT_TIMEOUT", cls.init_timeout),
            request_timeout=env_seconds(env, "OCTO_LSP_REQUEST_TIMEOUT", cls.request_timeout),
            calls_deadline=env_seconds(env, "OCTO_LSP_CALLS_DEADLINE", cls.calls_deadline),
            settle_timeout=(
                env_seconds(env, "OCTO_LSP_SETTLE_TIMEOUT", 1.0)
                if env.get("OCTO_LSP_SETTLE_TIMEOUT")
                else None
            ),
        )
