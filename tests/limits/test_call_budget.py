"""The answers of one call share OCTO_MAX_CALL_TOKENS: each query gets its share before it
runs (no query runs twice), a query that needs little keeps what it needs, and each cut one
says how to continue."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from tests.limits.conftest import Run

BUDGET_HINT = "OCTO_MAX_CALL_TOKENS"


def _tokens(envelope: dict[str, Any]) -> int:
    return math.ceil(len(json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)) / 4)


def _big_files(root: Path, count: int) -> list[dict[str, Any]]:
    for index in range(count):
        lines = (f"line {n} of file {index}: " + "x" * 60 for n in range(2000))
        (root / f"big{index}.txt").write_text("\n".join(lines) + "\n")
    return [{"path": f"big{index}.txt"} for index in range(count)]


async def test_five_default_reads_share_the_call_budget(root: Path, run: Run) -> None:
    answers = await run("localGetFileContent", _big_files(root, 5))
    sizes = [_tokens(answer) for answer in answers]
    # Before: 5 x 5000 tokens of content. The call's budget is 15000 for all five.
    assert sum(sizes) <= 15000 * 1.05
    assert max(sizes) - min(sizes) < 300  # fair: alike needs get alike shares
    for answer in answers:
        assert answer["status"] == "success"
        assert any(hint.startswith("Continue reading") for hint in answer["hints"])
        assert any(BUDGET_HINT in hint for hint in answer["hints"])


async def test_a_small_answer_keeps_what_it_needs_and_each_big_one_its_share(
    root: Path, run: Run
) -> None:
    (root / "small.txt").write_text("tiny\n")
    queries = [{"path": "small.txt"}, *_big_files(root, 3)]
    small, *big = await run("localGetFileContent", queries, max_call_tokens=9000)
    assert small["data"]["content"] == "tiny\n"
    assert not any(BUDGET_HINT in hint for hint in small["hints"])
    # Shares are fixed before the queries run: the call's budget over its 4 queries.
    share = 9000 / 4
    for answer in big:
        assert share * 0.8 < _tokens(answer) <= share
        assert any(BUDGET_HINT in hint for hint in answer["hints"])


def _without_handles(answer: dict[str, Any]) -> str:
    """The answer as JSON with its content handle (new on every read) left out."""
    text = json.dumps(answer)
    handle = answer["data"].get("contentHandle")
    return text.replace(handle, "") if handle else text


async def test_answers_within_the_budget_are_left_alone(root: Path, run: Run) -> None:
    queries = _big_files(root, 2)
    alone = await run("localGetFileContent", queries, max_call_tokens=10**6)
    shared = await run("localGetFileContent", queries)
    # Two answers of 5000 tokens fit 15000.
    assert [_without_handles(a) for a in alone] == [_without_handles(a) for a in shared]
