"""The runtime's pool of warm language servers: one per (server, workspace root).

Servers start lazily on the first query that needs them and only once even when
queries race; at most ``max_servers`` live at a time (least recently used goes
first); an idle server is stopped after ``idle_timeout``; a crashed one restarts
on the next query after a growing backoff. Nothing here runs at gateway start,
so MCP ``initialize`` never waits for a language server.

The pool's background work runs in the runtime's task group: per live server, a task
that retires it once idle and one that drains its stderr, and the stop of every retired
server. Closing the runtime (also by cancellation) stops every server first.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import anyio

from octo.core.config import cache_dir
from octo.core.errors import LspNotAvailableError
from octo.lsp.servers.running.memory import megabytes
from octo.lsp.servers.running.memory import resident_sizes
from octo.lsp.servers.running.settings import LspSettings
from octo.lsp.servers.table.commands import Language
from octo.lsp.servers.table.commands import ServerCommand
from octo.lsp.servers.table.commands import ServerTable
from octo.lsp.servers.table.commands import find_servers
from octo.lsp.servers.table.commands import server_options
from octo.lsp.servers.table.commands import server_settings
from octo.lsp.servers.table.commands import server_table
from octo.lsp.servers.table.commands import workspace_root
from octo.lsp.servers.table.search_paths import octo_search_paths
from octo.lsp.servers.wire.client import LspClient
from octo.lsp.servers.wire.client import RequestTimeoutError
from octo.lsp.servers.wire.client import ServerCrashedError
from octo.lsp.servers.wire.documents import Source
from octo.lsp.servers.wire.process import server_environment

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

#: The pool's sense of time: ``clock()`` in seconds, ``sleep(seconds)``; tests pass their own.
Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

_MAX_BACKOFF = 30.0
#: A query waits out a restart backoff this short; a longer one fails at once.
_MAX_BACKOFF_WAIT = 2.0
_IN_FLIGHT = 4


class MemoryBudgetError(LspNotAvailableError):
    """The server alone grew past the memory budget of all language servers: octo stopped
    it and does not start it again on this root."""


class ServerSlot:
    """One (server, root) place in the pool; holds the client while it is live."""

    def __init__(self, pool: LspPool, command: ServerCommand, root: Path) -> None:
        self.pool = pool
        self.command = command
        self.root = root
        self.client: LspClient | None = None
        self.settled = False
        self.last_used = pool.clock()
        self.crashes = 0
        self.retry_at = 0.0
        self.last_crash = ""
        self.timeouts = 0
        self.start_lock = anyio.Lock()
        self.in_flight = anyio.Semaphore(_IN_FLIGHT)
        self.idle_watch: anyio.CancelScope | None = None
        #: Resident bytes of the server's process tree when last read.
        self.resident = 0
        #: Set once the server alone grew past the memory budget: why it is not started.
        self.over_budget: MemoryBudgetError | None = None

    @property
    def server_id(self) -> str:
        return self.command.server_id

    @property
    def settle_cap(self) -> float:
        return self.pool.settings.settle_timeout or self.command.settle_cap

    @property
    def busy(self) -> bool:
        """True while a request is running."""
        return self.in_flight.value < _IN_FLIGHT

    def live_client(self) -> LspClient:
        if self.client is None:
            raise LspNotAvailableError(f"{self.server_id} is not running")
        return self.client

    async def request(
        self, method: str, params: Any, seconds: float | None = None, *, count_hang: bool = True
    ) -> Any:
        """One request under the per-server concurrency limit, with crash and hang bookkeeping.

        ``count_hang=False``: a timeout is the caller's to count, with :meth:`note_hang` (a
        fan-out counts one when none of its requests was answered, not one per item).
        """
        client = self.live_client()
        self.pool.touch(self)
        async with self.in_flight:
            try:
                result = await client.request(
                    method, params, seconds or self.pool.settings.request_timeout
                )
            except ServerCrashedError as exc:
                if self.client is client:
                    self.last_crash = exc.message
                    self.pool.retire(self, crashed=True)
                raise
            except RequestTimeoutError:
                if count_hang:
                    self.note_hang(client)
                raise
            finally:
                self.pool.touch(self)
        self.timeouts = 0
        self.crashes = 0
        return result

    def note_hang(self, client: LspClient) -> None:
        """Count a request ``client`` did not answer; a server that hangs twice in a row is
        replaced, so later queries are not stuck behind it."""
        if self.client is not client:
            return
        self.timeouts += 1
        if self.timeouts >= 2:
            self.pool.retire(self, crashed=False, reason="it did not answer twice in a row")


class LspPool:
    """Backend of warm language servers (``ctx.backend(LspPool)``)."""

    def __init__(
        self, runtime: Runtime, *, clock: Clock = time.monotonic, sleep: Sleep = anyio.sleep
    ) -> None:
        self.runtime = runtime
        self.env = runtime.config.env
        self.settings = LspSettings.from_env(self.env)
        self.clock = clock
        self.sleep = sleep
        self._slots: collections.OrderedDict[tuple[str, Path], ServerSlot] = (
            collections.OrderedDict()
        )
        self._commands: dict[str, tuple[ServerCommand, ...]] = {}
        self._table: ServerTable | None = None
        #: The capabilities each server answered initialize with, by server name.
        self.capabilities: dict[str, dict[str, Any]] = {}
        #: The resident bytes each server last had, by server name (what a start expects).
        self.last_resident: dict[str, int] = {}
        self._watching_memory = False
        self._closed = False

    @property
    def table(self) -> ServerTable:
        """The configured servers, read on first use (blocking: the servers file)."""
        if self._table is None:
            self._table = server_table(self.env)
        return self._table

    def language(self, path: Path) -> Language:
        """``path``'s language by the configured servers (blocking on first use)."""
        found = self.table.language_of(path)
        if found is None:
            raise LspNotAvailableError(
                f"No language server handles '{path.suffix or path.name}' files",
                hints=[
                    f"Configured: {', '.join(self.table.families())}; a servers file"
                    " (OCTO_LSP_SERVERS_FILE) adds a language.",
                    "Use localSearchCode to find the symbol by text instead.",
                ],
            )
        return found

    async def commands(self, family: str) -> tuple[ServerCommand, ...]:
        """The servers for ``family`` in the order they are asked (the first answers; the
        next one when it times out or lacks the operation)."""
        commands = self._commands.get(family)
        if commands is None:
            # Discovery looks at the disk (PATH, packages, package.json): off the event loop.
            commands = await anyio.to_thread.run_sync(
                lambda: find_servers(family, self.env, self.table)
            )
            self._commands[family] = commands
        return commands

    async def acquire(
        self,
        path: Path,
        allowed_root: Path,
        command: ServerCommand | None = None,
        workspace: Path | None = None,
    ) -> ServerSlot:
        """The live ``command`` server (default: the first) for ``path``, started (once) if
        needed; ``workspace``: its workspace root when the caller found it already."""
        family = (await anyio.to_thread.run_sync(self.language, path)).family
        command = command or (await self.commands(family))[0]
        root = workspace
        if root is None:
            root = await anyio.to_thread.run_sync(
                workspace_root, path, allowed_root, family, self.table
            )
        key = (command.server_id, root)
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = ServerSlot(self, command, root)
        self._slots.move_to_end(key)
        if slot.over_budget is not None:
            raise slot.over_budget
        async with slot.start_lock:
            client = slot.client
            if client is not None and not client.alive:
                slot.last_crash = (await client.exit_error()).message
                self.retire(slot, crashed=True)
            if slot.client is None:
                await self._backoff(slot)
                self._make_room(key)
                self._make_memory_room(slot)
                await self._start(slot, allowed_root)
        self.touch(slot)
        return slot

    def offering(self, slot: ServerSlot, capability: str) -> str:
        """A hint naming the configured servers of ``slot``'s language, other than its own,
        that offer ``capability`` (those seen to, else any)."""
        entry = slot.command.entry
        family = entry.languages[0] if entry else None
        others = [e.name for e in self.table.servers_of(family or "") if e.name != slot.server_id]
        if not others:
            return (
                f"No other {family or 'such'} server is configured: a servers file"
                " (OCTO_LSP_SERVERS_FILE) adds one."
            )
        seen = [
            n for n in others if self.capabilities.get(n, {}).get(capability) not in (None, False)
        ]
        key = f"OCTO_LSP_{(family or '<LANGUAGE>').upper()}_SERVERS"
        if seen:
            return f"{', '.join(seen)} offer{'s' if len(seen) == 1 else ''} it: {key}={seen[0]}."
        return f"Other configured {family} servers: {', '.join(others)}; choose one with {key}."

    def has_room(self) -> bool:
        """True when one more server can start without stopping another."""
        live = sum(1 for slot in self._slots.values() if slot.client is not None)
        return live < self.settings.max_servers

    async def _start(self, slot: ServerSlot, allowed_root: Path) -> None:
        if self._closed:
            raise LspNotAvailableError("The gateway is closing; no server starts any more")
        command = slot.command
        # A clone (githubCloneRepo) is someone else's code: its server runs nothing from it.
        untrusted = slot.root.is_relative_to(self.runtime.config.clone_dir.resolve())
        sections = await anyio.to_thread.run_sync(
            octo_search_paths,
            command.server_id,
            slot.root,
            allowed_root,
            cache_dir(self.runtime.config.env) / "lsp",
        )
        try:
            client = await LspClient.start(
                command.server_id,
                command.argv,
                slot.root,
                server_environment(self.env, untrusted=untrusted),
                init_timeout=self.settings.init_timeout,
                runtime=self.runtime,
                loaded_log=command.loaded_log,
                untrusted=untrusted,
                sections=sections,
                settings=server_settings(command, cache_dir(self.runtime.config.env) / "lsp"),
                options=server_options(command),
            )
        except (ServerCrashedError, RequestTimeoutError) as exc:
            slot.last_crash = exc.message
            self._note_crash(slot)
            raise
        if self._closed:  # the runtime closed while the server started
            await client.aclose()
            raise LspNotAvailableError("The gateway is closing; no server starts any more")
        slot.client, slot.settled = client, False
        self.capabilities[command.server_id] = client.capabilities
        slot.idle_watch = anyio.CancelScope()
        self.runtime.start_background(
            self._retire_when_idle, slot, client, slot.idle_watch, name=f"{slot.server_id} idle"
        )
        if not self._watching_memory:
            self._watching_memory = True
            self.runtime.start_background(self._watch_memory, name="lsp memory")

    async def _backoff(self, slot: ServerSlot) -> None:
        """Wait before restarting a crashed server: 1, 2, 4 ... s after 1, 2, 3 ... crashes."""
        wait = slot.retry_at - self.clock()
        if wait > _MAX_BACKOFF_WAIT:
            raise LspNotAvailableError(
                f"{slot.server_id} crashed {slot.crashes} times in a row; octo starts it again"
                f" in {wait:.0f} s. Last crash: {slot.last_crash}",
                hints=["Retry later, or choose another server with OCTO_LSP_<LANGUAGE>_SERVERS."],
            )
        if wait > 0:
            await self.sleep(wait)

    def _note_crash(self, slot: ServerSlot) -> None:
        slot.crashes += 1
        slot.retry_at = self.clock() + min(_MAX_BACKOFF, 2.0 ** (slot.crashes - 1))

    def retire(self, slot: ServerSlot, *, crashed: bool, reason: str | None = None) -> None:
        """Take ``slot``'s server out of use and stop it in the background (a polite stop
        takes seconds no query should wait for); after a crash the next start waits a
        growing backoff. ``reason`` is what requests still waiting on the server are told.
        """
        client = self._detach(slot)
        if crashed:
            self._note_crash(slot)
        if client is not None:
            self.runtime.start_background(client.aclose, reason, name=f"{slot.server_id} stop")

    @staticmethod
    def _detach(slot: ServerSlot) -> LspClient | None:
        client, slot.client = slot.client, None
        slot.timeouts, slot.resident = 0, 0
        if slot.idle_watch is not None:
            slot.idle_watch.cancel()
            slot.idle_watch = None
        return client

    def _make_room(self, keep: tuple[str, Path]) -> None:
        live = [k for k, s in self._slots.items() if s.client is not None and k != keep]
        while len(live) >= self.settings.max_servers:
            self.retire(
                self._slots[live.pop(0)], crashed=False, reason="making room for another server"
            )

    def live(self) -> list[ServerSlot]:
        """The slots whose server is running."""
        return [slot for slot in self._slots.values() if slot.client is not None]

    def _longest_idle(self, among: list[ServerSlot]) -> ServerSlot:
        """The slot unused the longest, an idle one before one answering a request."""
        return min(among, key=lambda slot: (slot.busy, slot.last_used))

    def _make_memory_room(self, starting: ServerSlot) -> None:
        """Stop the longest-idle servers while ``starting``'s expected size (what it had
        last time) would take the pool past the memory budget."""
        budget = self.settings.memory
        expected = self.last_resident.get(starting.server_id, 0)
        live = [slot for slot in self.live() if slot is not starting]
        total = sum(slot.resident for slot in live)
        while live and total + expected > budget:
            oldest = self._longest_idle(live)
            live.remove(oldest)
            total -= oldest.resident
            self.retire(oldest, crashed=False, reason="making memory room for another server")

    async def _watch_memory(self) -> None:
        """Every ``memory_check`` seconds, read each live server's resident memory and keep
        the pool within its budget; ends when no server is live."""
        try:
            while not self._closed:
                await anyio.sleep(self.settings.memory_check)
                live = [(slot, slot.client.pid) for slot in self.live() if slot.client]
                if not live:
                    return
                pids = [pid for _, pid in live if pid is not None]
                sizes = await anyio.to_thread.run_sync(resident_sizes, pids)
                for slot, pid in live:
                    if pid is not None and slot.client is not None:
                        slot.resident = sizes.get(pid, 0)
                        self.last_resident[slot.server_id] = slot.resident
                self.enforce_memory()
        finally:
            self._watching_memory = False

    def enforce_memory(self) -> None:
        """Stop a server that alone holds more than the budget (it is not started again on
        its root), then the longest-idle ones while all together hold more."""
        budget = self.settings.memory
        live = self.live()
        for slot in list(live):
            if slot.resident > budget:
                message = (
                    f"{slot.server_id} was stopped: it alone held {megabytes(slot.resident)},"
                    f" over the language servers' memory budget ({megabytes(budget)},"
                    " OCTO_LSP_MEMORY)"
                )
                slot.over_budget = MemoryBudgetError(
                    message,
                    hints=[
                        "Raise the budget (OCTO_LSP_MEMORY=8G) and restart octo, or narrow"
                        f" the root: a smaller allowed root than {slot.root} gives the server"
                        " less to load.",
                        "localSearchCode finds the symbol by text meanwhile.",
                    ],
                )
                live.remove(slot)
                self.retire(slot, crashed=False, reason=message)
        total = sum(slot.resident for slot in live)
        while live and total > budget:
            oldest = self._longest_idle(live)
            live.remove(oldest)
            total -= oldest.resident
            self.retire(
                oldest,
                crashed=False,
                reason=f"the language servers held more than OCTO_LSP_MEMORY ({megabytes(budget)})",
            )

    def touch(self, slot: ServerSlot) -> None:
        """Mark ``slot`` as used now: its idle time starts again."""
        slot.last_used = self.clock()

    async def _retire_when_idle(
        self, slot: ServerSlot, client: LspClient, scope: anyio.CancelScope
    ) -> None:
        """Sleep until ``client``'s idle deadline, check again, and retire it once it has
        been idle for ``idle_timeout``; ends (cancelled) when the client goes."""
        idle = self.settings.idle_timeout
        with scope:
            while slot.client is client:
                wait = slot.last_used + idle - self.clock()
                if wait <= 0 and not slot.busy:
                    self.retire(slot, crashed=False, reason=f"idle for {idle:g} s")
                    return
                await self.sleep(wait if wait > 0 else idle)

    async def aclose(self) -> None:
        """Stop every server (and its process group), even when the caller is cancelled.

        Servers retired earlier are still stopping in the runtime's task group, which
        waits for them: their stop is shielded from its cancellation.
        """
        with anyio.CancelScope(shield=True):
            self._closed = True
            clients = [self._detach(slot) for slot in self._slots.values()]
            self._slots.clear()
            async with anyio.create_task_group() as tg:
                for client in clients:
                    if client is not None:
                        tg.start_soon(client.aclose, "octo is closing")


async def open_on(
    pool: LspPool,
    source: Source,
    language: Language,
    allowed_root: Path,
    command: ServerCommand | None = None,
    workspace: Path | None = None,
) -> ServerSlot:
    """``command``'s server (default: the language's first) for ``source``: started, the
    file open, its first indexing over (``workspace``: its root, when known)."""
    slot = await pool.acquire(source.path, allowed_root, command, workspace)
    client = slot.live_client()
    await client.open_document(source, language.language_id)
    if not slot.settled:
        # The first answers of a fresh server can point at the wrong place while it indexes.
        await client.progress.settle(slot.settle_cap)
        slot.settled = True
        pool.touch(slot)
    return slot
