"""The rg process plumbing: streamed lines, the deadline, and the kill on early exit."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from octo.core.concurrency import RankedLimiter
from octo.core.errors import QueryTimeoutError
from octo.transports.ripgrep import RgPlace
from octo.transports.ripgrep import open_rg
from octo.transports.ripgrep import run_rg

#: A place in a queue of rg processes of its own, as a runtime would give it.
PLACE = RgPlace(RankedLimiter(4), None)


def assert_reaped(pid: int) -> None:
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_deadline_kills_a_stuck_rg(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # no writer: rg blocks opening it
    with pytest.raises(QueryTimeoutError, match="within 200 ms") as caught:
        async with open_rg(["needle", str(fifo)], place=PLACE, timeout_ms=200) as rg:
            pid = rg.pid
            async for _ in rg.record_batches(b"\n"):
                pass
    assert any("OCTO_RG_TIMEOUT_MS" in h for h in caught.value.hints)
    assert_reaped(pid)


async def test_leaving_early_kills_rg(tmp_path: Path) -> None:
    for i in range(200):
        (tmp_path / f"f{i:03d}.txt").write_text("needle\n" * 50)
    async with open_rg(
        ["--json", "--sort=path", "needle", "."], place=PLACE, cwd=tmp_path, timeout_ms=10_000
    ) as rg:
        pid = rg.pid
        async for lines in rg.record_batches(b"\n"):
            assert json.loads(lines[0])["type"] == "begin"
            break
    assert_reaped(pid)


async def test_records_longer_than_a_pipe_chunk_arrive_whole(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("a" * 300_000 + "needle\nneedle again\n")
    async with open_rg(
        ["--json", "needle", "min.js"], place=PLACE, cwd=tmp_path, timeout_ms=10_000
    ) as rg:
        events = [json.loads(line) async for lines in rg.record_batches(b"\n") for line in lines]
        assert await rg.wait() == 0
    kinds = [event["type"] for event in events]
    assert kinds == ["begin", "match", "match", "end", "summary"]
    assert len(events[1]["data"]["lines"]["text"]) == 300_007


async def test_exit_code_and_stderr_of_a_rejected_pattern(tmp_path: Path) -> None:
    async with open_rg(["--json", "(", "."], place=PLACE, cwd=tmp_path, timeout_ms=10_000) as rg:
        assert [lines async for lines in rg.record_batches(b"\n")] == []
        assert await rg.wait() == 2
        assert "regex parse error" in rg.stderr


async def test_run_rg_returns_whole_output_and_exit_code(tmp_path: Path) -> None:
    for i in range(300):
        (tmp_path / f"f{i:03d}.txt").write_text("needle\n" * 3)
    done = await run_rg(["--count", "needle", "."], place=PLACE, cwd=tmp_path, timeout_ms=10_000)
    assert done.returncode == 0
    assert sorted(done.stdout.splitlines()) == [f"./f{i:03d}.txt:3".encode() for i in range(300)]
    rejected = await run_rg(["("], place=PLACE, cwd=tmp_path, timeout_ms=10_000)
    assert rejected.returncode == 2
    assert "regex parse error" in rejected.stderr


async def test_run_rg_reads_a_small_output_in_place_and_a_large_one_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker thread's wake-up costs more than reading a few KiB of a finished run.
    (tmp_path / "small.txt").write_text("needle\n" * 10)
    (tmp_path / "large.txt").write_text("needle in a large output\n" * 10_000)
    hops = 0
    run_sync = anyio.to_thread.run_sync

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal hops
        hops += 1
        return await run_sync(*args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    small = await run_rg(["needle", "small.txt"], place=PLACE, cwd=tmp_path, timeout_ms=10_000)
    assert (small.stdout, small.stderr, hops) == (b"needle\n" * 10, "", 0)
    large = await run_rg(["needle", "large.txt"], place=PLACE, cwd=tmp_path, timeout_ms=10_000)
    assert large.stdout == b"needle in a large output\n" * 10_000
    assert hops == 1


async def test_run_rg_deadline_kills_a_stuck_rg(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    before = set(os.listdir("/proc"))
    with pytest.raises(QueryTimeoutError, match="within 200 ms"):
        await run_rg(["needle", str(fifo)], place=PLACE, timeout_ms=200)
    rg_left = [
        pid
        for pid in set(os.listdir("/proc")) - before
        if pid.isdigit() and str(fifo) in _cmdline(pid)
    ]
    assert rg_left == []


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


async def test_the_rg_of_an_earlier_call_goes_first(tmp_path: Path) -> None:
    # One slot, held: a later call's rg asks first, an earlier call's second; the earlier
    # call's rg runs first once the slot is free.
    limiter = RankedLimiter(1)
    order: list[str] = []

    async def search(arrived: float, name: str) -> None:
        await run_rg(
            ["--files", "."], place=RgPlace(limiter, arrived), cwd=tmp_path, timeout_ms=10_000
        )
        order.append(name)

    async with anyio.create_task_group() as tasks, limiter.hold(0):
        tasks.start_soon(search, 20.0, "later call")
        await anyio.wait_all_tasks_blocked()
        tasks.start_soon(search, 10.0, "earlier call")
        await anyio.wait_all_tasks_blocked()
    assert order == ["earlier call", "later call"]
