"""Identical requests in flight on several replicas cost one upstream request: the others
get the leader's answer, or its error; a leader that vanishes is taken over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import redis.asyncio as redis

import octo
from octo.core.cache import ResultCache
from octo.core.config import Config
from octo.core.errors import NotFoundError
from octo.core.meters import Meters
from octo.core.shared.redis_store import RedisStore
from octo.transports.http import remote_state
from octo.transports.http.remote_state import RemoteState
from octo.transports.http.remote_state import Shared
from tests.codehosts.hosts.github.conftest import make_env

RECORDING = Path(__file__).parents[2] / "codehosts/hosts/github/recordings/file_content.json"
README = {"owner": "octokit", "repo": "octokit.rb", "path": "README.md"}


class SlowHost:
    """A host that answers every request alike after ``delay`` seconds, and counts them."""

    def __init__(self, status: int, body: Any, delay: float = 0.3) -> None:
        self.status, self.body, self.delay = status, body, delay
        self.requests = 0

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        await anyio.sleep(self.delay)
        return httpx.Response(self.status, json=self.body)

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)


def readme_answer() -> Any:
    return json.loads(RECORDING.read_text())["interactions"][0]["response"]["body"]


async def ask_ten_times_over_two(host: SlowHost, config: Config) -> list[dict[str, Any]]:
    """Ten identical one-query calls at once, alternating between two gateways."""
    rows: list[dict[str, Any]] = []
    async with (
        octo.Gateway(config, http_transport=host.transport) as one,
        octo.Gateway(config, http_transport=host.transport) as two,
    ):

        async def ask(gateway: octo.Gateway) -> None:
            response = await gateway.github_get_file_content([README])
            rows.extend(response.to_wire()["results"])

        async with anyio.create_task_group() as tg:
            for index in range(10):
                tg.start_soon(ask, (one, two)[index % 2])
    return rows


def team(redis_url: str, prefix: str) -> Config:
    # A Redis call slower than OCTO_REDIS_TIMEOUT (0.25 s) counts as Redis down, and each
    # replica then asks upstream: on a loaded machine that is a call, not Redis, being slow.
    # Degraded Redis is test_degraded.py's subject; here every call waits for the answer.
    return Config.from_env(
        make_env(OCTO_REDIS_URL=redis_url, OCTO_REDIS_PREFIX=prefix, OCTO_REDIS_TIMEOUT="60")
    )


@pytest.mark.slow
async def test_ten_identical_queries_on_two_replicas_cost_one_request(
    redis_url: str, prefix: str
) -> None:
    host = SlowHost(200, readme_answer())
    rows = await ask_ten_times_over_two(host, team(redis_url, prefix))
    assert host.requests == 1
    assert [row["status"] for row in rows] == ["success"] * 10
    assert len({row["data"]["content"] for row in rows}) == 1


@pytest.mark.slow
async def test_the_leaders_error_reaches_every_replica(redis_url: str, prefix: str) -> None:
    host = SlowHost(404, {"message": "Not Found"})
    rows = await ask_ten_times_over_two(host, team(redis_url, prefix))
    assert host.requests == 1
    assert {row["error"]["code"] for row in rows} == {"NOT_FOUND"}


async def test_without_redis_each_process_asks_once(redis_url: str) -> None:
    host = SlowHost(200, readme_answer())
    await ask_ten_times_over_two(host, Config.from_env(make_env()))
    assert host.requests == 2


@pytest.fixture
async def store(redis_url: str, prefix: str) -> Any:
    config = Config.from_env(
        {"OCTO_REDIS_URL": redis_url, "OCTO_REDIS_PREFIX": prefix, "OCTO_REDIS_TIMEOUT": "60"}
    )
    assert config.shared is not None
    shared = RedisStore(config.shared, Meters())
    yield shared
    await shared.aclose()


def state(store: RedisStore) -> RemoteState:
    return RemoteState(ResultCache(100, 10**6), store, Meters(), "https://host.test", {"n": int})


async def loading(loads: list[str]) -> None:
    """Until the leader loads, so holds the lease: a follower started after a fixed pause
    could claim it first on a loaded machine, and lead."""
    for _ in range(1200):
        if loads:
            return
        await anyio.sleep(0.05)
    raise AssertionError("the leader never loaded")


async def test_a_vanished_leader_is_taken_over_when_its_lease_ends(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(remote_state, "LEASE", 0.3)
    follower = state(store)
    name = follower._name("scope", "key")
    # A replica claimed the request and died: nobody renews its lease.
    assert await store.claim(f"l:{name}", "dead-replica", 0.3) == "dead-replica"
    loads: list[int] = []

    async def load() -> int:
        loads.append(1)
        return 42

    with anyio.fail_after(5):
        value = await follower.coalesce(
            "key", "n", "scope", load, value_of=Shared, answer=lambda s, _cached: s.value
        )
    assert value == 42 and loads == [1]


@pytest.mark.slow
async def test_a_leader_keeps_its_lease_while_it_works(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A lease of 1 s renewed every third: a loaded machine's event loop may stall for a
    # fraction of a second, not for the 2/3 s a renewal may be late by.
    monkeypatch.setattr(remote_state, "LEASE", 1.0)
    leader, follower = state(store), state(store)
    loads: list[str] = []

    def loader(who: str, seconds: float) -> Any:
        async def load() -> int:
            loads.append(who)
            await anyio.sleep(seconds)
            return 7

        return load

    results: list[int] = []

    async def ask(state: RemoteState, who: str, seconds: float) -> None:
        results.append(
            await state.coalesce(
                "key",
                "n",
                "scope",
                loader(who, seconds),
                value_of=Shared,
                answer=lambda s, _cached: s.value,
            )
        )

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            tg.start_soon(ask, leader, "leader", 3.0)  # three leases long
            await loading(loads)
            tg.start_soon(ask, follower, "follower", 0.0)
    assert loads == ["leader"] and results == [7, 7]


async def test_a_followers_error_is_its_own_copy(store: RedisStore) -> None:
    leader, follower = state(store), state(store)

    loads: list[str] = []

    async def fail() -> int:
        loads.append("leader")
        await anyio.sleep(0.2)
        raise NotFoundError("gone", hints=["look elsewhere"])

    errors: list[NotFoundError] = []

    async def ask(state: RemoteState) -> None:
        try:
            await state.coalesce(
                "key", "n", "scope", fail, value_of=Shared, answer=lambda s, _c: s.value
            )
        except NotFoundError as exc:
            errors.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask, leader)
        await loading(loads)
        tg.start_soon(ask, follower)
    assert len(errors) == 2 and errors[0] is not errors[1]
    assert all((e.message, e.hints) == ("gone", ["look elsewhere"]) for e in errors)


async def listening(store: RedisStore) -> None:
    """Until the store's listener is subscribed (an announcement before would be missed)."""
    client = redis.Redis.from_url(store.settings.url)
    try:
        channel = store.settings.prefix + "settled"
        for _ in range(500):
            if (await client.pubsub_numsub(channel))[0][1] >= 1:
                return
            await anyio.sleep(0.01)
        raise AssertionError("the listener did not subscribe within 5 s")
    finally:
        await client.aclose()


async def test_a_follower_is_woken_by_the_leaders_announcement(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A follower that only polled would look again after a minute: the deadline below
    # passes only when the leader's announcement wakes it.
    monkeypatch.setattr(remote_state, "POLL_MAX", 60.0)
    leader, follower = state(store), state(store)
    loads: list[str] = []

    async def load() -> int:
        loads.append("leader")
        await anyio.sleep(1.0)  # time for the follower, however loaded the machine, to follow
        return 5

    async def not_called() -> int:
        loads.append("follower")
        return 0

    results: list[int] = []

    async def ask(state: RemoteState, load: Any) -> None:
        results.append(
            await state.coalesce("key", "n", "scope", load, Shared, lambda s, _c: s.value)
        )

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            tg.start_soon(store.listen)
            await listening(store)
            with anyio.fail_after(30):
                async with anyio.create_task_group() as calls:
                    calls.start_soon(ask, leader, load)
                    await loading(loads)
                    calls.start_soon(ask, follower, not_called)
            tg.cancel_scope.cancel()
    assert loads == ["leader"] and results == [5, 5]
