"""The stdio wire (octo.faces.mcp.stdio_wire) in a real process on real pipes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from octo.faces.mcp.stdio_wire import MAX_MESSAGE_BYTES

# Echoes each message it reads, and names on stderr each exception the wire hands over.
# Inside the wire it prints to stdout and lets a child print: neither may reach the wire.
_ECHO = """
import os, sys, anyio
from octo.faces.mcp.stdio_wire import stdio_is_piped, stdio_wire

async def main():
    async with stdio_wire() as (incoming, outgoing):
        print("stray print", flush=True)
        os.system("echo child output")
        async with outgoing:
            async for item in incoming:
                if isinstance(item, Exception):
                    print("exception:", type(item).__name__, file=sys.stderr, flush=True)
                else:
                    await outgoing.send(item)
    print("stdout restored", flush=True)

print("piped:", stdio_is_piped(), file=sys.stderr, flush=True)
anyio.run(main)
"""


def _request(number: int, text: str = "") -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": number, "method": "ping", "params": {"text": text}}


def _run(stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", _ECHO], input=stdin, capture_output=True, timeout=60
    )


@pytest.mark.slow
def test_messages_cross_the_wire_and_nothing_else_does() -> None:
    # A message larger than a pipe's buffer makes the writer wait for the reader.
    large = _request(2, "x" * 300_000)
    sent = [
        json.dumps(_request(1)).encode(),
        b"y" * (MAX_MESSAGE_BYTES + 10),  # over the cap: skipped, reading goes on
        json.dumps(large).encode(),
        b"not json",
        json.dumps(_request(3)).encode(),  # the last line has no newline
    ]
    done = _run(b"\n".join(sent))

    assert done.returncode == 0, done.stderr.decode()
    lines = done.stdout.decode().splitlines()
    assert [json.loads(line)["id"] for line in lines[:-1]] == [1, 2, 3]
    assert json.loads(lines[1]) == large
    assert lines[-1] == "stdout restored"
    stderr = done.stderr.decode()
    assert "piped: True" in stderr
    assert "stray print" in stderr and "child output" in stderr
    assert stderr.count("exception: MessageTooLarge") == 1
    assert stderr.count("exception: ValidationError") == 1


@pytest.mark.slow
def test_a_file_on_stdin_is_left_to_the_sdks_transport(tmp_path: Path) -> None:
    messages = tmp_path / "messages.jsonl"
    messages.write_text("")
    code = "from octo.faces.mcp.stdio_wire import stdio_is_piped; print(stdio_is_piped())"
    with messages.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-c", code], stdin=stdin, capture_output=True, timeout=60
        )

    assert done.stdout.decode().strip() == "False", done.stderr.decode()
