"""Recorded GitHub Actions and GitLab CI answers (recordings/*.json, bodies in the shapes of
the hosts' API docs; failure logs of pytest, jest, go test and cargo test in
recordings/*.log) replayed with respx, and gateways on them."""

from __future__ import annotations

import io
import zipfile
from collections.abc import AsyncIterator
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import respx

import octo
from octo.core.config import Config
from tests.codehosts.conftest import replay_by_url

RECORDINGS = Path(__file__).parent / "recordings"
GITHUB_ENV = {"GITHUB_API_URL": "https://gh.test/api/v3", "GITHUB_TOKEN": "test-token-not-real-ci"}
GITLAB_ENV = {"GITLAB_HOST": "https://gl.test", "GITLAB_TOKEN": "test-token-not-real-gl-ci"}
CONTEXT = {"mainResearchGoal": "m", "researchGoal": "r", "reasoning": "why"}


#: Tokens planted in the recorded logs, built from pieces so no scanner takes a file of the
#: repository for a leak; the logs hold a placeholder where each goes.
GITHUB_TOKEN_PLANTED = "ghp_" + "R2d2C3po4Bb8" + "Luke9Leia0Han1Chewie2Yoda"
GITLAB_TOKEN_PLANTED = "glpat-" + "Zx9Yw8Vu7" + "Ts6Rq5Po4Nm"
_PLACEHOLDERS = {
    b"@PLANTED_GITHUB_TOKEN@": GITHUB_TOKEN_PLANTED.encode(),
    b"@PLANTED_GITLAB_TOKEN@": GITLAB_TOKEN_PLANTED.encode(),
}


def log(name: str) -> bytes:
    """A recorded log, its planted tokens in place."""
    data = (RECORDINGS / f"{name}.log").read_bytes()
    for placeholder, token in _PLACEHOLDERS.items():
        data = data.replace(placeholder, token)
    return data


def run_log_archive(*, step_files: bool = True) -> bytes:
    """Run 9001's log archive as GitHub shapes it: a file per job at the top and, with
    ``step_files``, a folder per job, a file per step."""
    buffer = io.BytesIO()
    jobs = (
        ("tests (3.12)", "github_pytest_job", "4_Run pytest -q"),
        ("web", "github_jest_job", "3_Run npm test"),
    )
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, (job, name, step) in enumerate(jobs):
            archive.writestr(f"{number}_{job}.txt", log(name))
            if step_files:
                archive.writestr(f"{job}/1_Set up job.txt", "Current runner version: '2.321.0'\n")
                archive.writestr(f"{job}/{step}.txt", log(name))
    return buffer.getvalue()


def load(router: respx.MockRouter, name: str) -> dict[str, respx.Route]:
    """Mock every interaction of ``recordings/<name>.json`` (the query parameters exactly);
    routes by URL as recorded."""
    return replay_by_url(router, RECORDINGS / f"{name}.json")


@pytest.fixture
async def gateway_for() -> AsyncIterator[Callable[[dict[str, str]], octo.Gateway]]:
    made: list[octo.Gateway] = []

    def make(env: dict[str, str]) -> octo.Gateway:
        gateway = octo.Gateway(config=Config.from_env(env))
        made.append(gateway)
        return gateway

    yield make
    for gateway in made:
        await gateway.aclose()


async def one(gateway: octo.Gateway, tool: str, **query: Any) -> dict[str, Any]:
    """The envelope of one query as sent; never an internal error."""
    row: dict[str, Any] = (await gateway.call(tool, [{**CONTEXT, **query}])).to_wire()["results"][0]
    assert row.get("error", {}).get("code") != "INTERNAL_ERROR", row
    return row
