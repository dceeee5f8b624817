"""Trees on disk and a gateway rooted at them, for localViewStructure and localFindFiles."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import octo

#: A fixed past time; the trees' mtimes are offsets from it, so orderings are exact.
BASE_TIME = 1_700_000_000

Tree = Callable[..., Path]
RunOne = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


def paths(result: dict[str, Any]) -> list[str]:
    """The paths of the entries localFindFiles found."""
    return [entry["path"] for entry in result["data"]["files"]]


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    """``tree({"a/b.py": "text"}, mtimes={"a/b.py": 60})``: files under tmp_path, dated."""

    def build(files: Mapping[str, str | bytes], *, mtimes: Mapping[str, int] | None = None) -> Path:
        for rel, content in files.items():
            target = tmp_path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)
            os.utime(target, (BASE_TIME, BASE_TIME))
        for rel, offset in (mtimes or {}).items():
            os.utime(
                tmp_path / rel, (BASE_TIME + offset, BASE_TIME + offset), follow_symlinks=False
            )
        return tmp_path

    return build


@pytest.fixture
async def gateway(tmp_path: Path) -> AsyncIterator[octo.Gateway]:
    async with octo.Gateway(roots=[tmp_path]) as gw:
        yield gw


@pytest.fixture
def run_one(gateway: octo.Gateway) -> RunOne:
    """Run one query of a tool; returns its envelope in wire form."""

    async def run(tool: str, query: dict[str, Any]) -> dict[str, Any]:
        response = await gateway.call(tool, [query])
        result: dict[str, Any] = response.to_wire()["results"][0]
        return result

    return run
