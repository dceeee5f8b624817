"""Every kind of answer a remote client caches is declared with its shape, so a team's
replicas share it: forgetting one in ``codehosts/shapes/shared_kinds.py`` (or the packages'
``SHARED_SHAPES``) fails here, where before the answer was silently never shared. Each
tool of GitHub, GitLab and packageSearch is asked against the recorded hosts; every cached
answer's kind must be declared, and its value must travel as JSON through its shape and
come back equal (what a replica reads of another's answer)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import respx
from pydantic import TypeAdapter

import octo
from octo.codehosts.hosts.gitlab.backend import GITLAB_PAGES
from octo.codehosts.shapes.shared_kinds import GITHUB_SHAPES
from octo.codehosts.shapes.shared_kinds import GITLAB_SHAPES
from octo.core.config import Config
from octo.packages.search import SHARED_SHAPES as PACKAGE_SHAPES
from tests.limits.test_remote_budgets import ENV
from tests.limits.test_remote_budgets import QUERIES
from tests.limits.test_remote_budgets import recorded_hosts

SHAPES: dict[str, Any] = {**GITHUB_SHAPES, **GITLAB_SHAPES, **GITLAB_PAGES, **PACKAGE_SHAPES}


@pytest.fixture
def hosts() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        mock.route().mock(side_effect=recorded_hosts(lambda body: body))
        yield mock


async def test_every_cached_kind_is_declared_with_its_shape(hosts: respx.MockRouter) -> None:
    async with octo.Gateway(Config.from_env(ENV)) as gateway:
        for tool, query in QUERIES:
            await gateway.call(tool, [query])
        # What the one cache of the runtime holds: keys start with the kind.
        cached = {key: entry.value for key, entry in gateway.runtime.cache._entries.items()}
    kinds = {json.loads(key)[0] for key in cached}
    assert len(kinds) >= 20, kinds  # the queries reach most kinds
    assert kinds <= set(SHAPES), f"kinds without a shape: {sorted(kinds - set(SHAPES))}"
    for key, value in cached.items():
        shape = TypeAdapter(SHAPES[json.loads(key)[0]])
        assert shape.validate_json(shape.dump_json(value)) == value, key
