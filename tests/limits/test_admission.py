"""Load: a runtime admits the calls of local work it can finish (OCTO_MAX_CALLS) and tells a
call that cannot start within OCTO_ADMISSION_WAIT at once that octo is busy (BUSY, with
resetAt and a hint), instead of letting it wait to its deadline to answer an empty page.
Admitted calls finish whole."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import anyio

import octo
from octo.core.config import Config

_QUERIES = [{"pattern": f"word{n}", "path": "."} for n in range(5)]


async def test_calls_past_the_admitted_ones_are_told_busy_at_once(root: Path) -> None:
    for n in range(300):
        (root / f"f{n}.py").write_text("".join(f"word{k} = {n}\n" for k in range(5)) * 50)
    env = {"OCTO_MAX_CALLS": "1", "OCTO_ADMISSION_WAIT": "0.001", "OCTO_ROOTS": str(root)}
    calls: list[list[dict[str, Any]]] = []
    config = Config.from_env(env)
    assert (config.max_calls, config.admission_wait) == (1, 0.001)
    async with octo.Gateway(config) as gateway:

        async def call() -> None:
            response = await gateway.call("localSearchCode", _QUERIES)
            calls.append(response.to_wire()["results"])

        async with anyio.create_task_group() as tg:
            for _ in range(8):
                tg.start_soon(call)
    outcomes = Counter(
        "busy" if all(row["status"] == "error" for row in rows) else "admitted" for rows in calls
    )
    assert outcomes["busy"] >= 1 and outcomes["admitted"] >= 1, outcomes
    for rows in calls:
        codes = {row.get("error", {}).get("code") for row in rows}
        if codes == {"BUSY"}:
            assert all(row["error"]["resetAt"] and "Retry in" in row["hints"][0] for row in rows)
        else:  # admitted: every query answered whole
            assert [row["status"] for row in rows] == ["success"] * 5
            assert not any(row.get("partial") for row in rows)
