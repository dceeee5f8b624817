"""Who may talk to ``octo serve --http``: the Host and Origin a request may carry, and the
bearer token it must present.

Both checks are the mcp SDK's own: its transport security (Host / Origin validation against
DNS rebinding) and its bearer-token middleware, which answers 401 before any MCP handling.
What octo adds is the policy: which hosts are allowed on a bind, and that a server reachable
from other machines refuses to start without a token.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from octo.core.config import env_int
from octo.core.config import env_seconds

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken
    from mcp.server.transport_security import TransportSecuritySettings

#: Names every bind accepts in the Host header: the machine itself.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: The shortest token accepted: a short one can be guessed.
MIN_TOKEN_CHARS = 16


class HttpAccessError(ValueError):
    """The HTTP server cannot start as asked; the message is one line saying why."""


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(host: str) -> str:
    """``host`` as it appears in a Host header (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _read_token(env: Mapping[str, str], token_file: Path | None) -> str | None:
    if token_file is not None:
        try:
            token = token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise HttpAccessError(
                f"cannot read --token-file {token_file}: {exc.strerror}"
            ) from None
        if not token:
            raise HttpAccessError(f"--token-file {token_file} is empty")
    else:
        raw = env.get("OCTO_HTTP_TOKEN", "")
        token = raw.strip()
        if raw and not token:
            # Only spaces would silently turn authentication off: refused instead.
            raise HttpAccessError("OCTO_HTTP_TOKEN is set but holds only whitespace")
    if token and len(token) < MIN_TOKEN_CHARS:
        raise HttpAccessError(f"the HTTP token must have at least {MIN_TOKEN_CHARS} characters")
    return token or None


class StaticTokenVerifier:
    """The SDK's token-verifier protocol for one shared token, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        from mcp.server.auth.provider import AccessToken

        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="octo-http-client", scopes=[])
        return None


@dataclass(frozen=True)
class ConnectionLimits:
    """How many connections may be open at once, the seconds one may take to send its
    request headers, how many MCP sessions may live at once and the seconds one may stay
    idle (:mod:`octo.faces.http.limits` enforces them)."""

    max_connections: int = 1000
    header_timeout: float = 10.0
    #: About 46 KB each: 1,000 sessions hold under 50 MB.
    max_sessions: int = 1000
    #: The SDK's default of 30 minutes let abandoned sessions pile up.
    session_idle_timeout: float = 600.0
    #: Connections accepted in one go (uvicorn's default): each takes a descriptor before
    #: the connection cap can close one.
    backlog: int = 2048


@dataclass(frozen=True)
class HttpAccess:
    """Where the server listens and what a request must carry to be served."""

    host: str
    port: int
    token: str | None
    allowed_hosts: tuple[str, ...]
    #: Open connections, the time to send request headers, live sessions and their idle time
    #: (OCTO_HTTP_MAX_CONNECTIONS, OCTO_HTTP_HEADER_TIMEOUT, OCTO_HTTP_MAX_SESSIONS,
    #: OCTO_HTTP_SESSION_IDLE_TIMEOUT).
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)

    @classmethod
    def configure(
        cls,
        host: str,
        port: int,
        env: Mapping[str, str],
        *,
        token_file: Path | None = None,
        allow_hosts: Sequence[str] = (),
        insecure_no_auth: bool = False,
    ) -> HttpAccess:
        """The access rules of a server bound to ``host``: the token from ``--token-file``
        or ``OCTO_HTTP_TOKEN``, the bound host and loopback names plus ``allow_hosts``.

        Raises HttpAccessError when a non-loopback bind has no token and
        ``insecure_no_auth`` is not given, or the token is unusable; OSError when ``host``
        does not resolve.
        """
        token = _read_token(env, token_file)
        # A name that does not resolve cannot be listened on: say that first (OSError).
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        if token is None and not is_loopback(host) and not insecure_no_auth:
            raise HttpAccessError(
                f"refusing to serve HTTP on {host} without a token: set OCTO_HTTP_TOKEN or "
                "--token-file (or pass --insecure-no-auth to serve anyone who reaches the port)"
            )
        names = [_host_name(host), *LOOPBACK_NAMES, *(_host_name(h) for h in allow_hosts)]
        limits = ConnectionLimits(
            max_connections=env_int(
                env, "OCTO_HTTP_MAX_CONNECTIONS", ConnectionLimits.max_connections, 1, 100_000
            ),
            header_timeout=env_seconds(
                env, "OCTO_HTTP_HEADER_TIMEOUT", ConnectionLimits.header_timeout
            ),
            max_sessions=env_int(
                env, "OCTO_HTTP_MAX_SESSIONS", ConnectionLimits.max_sessions, 1, 100_000
            ),
            session_idle_timeout=env_seconds(
                env, "OCTO_HTTP_SESSION_IDLE_TIMEOUT", ConnectionLimits.session_idle_timeout
            ),
        )
        return cls(host, port, token, tuple(dict.fromkeys(names)), limits)

    def host_allowed(self, host: str | None) -> bool:
        """Whether a request's Host header names this server (with or without a port), as
        the SDK's check on /mcp decides: /readyz and /metrics use it too."""
        if host is None:
            return False
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return host in self.allowed_hosts or name in self.allowed_hosts

    def transport_security(self) -> TransportSecuritySettings:
        """The SDK's Host / Origin validation, on for every bind."""
        from mcp.server.transport_security import TransportSecuritySettings

        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[f"{name}{port}" for name in self.allowed_hosts for port in ("", ":*")],
            allowed_origins=[
                f"{scheme}://{name}{port}"
                for name in self.allowed_hosts
                for scheme in ("http", "https")
                for port in ("", ":*")
            ],
        )

    def app_options(self) -> dict[str, Any]:
        """Keyword arguments of the SDK's ``streamable_http_app``: host, transport security,
        session limits and, with a token, the bearer-token authentication."""
        options: dict[str, Any] = {
            "host": self.host,
            "transport_security": self.transport_security(),
            "max_sessions": self.limits.max_sessions,
            "session_idle_timeout": self.limits.session_idle_timeout,
        }
        if self.token is not None:
            from mcp.server.auth.settings import AuthSettings

            # The SDK mounts its bearer middleware only with AuthSettings; octo is no OAuth
            # server, so the issuer is the server itself and no metadata routes are added.
            options["auth"] = AuthSettings(
                issuer_url=f"http://{_host_name(self.host)}:{self.port}",  # type: ignore[arg-type]
                resource_server_url=None,
                required_scopes=[],
            )
            options["token_verifier"] = StaticTokenVerifier(self.token)
        return options
