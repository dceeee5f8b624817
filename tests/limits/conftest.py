"""A root on disk and calls through a real gateway with chosen settings, for the tests of
what no query may do to the server: stall the others, hold memory, outlive its deadline."""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config
from tests.local import conftest as local_code

Run = Callable[..., Awaitable[list[dict[str, Any]]]]

#: The allowed root (tmp_path itself holds things outside it).
root = local_code.root


@pytest.fixture
def run(root: Path) -> Run:
    """``await run(tool, [queries], **settings)``: the envelopes of one call, in wire form,
    through a gateway rooted at ``root`` with ``Config(**settings)``."""

    async def call(
        tool: str, queries: list[dict[str, Any]], **settings: Any
    ) -> list[dict[str, Any]]:
        async with octo.Gateway(Config(**settings), roots=[root]) as gateway:
            response = await gateway.call(tool, queries)
        results: list[dict[str, Any]] = response.to_wire()["results"]
        return results

    return call
