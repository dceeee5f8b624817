"""Trees on disk and a gateway rooted at them, for localSearchCode and localGetFileContent."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config

Tree = Callable[[Mapping[str, str | bytes]], Path]
Call = Callable[..., Awaitable[list[dict[str, Any]]]]
CallOne = Callable[..., Awaitable[dict[str, Any]]]


def hinted_query(envelope: dict[str, Any], prefix: str) -> dict[str, Any]:
    """The JSON query of the hint that starts with ``prefix``."""
    hint = next(h for h in envelope["hints"] if h.startswith(prefix))
    query: dict[str, Any] = json.loads(hint[hint.index("{") :])
    return query


def paths(envelope: dict[str, Any]) -> list[str]:
    """The paths of the files an answer shows."""
    return [entry["path"] for entry in envelope["data"]["files"]]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The allowed root; tmp_path itself holds things outside it."""
    inside = tmp_path / "root"
    inside.mkdir()
    return inside


@pytest.fixture
def tree(root: Path) -> Tree:
    """``tree({"a/b.py": "text"})``: files under the allowed root."""

    def build(files: Mapping[str, str | bytes]) -> Path:
        for rel, content in files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)
        return root

    return build


@pytest.fixture
def config() -> Config:
    """Defaults, independent of the environment the tests run in."""
    return Config()


@pytest.fixture
async def gateway(root: Path, config: Config) -> AsyncIterator[octo.Gateway]:
    async with octo.Gateway(config, roots=[root]) as gw:
        yield gw


@pytest.fixture
def call(gateway: octo.Gateway) -> Call:
    """``await call(tool, query, ...)``: the envelopes of one call, in wire form."""

    async def run(tool: str, *queries: dict[str, Any]) -> list[dict[str, Any]]:
        response = await gateway.call(tool, list(queries))
        results: list[dict[str, Any]] = response.to_wire()["results"]
        return results

    return run


@pytest.fixture
def search(call: Call) -> CallOne:
    """One localSearchCode query; its envelope in wire form."""

    async def run(**query: Any) -> dict[str, Any]:
        return (await call("localSearchCode", query))[0]

    return run


@pytest.fixture
def read(call: Call) -> CallOne:
    """One localGetFileContent query; its envelope in wire form."""

    async def run(**query: Any) -> dict[str, Any]:
        return (await call("localGetFileContent", query))[0]

    return run
