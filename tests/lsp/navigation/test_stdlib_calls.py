"""Issue 8's acceptance check: a call hierarchy over the whole Python standard library.

basedpyright needs minutes for the incoming calls of ``JSONDecoder.raw_decode`` with the
standard library (and whatever site-packages holds) as workspace, far beyond one request's
20 s. Whatever comes back in time is the answer: all of it (success), or part of it (partial,
with a hint naming the TIMEOUT; at the least the function itself). It used to end as
INTERNAL_ERROR with an ExceptionGroup. ty, the default Python server since issue 14, answers
the same call whole, in about a second.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from octo import Gateway
from octo.core.config import Config
from octo.core.errors import LspNotAvailableError
from octo.lsp.servers.table.commands import find_servers
from tests.lsp.conftest import assert_no_leftovers
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import result_of
from tests.lsp.conftest import server_sessions

STDLIB = Path(json.__file__).resolve().parent.parent


def _server_or_skip(env: dict[str, str], wanted: str) -> None:
    try:
        if find_servers("python", env)[0].server_id != wanted:
            pytest.skip(f"{wanted} is not installed")
    except LspNotAvailableError:
        pytest.skip(f"{wanted} is not installed")


def _raw_decode(depth: int) -> dict[str, object]:
    decoder = (STDLIB / "json" / "decoder.py").read_text().splitlines()
    line = next(n for n, text in enumerate(decoder, 1) if "def raw_decode(" in text)
    return {
        "uri": "json/decoder.py",
        "symbolName": "JSONDecoder.raw_decode",
        "lineHint": line,
        "direction": "incoming",
        "depth": depth,
    }


@pytest.mark.slow
async def test_the_default_server_answers_the_incoming_calls_of_raw_decode_whole() -> None:
    env = {k: v for k, v in lsp_env().items() if not k.startswith("OCTO_LSP_PYTHON_")}
    _server_or_skip(env, "ty")
    async with Gateway(Config.from_env(env), roots=[STDLIB]) as gw:
        result = result_of(await gw.lsp_call_hierarchy([_raw_decode(1)]))
        sessions = server_sessions()
    await assert_no_leftovers(sessions)
    assert result["status"] == "success", result
    assert "partial" not in result
    assert result["data"]["server"] == "ty"
    callers = {(call["from"]["name"], call["from"]["path"]) for call in result["data"]["calls"]}
    assert ("decode", "json/decoder.py") in callers


@pytest.mark.slow
async def test_incoming_calls_of_raw_decode_over_the_standard_library() -> None:
    env = lsp_env(OCTO_LSP_PYTHON_SERVERS="basedpyright")
    _server_or_skip(env, "basedpyright")
    query = _raw_decode(2)
    async with Gateway(Config.from_env(env), roots=[STDLIB]) as gw:
        result = result_of(await gw.lsp_call_hierarchy([query]))
        sessions = server_sessions()
    await assert_no_leftovers(sessions)
    assert result["status"] in ("success", "empty"), result
    assert result["data"]["item"]["name"] == "raw_decode"
    if result.get("partial"):
        assert result["data"]["partial"] is True
        assert any(hint.startswith("TIMEOUT: ") for hint in result["hints"]), result
