"""What an operator sees: /healthz, /readyz and /metrics beside /mcp, and one log line per
call (never a token nor a file's content)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import octo
from octo.core.config import Config
from octo.core.errors import CallError
from octo.faces.http.access import HttpAccess
from octo.faces.http.metrics import PrometheusMeters
from octo.faces.mcp.serve import http_app
from tests.core.shared.replicas import free_port

TOKEN = "test-http-token-not-real-ops"


def app_client(config: Config, env: dict[str, str] | None = None) -> TestClient:
    """The HTTP app of ``octo serve --http`` on loopback (``env``: OCTO_HTTP_TOKEN)."""
    access = HttpAccess.configure("127.0.0.1", 8000, env or {})
    return TestClient(http_app(access, config), base_url="http://127.0.0.1:8000")


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The HTTP app in this process, its lifespan run."""
    with app_client(request.param) as client:
        yield client


@pytest.mark.parametrize("served", [Config()], indirect=True)
def test_health_and_metrics_beside_mcp(served: TestClient) -> None:
    assert served.get("/healthz").text == "ok\n"
    ready = served.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {
        "ready": True,
        "gateway": "open",
        "redis": "off",
    }
    metrics = served.get("/metrics")
    assert metrics.status_code == 200
    assert metrics.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert 'octo_child_processes{kind="rg"}' in metrics.text
    assert "octo_redis_up" in metrics.text


@pytest.mark.parametrize(
    "served",
    [Config.from_env({"OCTO_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})],
    indirect=True,
)
def test_not_ready_while_the_configured_redis_is_unreachable(served: TestClient) -> None:
    assert served.get("/healthz").status_code == 200
    ready = served.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["redis"].startswith("unreachable at redis://127.0.0.1:")


def test_ready_with_a_reachable_redis(redis_url: str) -> None:
    config = Config.from_env({"OCTO_REDIS_URL": redis_url})
    with app_client(config) as client:
        assert client.get("/readyz").json()["redis"] == "ok"


def test_with_a_token_metrics_need_it_and_the_probes_do_not() -> None:
    with app_client(Config(), {"OCTO_HTTP_TOKEN": TOKEN}) as client:
        probes = [client.get(path).status_code for path in ("/healthz", "/readyz")]
        missing = client.get("/metrics")
        wrong = client.get("/metrics", headers={"authorization": "Bearer not-the-token-000"})
        right = client.get("/metrics", headers={"authorization": f"Bearer {TOKEN}"})
        mcp = client.post("/mcp", json={})
    assert probes == [200, 200]
    assert (missing.status_code, wrong.status_code, mcp.status_code) == (401, 401, 401)
    assert right.status_code == 200 and "octo_queries_total" in right.text


async def test_a_call_is_counted_and_logged_in_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "password = 'hunter2-not-real'"
    (tmp_path / "a.py").write_text(f"{secret}\nneedle = 1\n")
    meters = PrometheusMeters()
    caplog.set_level(logging.INFO, logger="octo.calls")
    env = {"GITHUB_TOKEN": "ghp_" + "fake" * 9}
    async with octo.Gateway(Config.from_env(env), roots=[tmp_path], meters=meters) as gateway:
        await gateway.local_get_file_content([{"path": str(tmp_path / "a.py")}, {"path": "/etc"}])
        with pytest.raises(CallError):
            await gateway.local_search_code([])
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "octo.calls"]
    assert lines[0] == {
        "tool": "localGetFileContent",
        "queries": 2,
        "statuses": ["success", "error"],
        "errors": ["PATH_NOT_ALLOWED"],
        "ms": lines[0]["ms"],
        "cached": 0,
    }
    assert lines[1]["tool"] == "localSearchCode" and lines[1]["rejected"] is True
    text = caplog.text
    assert "hunter2" not in text and "needle" not in text and "ghp_" not in text
    exposition = meters.exposition().decode()
    queries = 'octo_queries_total{output_mode="",status="%s",tool="%s"} 1.0'
    assert queries % ("success", "localGetFileContent") in exposition
    assert queries % ("rejected", "localSearchCode") in exposition
    assert 'octo_call_seconds_count{tool="localGetFileContent"} 1.0' in exposition


async def test_searches_are_counted_by_output_mode_with_bounded_labels(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("needle = 1\n")
    meters = PrometheusMeters()
    async with octo.Gateway(roots=[tmp_path], meters=meters) as gateway:
        await gateway.call(
            "localSearchCode",
            [
                {"pattern": "needle", "path": "."},
                {"pattern": "needle", "path": ".", "outputMode": "countOnly"},
                {"pattern": "needle", "path": ".", "outputMode": "totalOnly"},
                {"pattern": "needle", "path": ".", "outputMode": "made-up-" + "x" * 40},
            ],
        )
    exposition = meters.exposition().decode()
    counted = 'octo_queries_total{output_mode="%s",status="%s",tool="localSearchCode"} 1.0'
    assert counted % ("groupByFile", "success") in exposition
    assert counted % ("countOnly", "success") in exposition
    assert counted % ("totalOnly", "success") in exposition
    assert counted % ("other", "error") in exposition
    assert "made-up" not in exposition
