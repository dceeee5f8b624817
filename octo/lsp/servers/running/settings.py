"""The LSP family's limits, from ``OCTO_LSP_*`` variables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from octo.core.config import env_bytes
from octo.core.config import env_seconds
from octo.core.config import read_settings
from octo.core.config import setting
from octo.core.config import whole
from octo.lsp.servers.running.memory import default_budget


@dataclass(frozen=True)
class LspSettings:
    """Pool and request limits (seconds unless said otherwise).

    ``calls_deadline`` bounds a whole call graph's expansion; ``settle_timeout`` replaces
    each server's own cap on the wait for indexing after it starts. ``memory`` (bytes) is
    the budget of all servers' resident memory together, read every ``memory_check``.
    """

    idle_timeout: float = setting(600.0, "OCTO_LSP_IDLE_TIMEOUT", env_seconds)
    max_servers: int = setting(4, "OCTO_LSP_MAX_SERVERS", whole(1, 64))
    init_timeout: float = setting(60.0, "OCTO_LSP_INIT_TIMEOUT", env_seconds)
    request_timeout: float = setting(20.0, "OCTO_LSP_REQUEST_TIMEOUT", env_seconds)
    calls_deadline: float = setting(40.0, "OCTO_LSP_CALLS_DEADLINE", env_seconds)
    memory: int = setting(default_budget(), "OCTO_LSP_MEMORY", env_bytes)
    memory_check: float = setting(2.0, "OCTO_LSP_MEMORY_CHECK", env_seconds)
    settle_timeout: float | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> LspSettings:
        return read_settings(
            cls,
            env,
            settle_timeout=(
                env_seconds(env, "OCTO_LSP_SETTLE_TIMEOUT", 1.0)
                if env.get("OCTO_LSP_SETTLE_TIMEOUT")
                else None
            ),
        )
