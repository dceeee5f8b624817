"""How octo talks to an npm registry or a Python index: a bearer token or basic credentials,
and no rate-limit headers to read."""

from __future__ import annotations

import base64

from octo.packages.endpoints import Credentials
from octo.transports.http.policy import HostPolicy


class PackageIndexPolicy(HostPolicy):
    """An npm registry or a Python index: a bearer token or basic credentials."""

    def __init__(
        self, name: str, token: str | None = None, credentials: Credentials | None = None
    ) -> None:
        self.name = name
        self._authorization: str | None = None
        self._secrets: tuple[str, ...] = ()
        if token:
            self._authorization = f"Bearer {token}"
            self._secrets = (token,)
        elif credentials:
            basic = base64.b64encode(":".join(credentials).encode()).decode()
            self._authorization = f"Basic {basic}"
            self._secrets = tuple(s for s in (credentials[1], basic) if s)

    async def headers(self) -> dict[str, str]:
        return {"Authorization": self._authorization} if self._authorization else {}

    def secrets(self) -> tuple[str, ...]:
        return self._secrets

    auth_hints = ("The registry wants credentials: configure them where npm or pip reads them.",)
