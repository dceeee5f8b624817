"""A team's set-up on one machine: a Redis, a fake GitHub that counts what it is asked, and
``octo serve --http`` replicas; for the replica tests and benchmarks/bench_replicas.py.

Nothing here needs pytest: a part that cannot start raises RuntimeError.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import httpx2
import redis
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

TOKEN = "test-token-not-real-replicas"
#: The bearer token every replica asks of its clients (as a team's deployment would).
HTTP_TOKEN = "test-http-token-not-real-team"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until(ready: Any, what: str, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} exited with status {process.returncode}")
        if ready():
            return
        time.sleep(0.02)
    raise RuntimeError(f"{what} did not start within 30 s")


class RedisProcess:
    """A redis-server (or valkey-server) on a free loopback port, without persistence;
    ``debug``: it takes DEBUG commands (a test's own, to slow it down)."""

    def __init__(self, directory: Path, *, debug: bool = False) -> None:
        binary = shutil.which("redis-server") or shutil.which("valkey-server")
        if binary is None:
            raise RuntimeError("no redis-server or valkey-server on PATH")
        self.binary = binary
        self.directory = directory
        self.port = free_port()
        self.debug = debug
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _debug_options(self) -> list[str]:
        """What lets a test send DEBUG: an option from Redis 7 on; older ones allow it."""
        if not self.debug:
            return []
        version = subprocess.run(
            [self.binary, "--version"], capture_output=True, text=True, check=False
        ).stdout
        major = version.split(" v=", 1)[-1].split(".", 1)[0]
        return ["--enable-debug-command", "yes"] if major.isdigit() and int(major) >= 7 else []

    def _answers(self) -> bool:
        client = redis.Redis.from_url(self.url, socket_timeout=0.5)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def start(self) -> RedisProcess:
        command = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        command += ["--appendonly", "no", "--dir", str(self.directory)]
        command += self._debug_options()
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            _wait_until(self._answers, f"{self.binary} on port {self.port}", self.process)
        except RuntimeError:
            self.stop()
            raise
        return self

    def kill(self) -> None:
        """Gone at once (SIGKILL), as a crashed Redis."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


class FakeGitHub(ThreadingHTTPServer):
    """A local GitHub API answering file contents and repository searches after ``delay``
    seconds; counts the requests per path. A resource named in ``exhausted`` answers
    "rate limit exhausted" until the test says otherwise."""

    daemon_threads = True

    def __init__(self, delay: float = 0.2) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.delay = delay
        self.requests: Counter[str] = Counter()
        self.exhausted: set[str] = set()
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/api/v3"

    @property
    def total(self) -> int:
        with self.lock:
            return sum(self.requests.values())

    def count(self, path: str) -> int:
        with self.lock:
            return self.requests[path]

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join()


class _Handler(BaseHTTPRequestHandler):
    server: FakeGitHub

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].removeprefix("/api/v3")
        with self.server.lock:
            self.server.requests[path] += 1
        time.sleep(self.server.delay)
        if path.startswith("/search/"):
            self._search()
        elif "/contents/" in path:
            text = f"# {path.rsplit('/', 1)[-1]}\n\nServed by the fake GitHub.\n"
            sha = hashlib.sha1(text.encode()).hexdigest()
            encoded = base64.b64encode(text.encode()).decode()
            body = {"type": "file", "encoding": "base64", "content": encoded, "sha": sha}
            self._answer(200, {**body, "size": len(text)}, {"etag": f'"{sha}"'})
        else:
            self._answer(404, {"message": "Not Found"})

    def _search(self) -> None:
        reset = str(int(time.time()) + 3600)
        limits = {"x-ratelimit-limit": "30", "x-ratelimit-reset": reset}
        limits["x-ratelimit-resource"] = "search"
        if "search" in self.server.exhausted:
            limits["x-ratelimit-remaining"] = "0"
            self._answer(403, {"message": "API rate limit exceeded"}, limits)
        else:
            limits["x-ratelimit-remaining"] = "29"
            self._answer(200, {"total_count": 0, "incomplete_results": False, "items": []}, limits)

    def _answer(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read the counts instead."""


class Replica:
    """``octo serve --http`` on a free loopback port with ``env``, its stderr appended to
    ``log``; restartable on that port. Clients send the env's OCTO_HTTP_TOKEN, if any."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    @property
    def _auth(self) -> dict[str, str]:
        token = self.env.get("OCTO_HTTP_TOKEN")
        return {"Authorization": f"Bearer {token}"} if token else {}

    @asynccontextmanager
    async def client(self) -> AsyncIterator[Client]:
        """A real MCP client of this replica, with the token."""
        http = httpx2.AsyncClient(headers=self._auth, timeout=60)
        async with http, Client(streamable_http_client(self.mcp_url, http_client=http)) as client:
            yield client

    def _alive(self) -> bool:
        try:
            return httpx.get(f"{self.base}/healthz", timeout=0.5).status_code == 200
        except httpx.HTTPError:
            return False

    def start(self) -> Replica:
        command = [sys.executable, "-m", "octo", "serve", "--http"]
        command += ["--host", "127.0.0.1", "--port", str(self.port)]
        with self.log.open("ab") as stderr:
            self.process = subprocess.Popen(
                command,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        try:
            _wait_until(self._alive, f"octo serve --http on port {self.port}", self.process)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}: {self.log.read_text(errors='replace')}") from None
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def metrics(self) -> str:
        response = httpx.get(f"{self.base}/metrics", headers=self._auth, timeout=5)
        response.raise_for_status()
        return response.text


def replica_env(api_url: str, root: Path, **extra: str) -> dict[str, str]:
    """The environment of a replica: the test's PATH and HOME, the fake GitHub, the bearer
    token, no OCTO_* setting of the caller's."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "SYSTEMROOT")}
    env.update(GITHUB_API_URL=api_url, GITHUB_TOKEN=TOKEN, OCTO_ROOTS=str(root))
    env.update(OCTO_HTTP_TOKEN=HTTP_TOKEN, **extra)
    return env
