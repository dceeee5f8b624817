"""End to end: `octo serve` over stdio, driven by a real MCP client, against a local HTTP
server on 127.0.0.1 that answers with the recordings."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlsplit

import pytest
from mcp import Client
from mcp import StdioServerParameters

RECORDINGS = Path(__file__).parent / "recordings"
TOKEN = "test-token-not-real-e2e"


def recorded_answers() -> dict[tuple[str, frozenset[tuple[str, str]]], dict[str, Any]]:
    answers = {}
    for path in RECORDINGS.glob("*.json"):
        for interaction in json.loads(path.read_text())["interactions"]:
            url = urlsplit(interaction["request"]["url"])
            key = (url.path, frozenset(parse_qsl(url.query)))
            answers[key] = interaction["response"]
    return answers


class RecordingServer(ThreadingHTTPServer):
    answers = recorded_answers()
    seen_tokens: list[str | None]


class ReplayHandler(BaseHTTPRequestHandler):
    server: RecordingServer

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        self.server.seen_tokens.append(self.headers.get("authorization"))
        answer = self.server.answers.get((url.path, frozenset(parse_qsl(url.query))))
        if answer is None:
            answer = {"status": 404, "headers": {}, "body": {"message": "Not Found"}}
        body = json.dumps(answer["body"]).encode()
        self.send_response(answer["status"])
        for name, value in answer["headers"].items():
            if name != "content-length":
                self.send_header(name, value)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the test asserts on what the server saw instead."""


@pytest.fixture
def api_server() -> Iterator[RecordingServer]:
    server = RecordingServer(("127.0.0.1", 0), ReplayHandler)
    server.seen_tokens = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.mark.slow
async def test_octo_serve_answers_github_tools_from_the_local_api(
    api_server: RecordingServer, tmp_path: Path
) -> None:
    host, port = api_server.server_address[:2]
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env.update(
        GITHUB_API_URL=f"http://{host!s}:{port}/api/v3",
        GITHUB_TOKEN=TOKEN,
        OCTO_ROOTS=str(tmp_path),
    )
    params = StdioServerParameters(command=sys.executable, args=["-m", "octo", "serve"], env=env)
    async with Client(params) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        search = await client.call_tool(
            "githubSearchCode",
            {
                "queries": [
                    {
                        "keywordsToSearch": ["addClass"],
                        "owner": "jquery",
                        "repo": "jquery",
                        "extension": "js",
                        "limit": 2,
                    }
                ]
            },
        )
        files = await client.call_tool(
            "githubGetFileContent",
            {
                "queries": [
                    {
                        "owner": "octokit",
                        "repo": "octokit.rb",
                        "path": "README.md",
                        "startLine": 1,
                        "endLine": 1,
                    },
                    {"owner": "octocat", "repo": "missing", "path": "README.md"},
                    {
                        "owner": "octokit",
                        "repo": "octokit.rb",
                        "path": "README.md",
                        "matchString": "gem",
                    },
                ]
            },
        )
    assert {"githubSearchCode", "githubGetFileContent", "githubSearchPullRequests"} <= set(names)
    assert search.structured_content is not None and files.structured_content is not None
    [hit_row] = search.structured_content["results"]
    assert hit_row["data"]["results"][0]["file"] == "src/attributes/classes.js"
    rows = files.structured_content["results"]
    assert [row["status"] for row in rows] == ["success", "error", "success"]
    assert rows[0]["data"]["content"] == "# Octokit\n"
    assert rows[1]["error"]["code"] == "NOT_FOUND"
    # The contents of README.md were fetched once and shared by both queries.
    assert api_server.seen_tokens == [f"Bearer {TOKEN}"] * 3
    assert TOKEN not in json.dumps([search.structured_content, files.structured_content])
