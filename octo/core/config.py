"""Settings, read once from the environment (or given explicitly by the library user)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from dataclasses import fields
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import TypeVar
from urllib.parse import urlsplit

from octo.core.errors import ToolNotAvailableError
from octo.core.formats import parse_size
from octo.core.shared.store import SharedSettings

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

N = TypeVar("N", int, float)
T = TypeVar("T")
S = TypeVar("S", bound="DataclassInstance")


class ConfigError(ToolNotAvailableError, ValueError):
    """An environment variable holds a value octo cannot use; the message names it.

    Raised at start-up for gateway settings; a provider's own settings, read when it is
    first used, fail that query alone with TOOL_NOT_AVAILABLE.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, hints=["Fix or unset the variable and restart octo."])


def _number(env: Mapping[str, str], name: str, convert: Callable[[str], N], what: str) -> N | None:
    """``env[name]`` converted, None when unset; a value that does not convert names the
    variable."""
    raw = env.get(name)
    if not raw:
        return None
    try:
        return convert(raw)
    except ValueError:
        raise ConfigError(f"{name} must be {what}, got {raw!r}") from None


def env_int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    """``env[name]`` as a whole number in [low, high], else ``default`` when unset."""
    value = _number(env, name, int, "a whole number")
    if value is None:
        return default
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
    return value


def env_seconds(
    env: Mapping[str, str], name: str, default: float, *, zero_ok: bool = False
) -> float:
    """``env[name]`` as a positive number of seconds (or 0 with ``zero_ok``: a cache
    lifetime of 0 means "always revalidate"), else ``default`` when unset."""
    value = _number(env, name, float, "a number of seconds")
    if value is None:
        return default
    if not (value >= 0 if zero_ok else value > 0):
        bound = "0 or more" if zero_ok else "above 0"
        raise ConfigError(f"{name} must be {bound}, got {env[name]!r}")
    return value


def env_bytes(env: Mapping[str, str], name: str, default: int) -> int:
    """``env[name]`` as a size ("500M", "2G", a number of bytes), else ``default`` when unset."""
    raw = env.get(name)
    if not raw:
        return default
    try:
        return parse_size(raw)
    except ValueError as exc:
        raise ConfigError(f"{name}: {exc}") from None


def _size(env: Mapping[str, str], name: str, default: str) -> str:
    """``env[name]`` as written once it reads as a size (rg takes it so), else ``default``."""
    env_bytes(env, name, 0)
    return env.get(name) or default


#: How a setting's variable is read: (env, variable, default) to the value; a ConfigError
#: naming the variable when it is unusable.
Reader = Callable[[Mapping[str, str], str, Any], Any]


def whole(low: int, high: int) -> Reader:
    """A reader of a whole number in [low, high] (see :func:`env_int`)."""
    return lambda env, name, default: env_int(env, name, default, low, high)


def lifetime(env: Mapping[str, str], name: str, default: float) -> float:
    """A cache lifetime in seconds, 0 allowed: "always revalidate"."""
    return env_seconds(env, name, default, zero_ok=True)


def setting(default: T, variable: str, read: Reader) -> T:
    """A settings field declared once: ``default`` unless ``variable`` says otherwise, read by
    ``read`` when :func:`read_settings` builds the settings."""
    value: T = field(default=default, metadata={"variable": variable, "read": read})
    return value


def read_settings(cls: type[S], env: Mapping[str, str], /, **given: Any) -> S:
    """``cls`` (a dataclass) with each of its :func:`setting` fields read from its variable in
    ``env``; ``given``: the fields read otherwise."""
    read = {
        f.name: f.metadata["read"](env, f.metadata["variable"], f.default)
        for f in fields(cls)
        if "read" in f.metadata
    }
    return cls(**read, **given)


def _rg_timeout(env: Mapping[str, str], name: str, default: int) -> int:
    """rg's timeout in milliseconds, capped at 30 s as spec 003 says."""
    return min(env_int(env, name, default, 1, 2**31), 30_000)


def _shared(env: Mapping[str, str]) -> SharedSettings | None:
    """The shared store's settings (``OCTO_REDIS_*``); None without ``OCTO_REDIS_URL``."""
    url = env.get("OCTO_REDIS_URL", "").strip()
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss", "unix") or not (parts.hostname or parts.path):
        raise ConfigError(
            "OCTO_REDIS_URL must be redis://[:password@]host[:port][/db], rediss://... (TLS) "
            f"or unix:///path/to/socket, got a URL of scheme {parts.scheme or 'none'!r}"
        )
    if find_spec("redis") is None:
        raise ConfigError("OCTO_REDIS_URL needs the Redis client: pip install 'octo-gateway[team]'")
    defaults = SharedSettings(url)
    return SharedSettings(
        url=url,
        password=env.get("OCTO_REDIS_PASSWORD") or None,
        prefix=env.get("OCTO_REDIS_PREFIX", defaults.prefix),
        timeout=env_seconds(env, "OCTO_REDIS_TIMEOUT", defaults.timeout),
        cooldown=env_seconds(env, "OCTO_REDIS_COOLDOWN", defaults.cooldown),
        max_value_bytes=env_bytes(env, "OCTO_REDIS_MAX_VALUE", 1024 * 1024),
    )


