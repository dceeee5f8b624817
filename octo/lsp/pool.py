"""The runtime's pool of warm language servers: one per (server, workspace root).

Servers start lazily on the first query that needs them and only once even when
queries race; at most ``max_servers`` live at a time (least recently used goes
first); an idle server is stopped after ``idle_timeout``; a crashed one restarts
on the next query after a growing backoff. Nothing here runs at gateway start,
so MCP ``initialize`` never waits for a language server.
"""

from __future__ import annotations

import asyncio
import collections
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from octo.core.config import env_int, env_seconds
from octo.core.errors import LspNotAvailableError
from octo.lsp import reaper
from octo.lsp.client import LspClient, RequestTimeoutError, ServerCrashedError
from octo.lsp.servers import Language, ServerCommand, find_server, language_of, workspace_root

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

_MAX_BACKOFF = 30.0
#: A query waits out a restart backoff this short; a longer one fails at once.
_MAX_BACKOFF_WAIT = 2.0
_IN_FLIGHT = 4


@dataclass(frozen=True)
class LspSettings:
    """Pool and request limits, from ``OCTO_LSP_*`` variables."""

    idle_timeout: float = 600.0
    max_servers: int = 4
    init_timeout: float = 60.0
    request_timeout: float = 20.0
    calls_deadline: float = 40.0
    settle_timeout: float | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> LspSettings:
        return cls(
            idle_timeout=env_seconds(env, "OCTO_LSP_IDLE_TIMEOUT", cls.idle_timeout),
            max_servers=env_int(env, "OCTO_LSP_MAX_SERVERS", cls.max_servers, 1, 64),
            init_timeout=env_seconds(env, "OCTO_LSP_INIT_TIMEOUT", cls.init_timeout),
            request_timeout=env_seconds(env, "OCTO_LSP_REQUEST_TIMEOUT", cls.request_timeout),
            calls_deadline=env_seconds(env, "OCTO_LSP_CALLS_DEADLINE", cls.calls_deadline),
            settle_timeout=(
                env_seconds(env, "OCTO_LSP_SETTLE_TIMEOUT", 1.0)
                if env.get("OCTO_LSP_SETTLE_TIMEOUT")
                else None
            ),
        )


class ServerSlot:
    """One (server, root) place in the pool; holds the client while it is live."""

    def __init__(self, pool: LspPool, command: ServerCommand, root: Path) -> None:
        self.pool = pool
        self.command = command
        self.root = root
        self.client: LspClient | None = None
        self.settled = False
        self.last_used = time.monotonic()
        self.crashes = 0
        self.retry_at = 0.0
        self.last_crash = ""
        self.timeouts = 0
        self.start_lock = anyio.Lock()
        self.in_flight = anyio.Semaphore(_IN_FLIGHT)
        self.idle_timer: asyncio.TimerHandle | None = None

    @property
    def server_id(self) -> str:
        return self.command.server_id

    @property
    def settle_cap(self) -> float:
        return self.pool.settings.settle_timeout or self.command.settle_cap

    def live_client(self) -> LspClient:
        if self.client is None:
            raise LspNotAvailableError(f"{self.server_id} is not running")
        return self.client

    async def request(self, method: str, params: Any, seconds: float | None = None) -> Any:
        """One request under the per-server concurrency limit, with crash and hang bookkeeping."""
        client = self.live_client()
        self.pool.touch(self)
        async with self.in_flight:
            try:
                result = await client.request(
                    method, params, seconds or self.pool.settings.request_timeout
                )
            except ServerCrashedError as exc:
                self.last_crash = exc.message
                await self.pool.retire(self, crashed=True)
                raise
            except RequestTimeoutError:
                self.timeouts += 1
                # A server that hangs twice in a row is replaced, so later queries are not stuck.
                if self.timeouts >= 2:
                    await self.pool.retire(self, crashed=False)
                raise
            finally:
                self.pool.touch(self)
        self.timeouts = 0
        self.crashes = 0
        return result


