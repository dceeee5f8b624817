"""githubSearchWorkflowRuns and githubGetJobLog end to end on recorded GitHub Actions and
GitLab CI answers: filters sent as the hosts take them, failed jobs named, logs reduced,
the log storage redirect followed without octo's token, secrets redacted, archives capped."""

from __future__ import annotations

import io
import zipfile
from collections.abc import AsyncIterator
from collections.abc import Callable

import httpx
import pytest
import respx

import octo
from tests.codehosts.ci.conftest import GITHUB_ENV
from tests.codehosts.ci.conftest import GITLAB_ENV
from tests.codehosts.ci.conftest import load
from tests.codehosts.ci.conftest import log
from tests.codehosts.ci.conftest import one
from tests.codehosts.ci.conftest import run_log_archive

Make = Callable[[dict[str, str]], octo.Gateway]
SHA = "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a"
REPO = {"owner": "acme", "repo": "shop"}
LOG_URL = "https://logs.test/jobs/501/log.txt"


async def test_runs_are_filtered_and_failed_runs_name_their_failed_jobs(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    load(router, "github_actions")
    row = await one(
        gateway_for(GITHUB_ENV),
        "githubSearchWorkflowRuns",
        **REPO,
        branch="fix-discount",
        conclusion="failure",
    )
    assert row["status"] == "success", row
    data = row["data"]
    assert data["host"] == "gh.test"
    failed, passed = data["runs"]
    assert failed["workflow"] == "Tests" and failed["conclusion"] == "failure"
    assert failed["failedJobs"] == ["tests (3.12)", "web"] and "failedJobs" not in passed
    assert failed["durationSeconds"] == 312 and failed["headSha"] == SHA
    hints = " ".join(row["hints"])
    assert 'githubGetJobLog {"owner":"acme","repo":"shop","runId":9001}' in hints
    assert 'githubSearchPullRequests {"owner":"acme","repo":"shop","prNumber":77}' in hints
    assert f'githubGetCommit {{"owner":"acme","repo":"shop","sha":"{SHA}"}}' in hints


async def test_a_pull_request_is_its_head_commit_and_a_workflow_its_id(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    routes = load(router, "github_actions")
    gateway = gateway_for(GITHUB_ENV)
    by_pull = await one(gateway, "githubSearchWorkflowRuns", **REPO, prNumber=77)
    assert by_pull["status"] == "success", by_pull
    assert routes[
        f"https://gh.test/api/v3/repos/acme/shop/actions/runs?per_page=10&page=1&head_sha={SHA}"
    ].called
    by_name = await one(gateway, "githubSearchWorkflowRuns", **REPO, workflow="tests.yml")
    assert [run["id"] for run in by_name["data"]["runs"]] == [9001]
    unknown = await one(gateway, "githubSearchWorkflowRuns", **REPO, workflow="deploy")
    assert unknown["error"]["code"] == "NOT_FOUND", unknown


async def test_host_must_name_the_configured_host(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    load(router, "github_actions")
    gateway = gateway_for(GITHUB_ENV)
    other = await one(gateway, "githubSearchWorkflowRuns", **REPO, host="ghe.example.test")
    assert other["error"]["code"] == "INVALID_QUERY" and "gh.test" in " ".join(other["hints"])
    router.get(LOG_URL).respond(200, content=log("github_jest_job"))
    named = await one(gateway, "githubGetJobLog", **REPO, jobId=501, host="gh.test")
    assert named["status"] == "success", named


async def test_job_log_follows_the_storage_redirect_without_the_token_and_redacts_secrets(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    load(router, "github_actions")
    storage = router.get(LOG_URL).respond(200, content=log("github_pytest_job"))
    row = await one(gateway_for(GITHUB_ENV), "githubGetJobLog", **REPO, jobId=501, contextLines=1)
    assert row["status"] == "success", row
    [job] = row["data"]["jobs"]
    [step] = job["steps"]
    assert step["name"] == "Run pytest -q" and step["failedTests"] == ["test_discount_rounding"]
    assert "E       AssertionError" in step["text"]
    assert "ghp_R2d2" not in str(row) and "[REDACTED" in step["text"]
    sent = storage.calls.last.request.headers
    assert "authorization" not in sent and GITHUB_ENV["GITHUB_TOKEN"] not in str(sent)
    hints = " ".join(row["hints"])
    assert 'localSearchCode (pattern="test_discount_rounding")' in hints
    assert 'keywordsToSearch=["test_discount_rounding"]' in hints
    assert "redirected the request to https://logs.test" in hints


async def test_a_run_reads_each_failed_job_from_its_log_archive(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    load(router, "github_actions")
    router.get("https://logs.test/runs/9001/logs.zip").respond(200, content=run_log_archive())
    row = await one(gateway_for(GITHUB_ENV), "githubGetJobLog", **REPO, runId=9001)
    assert row["status"] == "success", row
    tests, web = row["data"]["jobs"]
    assert tests["name"] == "tests (3.12)" and web["name"] == "web"
    assert [s["name"] for s in tests["steps"]] == ["Run pytest -q"]
    assert web["steps"][0]["failedTests"] == ["applies the coupon once"]
    assert "Received: 70" in web["steps"][0]["text"]


async def test_an_archive_of_job_files_only_is_split_into_steps_by_their_markers(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    load(router, "github_actions")
    archive = run_log_archive(step_files=False)
    router.get("https://logs.test/runs/9001/logs.zip").respond(200, content=archive)
    row = await one(gateway_for(GITHUB_ENV), "githubGetJobLog", **REPO, runId=9001)
    assert row["status"] == "success", row
    tests, web = row["data"]["jobs"]
    assert [s["name"] for s in tests["steps"]] == ["Run pytest -q"]
    assert [s["name"] for s in web["steps"]] == ["Run npm test"]


@pytest.mark.slow
async def test_a_zip_bomb_is_refused_unread(router: respx.MockRouter, gateway_for: Make) -> None:
    load(router, "github_actions")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("tests (3.12)/4_Run pytest -q.txt", b"\n" * (300 * 1024 * 1024))
    assert len(buffer.getvalue()) < 1024 * 1024
    router.get("https://logs.test/runs/9001/logs.zip").respond(200, content=buffer.getvalue())
    row = await one(gateway_for(GITHUB_ENV), "githubGetJobLog", **REPO, runId=9001)
    assert row["error"]["code"] == "INVALID_RESPONSE"
    assert "refused" in row["error"]["message"] and "jobId" in " ".join(row["hints"])


async def test_an_archive_of_too_many_entries_or_not_a_zip_is_refused(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    load(router, "github_actions")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for number in range(2001):
            archive.writestr(f"../../etc/{number}.txt", b"")
    route = router.get("https://logs.test/runs/9001/logs.zip")
    route.side_effect = [
        httpx.Response(200, content=buffer.getvalue()),
        httpx.Response(200, content=b"PK no zip"),
    ]
    gateway = gateway_for(GITHUB_ENV)
    for _ in range(2):
        row = await one(gateway, "githubGetJobLog", **REPO, runId=9001)
        assert row["error"]["code"] == "INVALID_RESPONSE", row


async def test_full_log_pages_by_lines(router: respx.MockRouter, gateway_for: Make) -> None:
    load(router, "github_actions")
    lines = b"".join(b"2026-11-20T10:15:01.0000000Z line %d\n" % n for n in range(1, 701))
    router.get(LOG_URL).respond(200, content=lines)
    gateway = gateway_for(GITHUB_ENV)
    second = await one(gateway, "githubGetJobLog", **REPO, jobId=501, fullLog=True, page=2)
    data = second["data"]
    assert data["totalLines"] == 700 and data["hasMore"] is True and data["fullLogPage"] == 2
    text = data["jobs"][0]["steps"][0]["text"]
    assert text.startswith("301: line 301") and text.endswith("600: line 600")
    assert "page=3" in data["tokens"]["paginationHint"]
    past = await one(gateway, "githubGetJobLog", **REPO, jobId=501, fullLog=True, page=9)
    assert "last page is 3" in " ".join(past["hints"])


async def test_a_reduction_over_the_budget_goes_behind_a_handle(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    load(router, "github_actions")
    errors = b"".join(
        b"Error: failure number %d of many, each one worth reading\n" % n for n in range(400)
    )
    router.get(LOG_URL).respond(200, content=errors)
    gateway = gateway_for({**GITHUB_ENV, "OCTO_MAX_TOKENS": "800"})
    row = await one(gateway, "githubGetJobLog", **REPO, jobId=501)
    [job] = row["data"]["jobs"]
    assert job["contentHandle"] and row["data"]["tokens"]["truncated"] is True
    whole = await one(gateway, "getCachedContent", handle=job["contentHandle"])
    assert "failure number 40 " in str(whole["data"])


async def test_gitlab_pipelines_and_their_failed_jobs(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    load(router, "gitlab_pipelines")
    gateway = gateway_for(GITLAB_ENV)
    row = await one(
        gateway,
        "githubSearchWorkflowRuns",
        provider="gitlab",
        owner="acme",
        repo="router",
        branch="main",
    )
    assert row["status"] == "success", row
    failed, running = row["data"]["runs"]
    assert failed["conclusion"] == "failure" and failed["failedJobs"] == ["go-test", "cargo-test"]
    assert failed["durationSeconds"] == 250 and running["status"] == "in_progress"
    assert any('"provider":"gitlab"' in hint and '"runId":1201' in hint for hint in row["hints"])
    by_status = await one(
        gateway,
        "githubSearchWorkflowRuns",
        provider="gitlab",
        owner="acme",
        repo="router",
        conclusion="failure",
    )
    [merge_request_run] = by_status["data"]["runs"]
    assert merge_request_run["id"] == 1201 and merge_request_run["pullRequests"] == [42]
    assert any(
        'githubSearchPullRequests {"provider":"gitlab","owner":"acme","repo":"router","prNumber":42}'
        in hint
        for hint in by_status["hints"]
    )


async def test_gitlab_traces_are_reduced_by_section(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    load(router, "gitlab_pipelines")
    trace = "https://gl.test/api/v4/projects/acme%2Frouter/jobs/{}/trace"
    router.get(trace.format(8101)).respond(200, content=log("gitlab_go_trace"))
    router.get(trace.format(8102)).respond(200, content=log("gitlab_cargo_trace"))
    gateway = gateway_for(GITLAB_ENV)
    row = await one(
        gateway, "githubGetJobLog", provider="gitlab", owner="acme", repo="router", runId=1201
    )
    assert row["status"] == "success", row
    go, cargo = row["data"]["jobs"]
    assert go["steps"][0]["name"] == "step_script" and go["steps"][0]["failedTests"] == [
        "TestMatchWildcard"
    ]
    assert "glpat-" not in str(row)
    assert "panicked at src/balance.rs:88:9" in cargo["steps"][0]["text"]
    one_job = await one(
        gateway, "githubGetJobLog", provider="gitlab", owner="acme", repo="router", jobId=8101
    )
    assert one_job["data"]["jobs"][0]["name"] == "go-test"
    whole = await one(
        gateway,
        "githubGetJobLog",
        provider="gitlab",
        owner="acme",
        repo="router",
        jobId=8101,
        fullLog=True,
    )
    page = whole["data"]["jobs"][0]["steps"][0]["text"]
    assert whole["data"]["totalLines"] == 19 and "section_" not in page and "\x1b" not in page
    assert "[REDACTED" in page and "glpat-" not in page


async def test_a_log_the_storage_cannot_decode_is_an_invalid_response(
    router: respx.MockRouter, gateway_for: Make
) -> None:
    load(router, "github_actions")
    router.get(LOG_URL).mock(
        side_effect=lambda _: httpx.Response(
            200, headers={"content-encoding": "gzip"}, stream=_Body(b"not gzip at all")
        )
    )
    row = await one(gateway_for(GITHUB_ENV), "githubGetJobLog", **REPO, jobId=501)
    assert row["status"] == "error", row
    assert row["error"]["code"] == "INVALID_RESPONSE", row
    assert "cannot decode" in row["error"]["message"]


class _Body(httpx.AsyncByteStream):
    """A body sent as is, read only as it streams (respx decodes ``content`` up front)."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.raw