def cache_dir(env: Mapping[str, str]) -> Path:
    """octo's cache directory (platformdirs; ``XDG_CACHE_HOME`` and ``HOME`` are read from
    ``env``, so a gateway built with its own environment keeps its files there)."""
    if sys.platform not in ("win32", "darwin"):
        base = env.get("XDG_CACHE_HOME") or (
            str(Path(env["HOME"]) / ".cache") if env.get("HOME") else ""
        )
        if base:
            return Path(base) / "octo"
    import platformdirs

    return Path(platformdirs.user_cache_dir("octo", appauthor=False))


def clone_dir(env: Mapping[str, str]) -> Path:
    """The managed clone folder (githubCloneRepo): ``OCTO_CLONE_DIR``, else ``clones`` in
    octo's cache directory."""
    explicit = env.get("OCTO_CLONE_DIR")
    return Path(explicit).expanduser() if explicit else cache_dir(env) / "clones"


#: The tool families MCP can publish or leave out (``OCTO_TOOLSETS``, ``--toolsets``).
TOOLSETS = ("local", "lsp", "semantic", "github", "packages", "discovery")


def parse_toolsets(text: str, source: str) -> frozenset[str] | None:
    """The toolsets a comma-separated ``text`` names; None for every one (empty or ``all``).

    Raises ConfigError naming ``source`` for a name that is no toolset.
    """
    names = {name.strip().lower() for name in text.split(",") if name.strip()}
    if not names or "all" in names:
        return None
    unknown = sorted(names - set(TOOLSETS))
    if unknown:
        raise ConfigError(
            f"{source} names no toolset {', '.join(unknown)}: choose from all, {', '.join(TOOLSETS)}"
        )
    return frozenset(names)


@dataclass(frozen=True)
class Config:
    """Gateway-wide settings.

    Providers read their own variables (tokens, hosts) from ``env`` so a test or
    a library user can hand a whole environment in without touching ``os.environ``.
    """

    roots: tuple[Path, ...] = ()
    max_tokens: int = setting(5000, "OCTO_MAX_TOKENS", whole(1, 10**7))
    chars_per_token: int = setting(4, "OCTO_CHARS_PER_TOKEN", whole(1, 100))
    query_timeout: float = setting(60.0, "OCTO_QUERY_TIMEOUT", env_seconds)
    cache_max_entries: int = setting(2000, "OCTO_CACHE_MAX_ENTRIES", whole(1, 10**9))
    cache_max_bytes: int = setting(64 * 1024 * 1024, "OCTO_CACHE_MAX_BYTES", whole(1, 2**62))
    rg_timeout_ms: int = setting(4000, "OCTO_RG_TIMEOUT_MS", _rg_timeout)
    rg_max_filesize: str = setting("10M", "OCTO_RG_MAX_FILESIZE", _size)
    #: Seconds git may take for one history answer: past them the answer is partial, with
    #: the next call that goes on (git may take a second more to print a first commit: an
    #: answer within 5 s).
    git_time_limit: float = setting(3.5, "OCTO_GIT_TIME_LIMIT", env_seconds)
    #: rg processes that run at once; more wait their turn (default: the CPU count).
    rg_concurrency: int = field(default_factory=lambda: os.cpu_count() or 1)
    #: Calls of local work run at once; more wait their turn (default: 4 per CPU).
    max_calls: int = field(default_factory=lambda: 4 * (os.cpu_count() or 1))
    #: Seconds a call may wait for its turn before it answers BUSY.
    admission_wait: float = setting(5.0, "OCTO_ADMISSION_WAIT", env_seconds)
    #: The tokens all the answers of one call may hold together, shared fairly.
    max_call_tokens: int = setting(15000, "OCTO_MAX_CALL_TOKENS", whole(1, 10**8))
    #: Seconds a content handle (getCachedContent) stays readable.
    handle_ttl: float = setting(900.0, "OCTO_HANDLE_TTL", env_seconds)
    #: Several octo servers sharing one Redis (OCTO_REDIS_URL); None: this process alone.
    shared: SharedSettings | None = None
    #: The managed clone folder (githubCloneRepo): the local tools read it beside the roots.
    clone_dir: Path = field(default_factory=lambda: clone_dir(os.environ))
    #: The tool families the MCP server publishes (OCTO_TOOLSETS); None: every one. The
    #: command line and the library keep every tool.
    toolsets: frozenset[str] | None = None
    env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Build from ``OCTO_*`` variables; ``OCTO_ROOTS`` is an os.pathsep-separated list.

        Raises ConfigError naming the variable when a value is unusable.
        """
        env = dict(os.environ if env is None else env)
        return read_settings(
            cls,
            env,
            roots=tuple(Path(p) for p in env.get("OCTO_ROOTS", "").split(os.pathsep) if p),
            rg_concurrency=env_int(env, "OCTO_RG_CONCURRENCY", os.cpu_count() or 1, 1, 1024),
            max_calls=env_int(env, "OCTO_MAX_CALLS", 4 * (os.cpu_count() or 1), 1, 100_000),
            shared=_shared(env),
            clone_dir=clone_dir(env),
            toolsets=parse_toolsets(env.get("OCTO_TOOLSETS", ""), "OCTO_TOOLSETS"),
            env=env,
        )
