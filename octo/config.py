"""Settings, read once from the environment (or given explicitly by the library user)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    return int(raw) if raw else default


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    return float(raw) if raw else default


@dataclass(frozen=True)
class Config:
    """Gateway-wide settings.

    Providers read their own variables (tokens, hosts) from ``env`` so a test or
    a library user can hand a whole environment in without touching ``os.environ``.
    """

    roots: tuple[Path, ...] = ()
    max_tokens: int = 5000
    chars_per_token: int = 4
    query_timeout: float = 60.0
    cache_max_entries: int = 2000
    cache_max_bytes: int = 64 * 1024 * 1024
    rg_timeout_ms: int = 4000
    rg_max_filesize: str = "10M"
    env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Build from ``OCTO_*`` variables; ``OCTO_ROOTS`` is an os.pathsep-separated list."""
        env = dict(os.environ if env is None else env)
        roots = tuple(Path(p) for p in env.get("OCTO_ROOTS", "").split(os.pathsep) if p)
        return cls(
            roots=roots,
            max_tokens=_int(env, "OCTO_MAX_TOKENS", cls.max_tokens),
            chars_per_token=_int(env, "OCTO_CHARS_PER_TOKEN", cls.chars_per_token),
            query_timeout=_float(env, "OCTO_QUERY_TIMEOUT", cls.query_timeout),
            cache_max_entries=_int(env, "OCTO_CACHE_MAX_ENTRIES", cls.cache_max_entries),
            cache_max_bytes=_int(env, "OCTO_CACHE_MAX_BYTES", cls.cache_max_bytes),
            rg_timeout_ms=min(_int(env, "OCTO_RG_TIMEOUT_MS", cls.rg_timeout_ms), 30_000),
            rg_max_filesize=env.get("OCTO_RG_MAX_FILESIZE", cls.rg_max_filesize),
            env=env,
        )
