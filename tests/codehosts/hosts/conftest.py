"""What the GitHub and GitLab tests share: gateways whose host client sleeps into a list, and
one query's envelope. Each host's conftest names its backend (``host_backend``) and its test
environment (``host_env``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from collections.abc import Callable
from typing import Any

import httpx
import pytest

import octo
from octo.codehosts.hosts.host import CodeHost
from octo.core.config import Config


class Sleeps(list[float]):
    """An injected sleep: records each wait and returns at once."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


GatewayFactory = Callable[..., octo.Gateway]


@pytest.fixture
async def gateway_factory(
    sleeps: Sleeps, host_backend: type[CodeHost], host_env: dict[str, str]
) -> AsyncIterator[GatewayFactory]:
    """Build gateways on an injected environment (``host_env`` unless given) whose host
    client sleeps into ``sleeps``."""
    made: list[octo.Gateway] = []

    def make(
        env: dict[str, str] | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: float | None = None,
    ) -> octo.Gateway:
        gateway = octo.Gateway(
            config=Config.from_env(host_env if env is None else env), http_transport=transport
        )
        remote = gateway.runtime.backend(host_backend).remote
        remote.sleep = sleeps
        if clock is not None:
            remote.clock = lambda: clock
        made.append(gateway)
        return gateway

    yield make
    for gateway in made:
        await gateway.aclose()


@pytest.fixture
def gateway(gateway_factory: GatewayFactory) -> octo.Gateway:
    return gateway_factory()


async def one(gateway: octo.Gateway, tool: str, **query: Any) -> dict[str, Any]:
    """The envelope of one query as sent; never an internal error."""
    row: dict[str, Any] = (await gateway.call(tool, [query])).to_wire()["results"][0]
    assert row.get("error", {}).get("code") != "INTERNAL_ERROR", row
    return row
