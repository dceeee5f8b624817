"""tools/list stays compact: what issue 12 added costs at most 10% more tokens (the figure of
benchmarks/bench_tools_list.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_tools_list.py"


def test_tools_list_grew_at_most_ten_percent(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_tools_list", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    before, after = bench.measure()
    with capsys.disabled():
        print(f"\ntools/list tokens: before issue 12 {before}, after {after}")
    assert after <= before * bench.TARGET
