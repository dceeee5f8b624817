"""A content handle (and a clone) is bound to the token a host actually sends, wherever the
hosts file reads it from: a handle minted under one account's token from a file, or from a
command, is not readable under another's, and is under the same token again."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config
from octo.core.handles import MemoryHandleStore
from tests.recording_server import Answer
from tests.recording_server import RecordingServer
from tests.recording_server import recording

CONTEXT = {"mainResearchGoal": "m", "researchGoal": "r", "reasoning": "why"}
BIG = "".join(f"line {n}: {'private ' * 8}\n" for n in range(400)).encode()


def _contents(path: str) -> Answer:
    if path.startswith("/api/v3/repos/acme/api/contents/big.txt"):
        body = {
            "type": "file",
            "sha": "0" * 40,
            "size": len(BIG),
            "encoding": "base64",
            "content": base64.b64encode(BIG).decode(),
        }
        return 200, {"content-type": "application/json"}, json.dumps(body).encode()
    return 404, {"content-type": "application/json"}, b'{"message": "Not Found"}'


def _hosts_file(tmp_path: Path, origin: str, source: str) -> Config:
    hosts = tmp_path / "hosts.toml"
    hosts.write_text(
        f'[[hosts]]\nname = "company"\nkind = "github"\napi_url = "{origin}/api/v3"\n{source}\n'
    )
    env = {"OCTO_HOSTS_FILE": str(hosts), "PATH": "/usr/bin:/bin"}
    return replace(Config.from_env(env), max_tokens=500)


async def _one(gateway: octo.Gateway, tool: str, **query: Any) -> dict[str, Any]:
    row: dict[str, Any] = (await gateway.call(tool, [{**CONTEXT, **query}])).to_wire()["results"][0]
    assert row.get("error", {}).get("code") != "INTERNAL_ERROR", row
    return row


@pytest.mark.parametrize("kind", ["token_file", "token_command"])
async def test_a_handle_is_bound_to_the_token_read_from_a_file_or_a_command(
    tmp_path: Path, kind: str
) -> None:
    token_file = tmp_path / "token"

    def account(token: str) -> str:
        token_file.write_text(f"{token}\n")
        if kind == "token_file":
            return f'token_file = "{token_file}"'
        return f'token_command = ["printf", "{token}"]'

    handles = MemoryHandleStore(600)
    with recording(RecordingServer(_contents)) as server:
        mine = _hosts_file(tmp_path, server.origin, account("token-one-not-real"))
        async with octo.Gateway(mine, handles=handles) as gateway:
            read = await _one(
                gateway,
                "githubGetFileContent",
                owner="acme",
                repo="api",
                path="big.txt",
                fullContent=True,
            )
            mine_identity = gateway.runtime.identity
        handle = read["data"]["contentHandle"]
        assert [h["authorization"] for h in server.headers_seen()] == ["Bearer token-one-not-real"]

        theirs = _hosts_file(tmp_path, server.origin, account("token-two-not-real"))
        async with octo.Gateway(theirs, handles=handles) as gateway:
            row = await _one(gateway, "getCachedContent", handle=handle)
            # Their clones are in a folder of their own too.
            assert gateway.runtime.identity != mine_identity
        assert row["status"] == "error" and row["error"]["code"] == "NOT_FOUND", row
        assert "private" not in json.dumps(row)

        again = _hosts_file(tmp_path, server.origin, account("token-one-not-real"))
        async with octo.Gateway(again, handles=handles) as gateway:
            row = await _one(gateway, "getCachedContent", handle=handle)
        assert row["status"] == "success", row
