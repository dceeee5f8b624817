"""Replay of recorded npm registry and Python index answers (see record_registries.py), and a
gateway pointed at them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import respx

from octo import Gateway
from octo.core.config import Config

RECORDINGS = Path(__file__).parent / "recordings"
NPM = "https://registry.test/"
PYPI = "https://pypi.test/simple/"


def load_recording(router: respx.MockRouter, name: str) -> dict[str, respx.Route]:
    """Mock every interaction of ``recordings/<name>.json``; routes by URL."""
    data = json.loads((RECORDINGS / f"{name}.json").read_text(encoding="utf-8"))
    routes: dict[str, respx.Route] = {}
    for interaction in data["interactions"]:
        request, answer = interaction["request"], interaction["response"]
        if answer["body"] is not None:
            response = httpx.Response(
                answer["status"], headers=answer["headers"], json=answer["body"]
            )
        else:
            response = httpx.Response(
                answer["status"], headers=answer["headers"], text=answer["text"] or ""
            )
        url = request["url"]
        routes[url] = router.get(url).mock(return_value=response)
    return routes


@pytest.fixture
def recorded(respx_mock: respx.MockRouter) -> Callable[..., dict[str, respx.Route]]:
    """Load recordings by name into the test's router; returns the routes by URL."""

    def load(*names: str) -> dict[str, respx.Route]:
        routes: dict[str, respx.Route] = {}
        for name in names:
            routes.update(load_recording(respx_mock, name))
        return routes

    return load


def registry_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """An environment naming the placeholder npm registry and Python index, and nothing of this machine."""
    return {
        "OCTO_NPM_REGISTRY": NPM,
        "OCTO_PYPI_INDEX": PYPI,
        "HOME": str(tmp_path),
        "PATH": "",
        **extra,
    }


@pytest.fixture
async def open_gateway(tmp_path: Path) -> AsyncIterator[Callable[..., Gateway]]:
    """Build gateways over the placeholder package indexes; extra variables override; all closed."""
    opened: list[Gateway] = []

    def build(**extra: str) -> Gateway:
        gw = Gateway(Config.from_env(registry_env(tmp_path, **extra)))
        opened.append(gw)
        return gw

    yield build
    for gw in opened:
        await gw.aclose()


@pytest.fixture
def gateway(open_gateway: Callable[..., Gateway]) -> Gateway:
    return open_gateway()
