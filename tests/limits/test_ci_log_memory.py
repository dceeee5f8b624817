"""A CI log of hundreds of megabytes, served by a local host through GitHub's redirect to
its log storage, answers with its failure while octo's memory stays flat: the log streams
through the reducer, never held (issue 36)."""

from __future__ import annotations

import pytest

import octo
from octo.core.config import Config
from tests.limits.ci_log_host import log_host
from tests.limits.conftest import own_memory_kib
from tests.limits.conftest import reset_own_peak

#: The log's size: far above any cap on a body octo holds.
LOG_BYTES = 220 * 1024 * 1024
TOKEN = "test-token-not-real-bigl"


@pytest.mark.slow
async def test_a_huge_log_streams_through_in_bounded_memory() -> None:
    with log_host(LOG_BYTES) as (api, seen):
        env = {"GITHUB_API_URL": api, "GITHUB_TOKEN": TOKEN}
        async with octo.Gateway(config=Config.from_env(env)) as gateway:
            await gateway.call("getToolCategories", [{}])  # warm imports before measuring
            before = own_memory_kib("VmRSS")
            reset_own_peak()
            response = await gateway.call(
                "githubGetJobLog",
                [
                    {
                        "owner": "o",
                        "repo": "r",
                        "jobId": 7,
                        "mainResearchGoal": "m",
                        "researchGoal": "r",
                        "reasoning": "why",
                    }
                ],
            )
            grown_mib = (own_memory_kib("VmHWM") - before) / 1024
    [row] = response.to_wire()["results"]
    assert row["status"] == "success", row
    [step] = row["data"]["jobs"][0]["steps"]
    assert "FAILED tests/test_cart.py::test_discount_rounding" in step["text"]
    assert step["lines"] > 2_000_000
    # Loose: the log is 220 MiB; holding it (or a tenth of it) would show.
    assert grown_mib < 64, f"peak RSS grew {grown_mib:.0f} MiB"
    assert seen and "authorization" not in seen[0]
