"""`octo serve --http` under the usual soft limit of open files: it raises the limit towards
the hard one, keeps its connection cap within what the limit in force can hold, and logs no
traceback per failed accept."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from octo.faces.http.access import ConnectionLimits
from octo.faces.http.limits import within_open_files
from tests.http_serving import free_port
from tests.http_serving import wait_listening
from tests.limits.conftest import serve_env

# Run with an open-files limit of SOFT (hard HARD); then the rest of argv as `python -m octo`.
_LIMITED = """
import resource, runpy, sys
soft, hard = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
sys.argv = ["octo", *sys.argv[3:]]
runpy.run_module("octo", run_name="__main__")
"""


# A Python process importing the HTTP face (the MCP SDK): 0.8 s.
@pytest.mark.slow
def test_the_soft_limit_is_raised_towards_the_hard_one() -> None:
    code = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (256, 2048))\n"
        "from octo.faces.http.limits import open_files_limit\n"
        "print(open_files_limit(), resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["2048", "2048"]


@pytest.mark.slow
async def test_half_sent_requests_past_the_open_files_limit_leave_room_for_a_call(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("needle = 1\n")
    port = free_port()
    argv = [sys.executable, "-c", _LIMITED, "256", "256", "serve", "--http", "--port", str(port)]
    # Half-sent requests are kept until the cap, not closed by the header timeout.
    env = serve_env(tmp_path, OCTO_HTTP_HEADER_TIMEOUT="120")
    stderr = tmp_path / "stderr.txt"
    half_sent: list[socket.socket] = []
    with stderr.open("wb") as errors:
        server = await anyio.open_process(argv, env=env, cwd=tmp_path, stderr=errors)
    try:
        await wait_listening(port, alive=lambda: server.returncode is None)
        for _ in range(400):
            connection = socket.create_connection(("127.0.0.1", port))
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            half_sent.append(connection)
        await anyio.sleep(2)  # the accepts the server can make fail meanwhile
        with anyio.fail_after(60):
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                result = await client.call_tool(
                    "localSearchCode", {"queries": [{"pattern": "needle", "path": "."}]}
                )
        assert result.structured_content is not None
        assert result.structured_content["results"][0]["status"] == "success"
        assert server.returncode is None
    finally:
        for connection in half_sent:
            connection.close()
        server.kill()
        await server.wait()
    said = stderr.read_text()
    assert "Traceback" not in said
    assert len(said) < 4096, said[:2000]
    assert "at most 192 HTTP connections" in said


def test_the_connection_cap_leaves_a_quarter_of_the_descriptors() -> None:
    limits = within_open_files(ConnectionLimits(), 1024)
    assert (limits.max_connections, limits.backlog) == (768, 128)
    assert within_open_files(ConnectionLimits(), 65536) == ConnectionLimits(backlog=2048)
