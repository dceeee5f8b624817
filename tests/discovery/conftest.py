"""A gateway over a small tree, with content handles on an injected clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import octo
from octo.core.config import Config
from octo.core.handles import MemoryHandleStore


class Clock:
    """Monotonic time that moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    inside = tmp_path / "root"
    (inside / "src").mkdir(parents=True)
    (inside / "src" / "big.py").write_text(
        "".join(f"line {n}: {'x' * 60}\n" for n in range(1, 401))
    )
    (inside / "src" / "min.js").write_text("var a=1;" * 200 + "needle();" + "var b=2;" * 200 + "\n")
    (tmp_path / "other").mkdir()
    return inside


@pytest.fixture
async def gateway(root: Path, clock: Clock) -> AsyncIterator[octo.Gateway]:
    config = Config(roots=(root,), max_tokens=1000)
    store = MemoryHandleStore(config.handle_ttl, clock=clock)
    async with octo.Gateway(config, handles=store) as gw:
        yield gw