class LspPool:
    """Provider of warm language servers (``runtime.backend(LspPool)``)."""

    def __init__(self, runtime: Runtime) -> None:
        self.env = runtime.config.env
        self.settings = LspSettings.from_env(self.env)
        self._slots: collections.OrderedDict[tuple[str, Path], ServerSlot] = (
            collections.OrderedDict()
        )
        self._commands: dict[str, ServerCommand] = {}
        self._expired: list[LspClient] = []

    def process_ids(self) -> list[int]:
        """Pids (= process-group ids) of the live servers."""
        return [
            pid
            for slot in self._slots.values()
            if slot.client is not None and (pid := slot.client.pid) is not None
        ]

    def language(self, path: Path) -> Language:
        found = language_of(path)
        if found is None:
            raise LspNotAvailableError(
                f"No language server handles '{path.suffix or path.name}' files",
                hints=[
                    "Supported: Python, TypeScript/JavaScript, C/C++, Go, Rust.",
                    "Use localSearchCode to find the symbol by text instead.",
                ],
            )
        return found

    def _command(self, family: str) -> ServerCommand:
        command = self._commands.get(family)
        if command is None:
            command = self._commands[family] = find_server(family, self.env)
        return command

    async def acquire(self, path: Path, allowed_root: Path) -> ServerSlot:
        """The live server for ``path``, started (once) if needed."""
        family = self.language(path).family
        command = self._command(family)
        root = workspace_root(path, allowed_root, family)
        key = (command.server_id, root)
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = ServerSlot(self, command, root)
        self._slots.move_to_end(key)
        await self._finish_expired()
        reaper.guard()
        async with slot.start_lock:
            if slot.client is not None and not slot.client.alive:
                slot.last_crash = slot.client.crash_error().message
                await self.retire(slot, crashed=True)
            if slot.client is None:
                await self._backoff(slot)
                await self._make_room(key)
                try:
                    slot.client = await LspClient.start(
                        command.server_id,
                        command.argv,
                        root,
                        self._server_env(),
                        init_timeout=self.settings.init_timeout,
                        loaded_log=command.loaded_log,
                    )
                except (ServerCrashedError, RequestTimeoutError) as exc:
                    slot.last_crash = exc.message
                    self._note_crash(slot)
                    raise
                slot.settled = False
        self.touch(slot)
        return slot

    def _server_env(self) -> dict[str, str]:
        env = dict(self.env)
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        return env

    @staticmethod
    async def _backoff(slot: ServerSlot) -> None:
        """Wait before restarting a crashed server: 1, 2, 4 ... s after 1, 2, 3 ... crashes."""
        wait = slot.retry_at - time.monotonic()
        if wait > _MAX_BACKOFF_WAIT:
            raise LspNotAvailableError(
                f"{slot.server_id} crashed {slot.crashes} times in a row; octo starts it again"
                f" in {wait:.0f} s. Last crash: {slot.last_crash}",
                hints=["Retry later, or choose another server with OCTO_LSP_<LANGUAGE>_SERVERS."],
            )
        await anyio.sleep(max(0.0, wait))

    def _note_crash(self, slot: ServerSlot) -> None:
        slot.crashes += 1
        slot.retry_at = time.monotonic() + min(_MAX_BACKOFF, 2.0 ** (slot.crashes - 1))

    async def retire(self, slot: ServerSlot, *, crashed: bool) -> None:
        """Stop ``slot``'s server; after a crash the next start waits a growing backoff."""
        client, slot.client = slot.client, None
        slot.timeouts = 0
        if crashed:
            self._note_crash(slot)
        if client is not None:
            await client.aclose()

    async def _make_room(self, keep: tuple[str, Path]) -> None:
        live = [k for k, s in self._slots.items() if s.client is not None and k != keep]
        while len(live) >= self.settings.max_servers:
            await self.retire(self._slots[live.pop(0)], crashed=False)

    def touch(self, slot: ServerSlot) -> None:
        """Mark ``slot`` as used now; its idle timer starts again."""
        slot.last_used = time.monotonic()
        self._arm_idle_timer(slot, self.settings.idle_timeout)

    def _arm_idle_timer(self, slot: ServerSlot, delay: float) -> None:
        if slot.idle_timer is not None:
            slot.idle_timer.cancel()
        slot.idle_timer = asyncio.get_running_loop().call_later(delay, self._expire_idle, slot)

    def _expire_idle(self, slot: ServerSlot) -> None:
        # A timer callback cannot await a polite shutdown; an idle server has nothing to
        # lose, so its group is killed now and the client finished on the next pool use.
        slot.idle_timer = None
        if slot.in_flight.value < _IN_FLIGHT:  # a request is running: not idle
            self._arm_idle_timer(slot, self.settings.idle_timeout)
            return
        client = slot.client
        if client is None or client.pid is None:
            return
        slot.client = None
        reaper.kill_group(client.pid, signal.SIGKILL)
        self._expired.append(client)

    async def _finish_expired(self) -> None:
        expired, self._expired = self._expired, []
        for client in expired:
            await client.aclose()

    async def aclose(self) -> None:
        """Stop every server (and its process group)."""
        slots = list(self._slots.values())
        self._slots.clear()
        for slot in slots:
            if slot.idle_timer is not None:
                slot.idle_timer.cancel()
        async with anyio.create_task_group() as tg:
            for slot in slots:
                if slot.client is not None:
                    tg.start_soon(slot.client.aclose)
            for client in self._expired:
                tg.start_soon(client.aclose)
        self._expired.clear()
