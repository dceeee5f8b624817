"""tools/list stays compact (the figures of benchmarks/bench_tools_list.py): what issue 12
added costs at most 10% more tokens, and what a model sees of the tools (name, description,
input schema; characters / 4, as octo's token budget counts) stays within issue 24's budget."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from octo.core.budget import estimate_tokens
from octo.registry import all_tools

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_tools_list.py"
#: Issue 24's budget of model-visible tokens: per tool, and for every tool together.
PER_TOOL = 700
ALL_TOOLS = 14_000


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_tools_list", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def _model_visible() -> dict[str, int]:
    return {
        spec.name: estimate_tokens(
            len(
                spec.name
                + spec.description
                + json.dumps(spec.input_schema(), separators=(",", ":"))
            )
        )
        for spec in all_tools()
    }


def test_tools_list_grew_at_most_ten_percent(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    before, after = bench.measure()
    with capsys.disabled():
        print(f"\ntools/list tokens: before issue 12 {before}, after {after}")
    assert after <= before * bench.TARGET


def test_every_tool_within_its_token_budget() -> None:
    over = {name: tokens for name, tokens in _model_visible().items() if tokens > PER_TOOL}
    assert not over, f"model-visible tokens above {PER_TOOL}: {over}"


def test_all_tools_within_the_token_budget() -> None:
    total = sum(_model_visible().values())
    assert total <= ALL_TOOLS, f"model-visible tokens of all tools: {total} > {ALL_TOOLS}"
