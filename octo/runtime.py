"""The resources a gateway owns and lends to providers: config, cache, HTTP client, providers.

Faces build a Runtime (through :class:`octo.Gateway`); the dispatcher hands it to
tool handlers; providers receive it in their constructor. It imports no face.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from octo.cache import ResultCache
from octo.config import Config
from octo.security import PathPolicy

if TYPE_CHECKING:
    import httpx


class Provider(Protocol):
    """A backend (ripgrep, GitHub, a language-server pool) built once per runtime."""

    def __init__(self, runtime: Runtime) -> None: ...


P = TypeVar("P", bound=Provider)


class Runtime:
    """Owns every long-lived resource; closed once, releasing all of them."""

    def __init__(
        self,
        config: Config,
        *,
        http_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config
        self.paths = PathPolicy(config.roots)
        self.cache = ResultCache(config.cache_max_entries, config.cache_max_bytes)
        self._http_transport = http_transport
        self._http: httpx.AsyncClient | None = None
        self._providers: dict[type[Any], Any] = {}
        self._exit_stack = AsyncExitStack()

    @property
    def http(self) -> httpx.AsyncClient:
        """The one shared HTTP client, created on first use (httpx costs import time)."""
        if self._http is None:
            import httpx

            self._http = httpx.AsyncClient(
                transport=self._http_transport,
                timeout=httpx.Timeout(30.0, connect=10.0),
                follow_redirects=True,
                headers={"User-Agent": "octo-gateway"},
            )
        return self._http

    def provider(self, cls: type[P]) -> P:
        """The runtime's one instance of provider ``cls``, built on first use.

        A provider with an ``aclose`` coroutine is closed with the runtime.
        """
        found = self._providers.get(cls)
        if found is None:
            found = self._providers[cls] = cls(self)
            aclose = getattr(found, "aclose", None)
            if aclose is not None:
                self._exit_stack.push_async_callback(aclose)
        return found

    async def aclose(self) -> None:
        await self._exit_stack.aclose()
        self._providers.clear()
        if self._http is not None:
            await self._http.aclose()
            self._http = None
