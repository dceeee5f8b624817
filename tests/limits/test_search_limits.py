"""localSearchCode within bounds: a line of tens of megabytes is shown by a preview read in
bounded memory, a file named as path obeys OCTO_RG_MAX_FILESIZE, a search that reaches rg's
time limit after finding matches answers with them (partial), and no more rg processes run
at once than OCTO_RG_CONCURRENCY."""

from __future__ import annotations

import os
import random
import tracemalloc
from pathlib import Path

import anyio
import pytest

from tests.limits.conftest import Run

# rg's regex engine gives up its fast automaton on this over random "ab" text: about 2 MB/s.
SLOW_PATTERN = "a[ab]{20}c"
SLOW_MATCH = "a" + "b" * 20 + "c"


def _slow_file(path: Path, megabytes: int) -> None:
    """Random lines of "a" and "b": too varied for rg's automaton cache."""
    to_ab = bytes(ord("a") if i & 1 else ord("b") for i in range(256))
    text = random.Random(1).randbytes(megabytes * 1024 * 1024).translate(to_ab)
    rows = [text[i : i + 199] + b"\n" for i in range(0, len(text), 199)]
    path.write_bytes(b"".join(rows))


@pytest.mark.slow
async def test_a_line_of_tens_of_megabytes_is_previewed_in_bounded_memory(
    root: Path, run: Run
) -> None:
    (root / "small.txt").write_text("needle\n")
    await run("localSearchCode", [{"pattern": "needle", "path": "small.txt"}])  # imports
    (root / "data.json").write_text("[" + "1," * 15_000_000 + '"needle"]\n')
    tracemalloc.start()
    try:
        (found,) = await run(
            "localSearchCode", [{"pattern": "needle", "path": "data.json"}], rg_max_filesize="200M"
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024  # before: the 30 MB line was read whole, twice over
    (match,) = found["data"]["files"][0]["matches"]
    assert match["lineNumber"] == 1
    assert "bytes, cut]" in match["content"]
    assert len(match["content"]) < 1000


async def test_a_file_named_as_path_obeys_the_size_limit(root: Path, run: Run) -> None:
    (root / "big.log").write_text("needle\n" * 300_000)  # 2.1 MB
    whole_tree, one_file = await run(
        "localSearchCode",
        [{"pattern": "needle", "path": "."}, {"pattern": "needle", "path": "big.log"}],
        rg_max_filesize="1M",
    )
    assert whole_tree["status"] == "empty"  # rg skips it while walking
    assert one_file["error"]["code"] == "FILE_TOO_LARGE"  # before: searched anyway
    assert any("OCTO_RG_MAX_FILESIZE" in hint for hint in one_file["hints"])


async def test_rg_time_limit_after_matches_is_a_partial_answer(root: Path, run: Run) -> None:
    (root / "a.txt").write_text(f"{SLOW_MATCH}\n")
    _slow_file(root / "slow.txt", 4)  # about 2 s of rg's time
    (found,) = await run(
        "localSearchCode", [{"pattern": SLOW_PATTERN, "path": "."}], rg_timeout_ms=400
    )
    assert found["status"] == "success"  # before: a bare TIMEOUT
    assert found["partial"] is True
    assert found["data"]["stats"]["complete"] is False
    assert [f["path"] for f in found["data"]["files"]] == ["a.txt"]
    assert any("OCTO_RG_TIMEOUT_MS" in hint for hint in found["hints"])


async def test_rg_time_limit_before_any_match_is_an_empty_partial_page(
    root: Path, run: Run
) -> None:
    _slow_file(root / "slow.txt", 4)
    (found,) = await run(
        "localSearchCode", [{"pattern": SLOW_PATTERN, "path": "."}], rg_timeout_ms=300
    )
    # Never a bare TIMEOUT (issue 19): an empty page that says it is partial and how to go on.
    assert found["status"] == "empty" and found["partial"] is True
    assert found["data"]["stats"]["complete"] is False
    assert any("retry" in hint and "OCTO_RG_TIMEOUT_MS" in hint for hint in found["hints"])


def _running_rg() -> int:
    """rg processes below this one."""
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv0 = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and argv0.endswith(b"/rg"):
            count += 1
    return count


@pytest.mark.slow
async def test_no_more_rg_processes_run_at_once_than_the_governor_allows(
    root: Path, run: Run
) -> None:
    (root / "a.txt").write_text(f"{SLOW_MATCH}\n")
    _slow_file(root / "slow.txt", 2)
    most = 0

    async def watch() -> None:
        nonlocal most
        while True:
            most = max(most, _running_rg())
            await anyio.sleep(0.01)

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch)
        answers = await run(
            "localSearchCode",
            [{"pattern": SLOW_PATTERN, "path": "."}] * 4,
            rg_timeout_ms=300,
            rg_concurrency=1,
        )
        tg.cancel_scope.cancel()
    assert most == 1  # before: all four at once
    assert [a["status"] for a in answers] == ["success"] * 4
    assert all(a["partial"] for a in answers)


@pytest.mark.slow
async def test_a_query_queued_until_its_deadline_answers_a_partial_page(
    root: Path, run: Run
) -> None:
    # One rg at a time and a search that holds it to its deadline: the queries queued
    # behind it never get a turn. Each answers an empty partial page, never a bare TIMEOUT.
    _slow_file(root / "slow.txt", 8)
    answers = await run(
        "localSearchCode",
        [{"pattern": SLOW_PATTERN, "path": "."}] * 3,
        rg_timeout_ms=30_000,
        rg_concurrency=1,
        query_timeout=2.5,
    )
    assert [a["status"] for a in answers] == ["empty"] * 3, answers
    assert all(a["partial"] for a in answers)
    assert all(any("retry" in hint.lower() for hint in a["hints"]) for a in answers)
