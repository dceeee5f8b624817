"""The resources a gateway owns and lends to tool handlers: config, cache, HTTP client,
backends, the shared store of a team's replicas, meters, and one task group for the work
that outlives a query.

Faces build a Runtime (through the library's ``Gateway``) and enter it with ``async
with``; the dispatcher hands it to handlers inside a :class:`~octo.contract.context.
QueryContext`. Background work (a language server's stderr drain, idle timers) runs in the
runtime's task group and ends when the runtime closes: nothing octo starts outlives it.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Coroutine
from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol
from typing import TypeVar
from typing import TypeVarTuple

import anyio
from anyio.abc import AsyncResource
from anyio.abc import TaskGroup

from octo.core.cache import ResultCache
from octo.core.config import Config
from octo.core.errors import ToolNotAvailableError
from octo.core.files.paths import PathPolicy
from octo.core.files.paths import clone_root
from octo.core.handles import HandleStore
from octo.core.handles import MemoryHandleStore
from octo.core.handles import credential_identity
from octo.core.meters import Meters
from octo.core.shared.handles import SharedHandleStore
from octo.core.shared.store import SharedSettings
from octo.core.shared.store import SharedStore

if TYPE_CHECKING:
    import httpx

PosArgs = TypeVarTuple("PosArgs")

#: What a runtime's calls authenticate with besides the environment's credential variables
#: (a hosts file's tokens read from files or commands), read once before its first call.
CredentialSource = Callable[["Runtime"], Awaitable[Sequence[str]]]


def _open_shared_store(settings: SharedSettings, meters: Meters) -> SharedStore:
    """The store ``settings`` name; only now is the Redis client imported."""
    from octo.core.shared.redis_store import RedisStore

    return RedisStore(settings, meters)


class Backend(Protocol):
    """A tool family's backend (ripgrep, a code host, the language-server pool): built once
    per runtime from it; an ``async def aclose()`` is called when the runtime closes."""

    def __init__(self, runtime: Runtime) -> None: ...


B = TypeVar("B", bound=Backend)


class Runtime(AsyncResource):
    """Owns every long-lived resource; ``async with runtime:`` opens it, leaving closes all.

    ``tool_names`` is every tool the face publishes, by category, or the function that
    builds them (asked on first use, so the MCP face answers tools/list without importing
    every family; getToolCategories answers it; the runtime knows no tool spec);
    ``handles`` keeps the content answers cut (unless given: in the shared store when one
    is configured, else in this process). ``shared`` is the store a team's replicas share
    (``OCTO_REDIS_URL``), None for a process on its own; ``meters`` count what happens
    (nothing unless a face gives meters that publish). ``credential_sources`` give the
    credentials its calls send besides the environment's (:meth:`bind_credentials`).
    """

    def __init__(
        self,
        config: Config,
        *,
        http_transport: httpx.AsyncBaseTransport | None = None,
        tool_names: Mapping[str, Sequence[str]]
        | Callable[[], Mapping[str, Sequence[str]]]
        | None = None,
        handles: HandleStore | None = None,
        meters: Meters | None = None,
        credential_sources: Sequence[CredentialSource] = (),
    ) -> None:
        self.config = config
        self._credential_sources = tuple(credential_sources)
        self._credentials_lock: anyio.Lock | None = None
        self._bind_identity(credential_identity(config.env))
        self.cache = ResultCache(config.cache_max_entries, config.cache_max_bytes)
        self._tool_names = tool_names if tool_names is not None else {}
        self.meters = meters if meters is not None else Meters()
        self.shared: SharedStore | None = (
            _open_shared_store(config.shared, self.meters) if config.shared else None
        )
        if handles is None:
            handles = MemoryHandleStore(config.handle_ttl)
            if self.shared is not None:
                handles = SharedHandleStore(self.shared, handles, config.handle_ttl)
        self.handles = handles
        self._http_transport = http_transport
        self._http: httpx.AsyncClient | None = None
        self._backends: dict[type[Any], Any] = {}
        self._exit_stack = AsyncExitStack()
        self._background: TaskGroup | None = None

    async def __aenter__(self) -> Runtime:
        background = await self._exit_stack.enter_async_context(anyio.create_task_group())
        # Closed in reverse: backends first (they may still need their background tasks to
        # shut down politely), then whatever background work is left is cancelled.
        self._exit_stack.callback(background.cancel_scope.cancel)
        self._background = background
        if self.shared is not None:
            background.start_soon(self.shared.listen, name="shared store announcements")
        return self

    def _bind_identity(self, identity: str) -> None:
        #: Whose credentials this runtime's calls send: content handles and clones are bound to it.
        self.identity = identity
        config = self.config
        self.paths = PathPolicy(
            config.roots, (clone_root(config.clone_dir, identity),), (config.clone_dir,)
        )

    async def bind_credentials(self) -> None:
        """Read the credential sources once and bind the identity (and so the clone root)
        to what they give with the environment's credentials: a face awaits it before the
        first call, so every handle and clone is bound to the tokens calls actually send,
        wherever they are read from. Later calls find it done."""
        if not self._credential_sources:
            return
        if self._credentials_lock is None:
            self._credentials_lock = anyio.Lock()
        async with self._credentials_lock:
            if not self._credential_sources:
                return
            others = [value for source in self._credential_sources for value in await source(self)]
            self._bind_identity(credential_identity(self.config.env, others))
            self._credential_sources = ()

    @property
    def tool_names(self) -> dict[str, tuple[str, ...]]:
        """Every tool the face publishes, by category, in tools/list order."""
        if callable(self._tool_names):
            self._tool_names = self._tool_names()
        return {category: tuple(names) for category, names in self._tool_names.items()}

    @property
    def http(self) -> httpx.AsyncClient:
        """The one shared HTTP client, created on first use (httpx costs import time)."""
        if self._http is None:
            import httpx

            from octo.core.registries import ssl_context

            self._http = httpx.AsyncClient(
                transport=self._http_transport,
                verify=ssl_context(self.config.env, Path.cwd()),
                timeout=httpx.Timeout(30.0, connect=10.0),
                # Redirects are followed by RemoteClient, hop by hop, so credentials never
                # reach another origin (httpx would forward every header but Authorization).
                follow_redirects=False,
                headers={"User-Agent": "octo-gateway"},
            )
        return self._http

    def backend(self, cls: type[B]) -> B:
        """The runtime's one instance of backend ``cls``, built on first use.

        A backend with an ``aclose`` coroutine is closed with the runtime, before its
        background work is cancelled.
        """
        found = self._backends.get(cls)
        if found is None:
            found = self._backends[cls] = cls(self)
            aclose = getattr(found, "aclose", None)
            if aclose is not None:
                self._exit_stack.push_async_callback(aclose)
        return found

    def start_background(
        self,
        func: Callable[[*PosArgs], Coroutine[Any, Any, Any]],
        *args: *PosArgs,
        name: str | None = None,
    ) -> None:
        """Run ``func(*args)`` in the runtime's task group: it may outlive the query that
        started it, never the runtime."""
        if self._background is None:
            raise ToolNotAvailableError(
                "This tool keeps work running between queries and needs an open gateway",
                hints=["Use the gateway as a context manager: `async with octo.Gateway() as gw:`"],
            )
        self._background.start_soon(func, *args, name=name)

    async def aclose(self) -> None:
        """Close backends, cancel background work, release the HTTP client and the shared
        store's connections."""
        try:
            await self._exit_stack.aclose()
        finally:
            self._background = None
            self._backends.clear()
            if self._http is not None:
                await self._http.aclose()
                self._http = None
            if self.shared is not None:
                await self.shared.aclose()
