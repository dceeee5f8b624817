"""LSP test helpers: environments that find our servers, the no-leftover-process check, a
clock for the pool, and gateways over a small project served by tests/lsp/fake_server.py."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Iterable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest

from octo import Gateway
from octo.core.config import Config
from octo.core.envelope import BulkResponse
from octo.core.errors import LspNotAvailableError
from octo.lsp.servers.running.pool import LspPool
from octo.lsp.servers.table.commands import find_servers

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
FAKE_SERVER = HERE / "fake_server.py"
NPM_BIN = HERE.parent.parent / ".ci" / "lsp" / "node_modules" / ".bin"

SOURCE = "def target():\n    return 1\n\n\nvalue = target()\n"
DEFINITION = {"uri": "mod.py", "symbolName": "target", "lineHint": 5}
#: The call graph fake_server.py's "calls" mode serves: a and b call target, c calls a and b.
CALLS_SOURCE = (
    "def target():\n    return 1\n\n\n"
    "def a():\n    return target()\n\n\n"
    "def b():\n    return target()\n\n\n"
    "def c():\n    return a() + b()\n"
)

#: ``await gateway(env)``: an open gateway over the ``project`` fixture.
GatewayFactory = Callable[[dict[str, str]], Awaitable[Gateway]]


def lsp_env(**overrides: str) -> dict[str, str]:
    """The test process's environment, with .ci's npm servers on OCTO_LSP_PATH."""
    env = dict(os.environ)
    extra = [p for p in (env.get("OCTO_LSP_PATH", ""), str(NPM_BIN)) if p]
    env["OCTO_LSP_PATH"] = os.pathsep.join(extra)
    env.update(overrides)
    return env


def fake_env(mode: str, *extra: str, **overrides: str) -> dict[str, str]:
    command = " ".join([sys.executable, str(FAKE_SERVER), mode, *extra])
    return lsp_env(OCTO_LSP_PYTHON_COMMAND=command, **overrides)


def _processes() -> list[tuple[int, int, int]]:
    """(pid, ppid, session id) of every process, read from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            continue
        found.append((int(entry), int(fields[1]), int(fields[3])))
    return found


def leftovers(sessions: Iterable[int] = (), *, descendants: bool = True) -> list[int]:
    """Processes still in one of ``sessions`` (orphans included), and our live descendants."""
    wanted = set(sessions)
    table = _processes()
    parent = {pid: ppid for pid, ppid, _ in table}
    me = os.getpid()
    result = []
    for pid, _, sid in table:
        ancestor = parent.get(pid)
        seen = 0
        while ancestor and ancestor != me and seen < 64:
            ancestor, seen = parent.get(ancestor), seen + 1
        if (descendants and ancestor == me) or sid in wanted:
            result.append(pid)
    return result


def command_line(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().split("\0")
    except OSError:
        return []


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def descendants_of(root: int) -> list[int]:
    """Live processes below ``root`` (children, their children, ...)."""
    children: dict[int, list[int]] = {}
    for pid, ppid, _ in _processes():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def session_of(pid: int) -> int | None:
    return next((sid for p, _, sid in _processes() if p == pid), None)


def server_sessions() -> set[int]:
    """Session ids of our descendants: every server runs in its own session."""
    table = {pid: sid for pid, _, sid in _processes()}
    return {table[pid] for pid in leftovers() if pid in table}


def server_pids() -> list[int]:
    """Our language servers running now, sorted: each leads its own session."""
    return sorted(server_sessions())


async def assert_no_leftovers(sessions: Iterable[int], *, descendants: bool = True) -> None:
    sessions = set(sessions)
    for _ in range(1200):  # dying processes get up to 60 s (a loaded machine is slow)
        left = leftovers(sessions, descendants=descendants)
        if not left:
            return
        await anyio.sleep(0.05)
    assert left == [], f"processes left behind: {left}"


def open_pipes() -> set[int]:
    """This process's file descriptors that are pipes (a server's stdin, stdout, stderr)."""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                found.add(int(fd))
    return found


class ManualClock:
    """Time for the pool that moves only when a test says so.

    ``clock()`` is now; ``sleep(seconds)`` records its length and waits until
    :meth:`advance` has moved now past its end.
    """

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []
        self._moved = anyio.Event()
        self._slept = anyio.Event()

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        slept, self._slept = self._slept, anyio.Event()
        slept.set()
        end = self.now + seconds
        while self.now < end:
            await self._moved.wait()

    def advance(self, seconds: float) -> None:
        self.now += seconds
        moved, self._moved = self._moved, anyio.Event()
        moved.set()

    async def sleeping(self, seconds: float, count: int = 1) -> None:
        """Wait (in real time, 10 s at most) until ``count`` sleeps of ``seconds`` began."""
        with anyio.fail_after(10):
            while self.sleeps.count(seconds) < count:
                await self._slept.wait()


def result_of(response: BulkResponse[Any], index: int = 0) -> dict[str, Any]:
    """The wire form (JSON) of the ``index``-th envelope of ``response``."""
    result: dict[str, Any] = response.to_wire()["results"][index]
    return result


def success_data(response: BulkResponse[Any]) -> dict[str, Any]:
    """The data of ``response``'s first envelope, which must be a success."""
    result = result_of(response)
    assert result["status"] == "success", result
    data: dict[str, Any] = result["data"]
    return data


def skip_unless_installed(family: str) -> None:
    """Skip the test when no server of the language ``family`` is found (.ci/run installs
    the built-in ones that install here)."""
    try:
        find_servers(family, lsp_env())
    except LspNotAvailableError:
        pytest.skip(f"no {family} language server installed (.ci/run installs it)")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "mod.py").write_text(SOURCE)
    (tmp_path / "calls.py").write_text(CALLS_SOURCE)
    return tmp_path


@pytest.fixture
async def gateway(project: Path) -> AsyncIterator[GatewayFactory]:
    """Open gateways over ``project``; on teardown close them and check that no process and
    no pipe to one is left."""
    pipes = open_pipes()
    async with AsyncExitStack() as stack:

        async def make(env: dict[str, str]) -> Gateway:
            return await stack.enter_async_context(Gateway(Config.from_env(env), roots=[project]))

        yield make
        sessions = server_sessions()
    await assert_no_leftovers(sessions)
    assert open_pipes() <= pipes


def pool_of(gw: Gateway) -> LspPool:
    return gw.runtime.backend(LspPool)
