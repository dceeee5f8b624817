"""The library face: ``async with octo.Gateway() as gw: await gw.local_search_code([...])``."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from anyio.abc import AsyncResource

from octo.contract import ProgressReporter
from octo.contract import QueryContext
from octo.contract import ToolSpec
from octo.contract import WarmUp
from octo.contract.runtime import Runtime
from octo.core.config import Config
from octo.core.config import ConfigError
from octo.core.envelope import BulkResponse
from octo.core.errors import CallError
from octo.core.handles import HandleStore
from octo.core.meters import Meters
from octo.core.queries import ToolQuery
from octo.dispatch import dispatch
from octo.faces.call_log import record_call
from octo.faces.call_log import record_rejected

if TYPE_CHECKING:
    import httpx

Queries = Sequence[Mapping[str, Any] | ToolQuery]

logger = logging.getLogger("octo")


# The registry imports every family's models: imported when a tool is first needed, so an
# MCP server answers initialize and tools/list without it.
def _all_tools() -> tuple[ToolSpec, ...]:
    """Every tool of the registry, in tools/list order."""
    from octo import registry

    return registry.all_tools()


def _get_tool(name: str) -> ToolSpec:
    """The tool named ``name`` (camelCase or snake_case); CallError with a suggestion if none."""
    from octo import registry

    return registry.get_tool(name)


async def _hosts_file_tokens(runtime: Runtime) -> Sequence[str]:
    """The tokens of the hosts file's entries, as their hosts send them (none without a
    hosts file: then its modules are not even imported; nor with a broken one, whose hosts
    send nothing: each remote query fails with its ConfigError)."""
    from octo.codehosts.hosts.hosts_file import HOSTS_FILE

    if not runtime.config.env.get(HOSTS_FILE):
        return ()
    from octo.codehosts.hosts.host_set import HostSet

    try:
        hosts = runtime.backend(HostSet)
    except ConfigError:
        return ()
    return await hosts.credentials()


def _warm_ups() -> tuple[WarmUp, ...]:
    from octo import registry

    return tuple(registry.warm_ups())


async def _logged(warm_up: WarmUp, ctx: QueryContext) -> None:
    # Warming is an optimisation: whatever goes wrong, the gateway goes on serving.
    try:
        await warm_up(ctx)
    except Exception:  # logged: the first query meets the same fault itself, as its error
        logger.exception("warm-up failed")


class Gateway(AsyncResource):
    """A research gateway: every tool of the registry, as an async method.

    Each tool ``fooBar`` is ``await gw.foo_bar(queries)``; ``await gw.call("fooBar", queries)``
    does the same by name. Queries are dicts or the tool's query models. ``handles`` is where
    content handles live (by default in this process, or the team's shared store);
    ``meters`` count every call (by default nowhere).
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        roots: Iterable[Path | str] | None = None,
        http_transport: httpx.AsyncBaseTransport | None = None,
        handles: HandleStore | None = None,
        meters: Meters | None = None,
    ) -> None:
        config = config or Config.from_env()
        if roots is not None:
            from dataclasses import replace

            config = replace(config, roots=tuple(Path(r) for r in roots))
        self.runtime = Runtime(
            config,
            http_transport=http_transport,
            tool_names=lambda: tools_by_category(_all_tools()),
            handles=handles,
            meters=meters,
            credential_sources=[_hosts_file_tokens],
        )
        self._warmed: set[tuple[Path, ...]] = set()

    @property
    def config(self) -> Config:
        return self.runtime.config

    async def __aenter__(self) -> Gateway:
        await self.runtime.__aenter__()
        return self

    async def aclose(self) -> None:
        """Release the HTTP client, language servers and every other resource (``async with``
        does this on leaving)."""
        await self.runtime.aclose()

    async def call(
        self,
        tool: ToolSpec | str,
        queries: Queries,
        *,
        roots: Iterable[Path | str] | None = None,
        progress: ProgressReporter | None = None,
    ) -> BulkResponse[Any]:
        """Run ``queries`` on ``tool``: the spec a face already found, or a tool's name
        (camelCase or snake_case; CallError with a suggestion when no tool has it).

        ``roots`` narrows the allowed roots for this call (an MCP client's roots): the
        configured roots stay the ceiling (see :meth:`PathPolicy.narrowed`);
        ``progress(done, total, message)`` hears how far long queries got. The call is
        counted and its line logged (:mod:`octo.faces.call_log`).
        """
        spec = tool if isinstance(tool, ToolSpec) else _get_tool(tool)
        await self.runtime.bind_credentials()
        paths = self.runtime.paths.narrowed(roots) if roots is not None else None
        started = time.perf_counter()
        try:
            response = await dispatch(spec, self.runtime, queries, paths=paths, progress=progress)
        except CallError:
            record_rejected(self.runtime.meters, spec.name, time.perf_counter() - started)
            raise
        record_call(self.runtime.meters, spec, queries, response, time.perf_counter() - started)
        return response

    def warm(self, roots: Iterable[Path | str]) -> None:
        """Start, in the background, what makes the first answers under ``roots`` fast (a
        language server for the code there); returns at once. Faces call it when they learn
        the roots a client works in (MCP roots)."""
        ctx = QueryContext(self.runtime, self.runtime.paths.narrowed(roots))
        if ctx.paths.roots in self._warmed:
            return
        self._warmed.add(ctx.paths.roots)
        for warm_up in _warm_ups():
            self.runtime.start_background(_logged, warm_up, ctx, name="warm-up")

    @staticmethod
    def tools() -> tuple[ToolSpec, ...]:
        return _all_tools()

    def __getattr__(self, name: str) -> Any:
        # One method per registry tool, derived rather than written out per tool.
        for spec in _all_tools():
            if spec.python_name == name:
                return self._tool_method(spec)
        raise AttributeError(f"{type(self).__name__!r} has no attribute {name!r}")

    def _tool_method(self, spec: ToolSpec) -> Any:
        async def method(queries: Queries) -> BulkResponse[Any]:
            return await self.call(spec, queries)

        method.__name__ = spec.python_name
        method.__doc__ = spec.description
        return method

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *(spec.python_name for spec in _all_tools())]


def tools_by_category(tools: Sequence[ToolSpec]) -> dict[str, list[str]]:
    """The names of ``tools`` under their categories, in the order given (tools/list order):
    what the runtime hands getToolCategories."""
    categories: dict[str, list[str]] = {}
    for spec in tools:
        categories.setdefault(spec.category.value, []).append(spec.name)
    return categories
