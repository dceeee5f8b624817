"""Redis down or slow never fails a query: octo answers from its local cache and upstream,
logs the outage once, counts it, and shares again by itself once Redis is back."""

from __future__ import annotations

import itertools
import json
import logging
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
import redis
import respx

import octo
from octo.core.config import Config
from octo.faces.http.metrics import PrometheusMeters
from tests.codehosts.hosts.github.conftest import API
from tests.codehosts.hosts.github.conftest import make_env
from tests.core.shared.conftest import stored
from tests.core.shared.replicas import RedisProcess
from tests.core.shared.replicas import free_port

RECORDING = Path(__file__).parents[2] / "codehosts/hosts/github/recordings/file_content.json"
#: Every query of these tests asks for a file never asked before: none is a local hit.
NAMES = (f"doc{n}.md" for n in itertools.count())


@pytest.fixture
def router() -> Any:
    body = json.loads(RECORDING.read_text())["interactions"][0]["response"]["body"]
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        contents = re.escape(f"{API}/repos/octokit/octokit.rb/contents/")
        mock.get(url__regex=contents + ".*").respond(200, json=body)
        yield mock


def team(url: str, **extra: str) -> Config:
    return Config.from_env(make_env(OCTO_REDIS_URL=url, OCTO_REDIS_COOLDOWN="0.2", **extra))


def redis_errors(meters: PrometheusMeters) -> float:
    return sum(
        sample.value
        for metric in meters.registry.collect()
        if metric.name == "octo_redis_errors"
        for sample in metric.samples
        if sample.name == "octo_redis_errors_total"
    )


async def statuses(gateway: octo.Gateway) -> list[str]:
    """Three new files asked at once: their statuses."""
    queries = [{"owner": "octokit", "repo": "octokit.rb", "path": next(NAMES)} for _ in range(3)]
    response = await gateway.github_get_file_content(queries)
    return [row.status.value for row in response.results]


@pytest.mark.slow
async def test_killing_redis_loses_no_query_and_sharing_resumes_by_itself(
    router: respx.MockRouter, own_redis: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    meters = PrometheusMeters()
    caplog.set_level(logging.WARNING, logger="octo.shared")
    async with octo.Gateway(team(own_redis.url), meters=meters) as gateway:
        shared = gateway.runtime.shared
        assert shared is not None
        assert await statuses(gateway) == ["success"] * 3
        own_redis.kill()
        for _ in range(3):
            assert await statuses(gateway) == ["success"] * 3
        assert not await shared.ping()
        # Redis comes back (empty): after a cool-down the gateway shares again.
        own_redis.start()
        await anyio.sleep(0.3)
        assert await statuses(gateway) == ["success"] * 3
        assert await statuses(gateway) == ["success"] * 3
    outages = [r for r in caplog.records if "unavailable" in r.getMessage()]
    assert len(outages) == 1 and "redis://127.0.0.1" in outages[0].getMessage()
    assert any("is back" in r.getMessage() for r in caplog.records)
    assert redis_errors(meters) >= 1
    # The probe after the cool-down closed the breaker: at least the last three are shared.
    answers = [key for key in stored(own_redis.url, "octo:") if key.startswith(b"octo:e:")]
    assert len(answers) >= 3


@pytest.mark.slow
async def test_a_slow_redis_is_answered_around(
    router: respx.MockRouter, own_redis: RedisProcess
) -> None:
    meters = PrometheusMeters()
    async with octo.Gateway(team(own_redis.url), meters=meters) as gateway:

        def stall() -> None:
            redis.Redis.from_url(own_redis.url).execute_command("DEBUG", "SLEEP", "1.5")  # type: ignore[no-untyped-call]  # redis-py leaves it untyped

        async with anyio.create_task_group() as tg:
            tg.start_soon(anyio.to_thread.run_sync, stall)
            await anyio.sleep(0.1)
            with anyio.fail_after(10):
                assert await statuses(gateway) == ["success"] * 3
    assert redis_errors(meters) >= 1


async def test_an_unreachable_redis_from_the_start_answers_from_upstream(
    router: respx.MockRouter,
) -> None:
    config = team(f"redis://127.0.0.1:{free_port()}/0")
    async with octo.Gateway(config) as gateway:
        assert await statuses(gateway) == ["success"] * 3
        assert gateway.runtime.shared is not None
        assert not await gateway.runtime.shared.ping()
