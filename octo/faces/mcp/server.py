"""The MCP face: every registry tool published on the low-level server of the ``mcp`` SDK,
with the guide as resources and prompts (:mod:`octo.faces.mcp.guide`).

The low-level ``Server`` is used rather than ``MCPServer`` because the latter validates a
call's arguments against a signature before the tool runs, which would reject a whole call
for one bad query; here the dispatcher validates each query and a bad one becomes that
query's VALIDATION_ERROR envelope while the others still run.

Importing this module imports ``mcp`` (about a second); only ``octo serve``, ``octo docs``
(which records the SDK's answers here: :func:`render_snapshot`) and tests do.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import TypeAlias
from urllib.parse import unquote
from urllib.parse import urlparse

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.exceptions import NoBackChannelError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from octo.core import VERSION as __version__
from octo.core.config import Config
from octo.core.errors import CallError
from octo.core.meters import Meters
from octo.faces.mcp import guide
from octo.faces.mcp import tools_snapshot
from octo.faces.mcp.tools_snapshot import line
from octo.faces.tool_schemas import published

if TYPE_CHECKING:
    from octo.faces.library import Gateway

logger = logging.getLogger("octo.server")

INSTRUCTIONS = (
    "octo answers research questions about code: local files (ripgrep), GitHub, packages and "
    "language servers. Every tool takes {'queries': [...]} with up to its maxItems queries, runs "
    "them concurrently and answers one result per query (status success | empty | error, data, "
    "hints). Batch related queries into one call and follow the hints for the next step. "
    "Whatever an answer cuts carries a contentHandle for getCachedContent; new here: "
    "firstTimeUserGuide {}."
)

# Per-connection cache of the client's roots; the SDK's connection scratch space holds it.
_ROOTS_KEY = "octo.client_roots"
# Key of the roots request inside an InputRequiredResult (2026-07-28 multi-round-trip).
_ROOTS_INPUT = "roots"

Context: TypeAlias = "ServerRequestContext[Gateway]"


def _root_paths(roots: Sequence[types.Root]) -> list[Path]:
    """Local paths of the client's ``file://`` roots; other schemes cannot hold local files."""
    paths = []
    for root in roots:
        uri = urlparse(str(root.uri))
        if uri.scheme == "file":
            paths.append(Path(unquote(uri.path)))
    return paths


def _connection_state(ctx: Context) -> dict[str, Any]:
    # The SDK keeps per-connection scratch state on the Connection, which the
    # request context reaches only through the session.
    state: dict[str, Any] = ctx.session._connection.state
    return state


def _client_has_roots(ctx: Context) -> bool:
    capabilities = ctx.session.client_capabilities
    return capabilities is not None and capabilities.roots is not None


async def _ask_roots(ctx: Context) -> list[Path] | None:
    """Ask a handshake-era client for its roots and remember them for the connection.

    Raises MCPError or NoBackChannelError when the client cannot answer now.
    """
    result = await ctx.session.send_request(types.ListRootsRequest(), types.ListRootsResult)
    roots = _connection_state(ctx)[_ROOTS_KEY] = _root_paths(result.roots) or None
    return roots


async def _legacy_client_roots(ctx: Context) -> list[Path] | None:
    """Ask a handshake-era client for its roots once per connection (until roots change)."""
    state = _connection_state(ctx)
    if _ROOTS_KEY not in state:
        try:
            return await _ask_roots(ctx)
        except (MCPError, NoBackChannelError) as exc:
            logger.warning("client advertised roots but roots/list failed: %s", exc)
            state[_ROOTS_KEY] = None
    roots: list[Path] | None = state[_ROOTS_KEY]
    return roots


async def _client_roots(
    ctx: Context, params: types.CallToolRequestParams
) -> list[Path] | types.InputRequiredResult | None:
    """The client's roots as allowed roots for this call, or None to use the configured ones.

    On 2026-07-28 connections the server may not send requests, so roots are asked for with
    an InputRequiredResult and arrive in the retried call's ``input_responses``.
    """
    if not _client_has_roots(ctx):
        return None
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return await _legacy_client_roots(ctx)
    answer = (params.input_responses or {}).get(_ROOTS_INPUT)
    if isinstance(answer, types.ListRootsResult):
        roots = _root_paths(answer.roots) or None
        if roots:
            # This protocol sends roots only with a call: warm for the calls after it.
            ctx.lifespan_context.warm(roots)
        return roots
    return types.InputRequiredResult(input_requests={_ROOTS_INPUT: types.ListRootsRequest()})


async def _warm_client_roots(ctx: Context, _params: types.NotificationParams) -> None:
    """Once a handshake-era client is initialized (or its roots changed), ask for its roots
    and warm the gateway for them (language servers start in the background).

    This runs in the notification's own task: initialize and tools/list never wait for it.
    A client that cannot answer yet (over HTTP, before it opened its event stream) is asked
    again by its first call, over that call's own stream.
    """
    if not _client_has_roots(ctx) or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return
    try:
        roots = await _ask_roots(ctx)
    except (MCPError, NoBackChannelError) as exc:
        logger.info("roots/list before any call failed (the first call asks again): %s", exc)
        return
    if roots:
        ctx.lifespan_context.warm(roots)


def _call_error_result(exc: CallError) -> types.CallToolResult:
    text = "\n".join([exc.message, *exc.hints])
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


async def _call_tool(
    ctx: Context, params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    from octo.registry import get_tool

    try:
        spec = get_tool(params.name)
    except CallError as exc:
        raise MCPError(
            types.INVALID_PARAMS, f"Unknown tool: {params.name}", data=exc.hints
        ) from None
    toolsets = ctx.lifespan_context.config.toolsets
    if not published((spec,), toolsets):
        raise MCPError(
            types.INVALID_PARAMS,
            f"Unknown tool: {params.name} (its toolset {spec.category.toolset} is switched off: "
            f"OCTO_TOOLSETS or octo serve --toolsets adds it)",
        )
    # Remote tools read no local path, so they skip the roots round trip.
    roots = None if spec.open_world else await _client_roots(ctx, params)
    if isinstance(roots, types.InputRequiredResult):
        return roots
    arguments: Mapping[str, Any] = params.arguments or {}
    # Any shape is passed on: the dispatcher turns a non-list into a call error with a hint.
    queries: Any = arguments.get("queries")
    unexpected = sorted(set(arguments) - {"queries"})
    try:
        if unexpected:
            raise CallError(
                f"Unknown argument(s): {', '.join(unexpected)}",
                hints=['Put every parameter inside a query: {"queries": [{...}]}'],
            )
        response = await ctx.lifespan_context.call(
            spec, queries, roots=roots, progress=ctx.session.report_progress
        )
    except CallError as exc:
        return _call_error_result(exc)
    if toolsets is not None:
        _drop_unpublished_hints(response.results, toolsets)
    text = response.to_compact_json()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        # The same wire form, serialised once: parsing it back is cheaper than a second dump.
        structured_content=json.loads(text),
        is_error=response.all_failed,
    )


def _drop_unpublished_hints(results: Sequence[Any], toolsets: frozenset[str]) -> None:
    """Leave out the hints that send this client to a tool its toolsets switch off: it could
    not call it (the command line and the library keep every tool, and every hint)."""
    from octo.registry import all_tools

    hidden = [spec.name for spec in all_tools() if spec.category.toolset not in toolsets]
    if not hidden:
        return
    names = re.compile(r"\b(?:" + "|".join(map(re.escape, hidden)) + r")\b")
    for result in results:
        result.hints[:] = [hint for hint in result.hints if not names.search(hint)]


async def _roots_changed(ctx: Context, params: types.NotificationParams) -> None:
    _connection_state(ctx).pop(_ROOTS_KEY, None)
    await _warm_client_roots(ctx, params)


def _load_registry() -> None:
    from octo.registry import all_tools

    all_tools()


def build_server(
    config: Config | None = None,
    *,
    closed: anyio.Event | None = None,
    meters: Meters | None = None,
    opened: Callable[[Gateway | None], None] | None = None,
    over_http: bool = False,
) -> Server[Gateway]:
    """A new MCP server publishing every registry tool.

    Its lifespan owns one Gateway (``config``, else read from the environment): the cache,
    HTTP client and language servers are shared by every connection of the process.
    ``closed`` is set once that gateway has closed everything it opened. The gateway counts
    into ``meters``; ``opened`` hears of it once it is open, and of None when it closes
    (the HTTP server's readiness).

    A client's roots only narrow the configured roots. With none configured, a stdio
    client (the user's own process) sets the roots of its calls; ``over_http`` the
    working directory is the ceiling instead, since anyone who reaches the port is a client.
    """
    definitions: list[types.Tool] = []

    @asynccontextmanager
    async def lifespan(_server: Server[Gateway]) -> AsyncIterator[Gateway]:
        # Nothing slow happens here, so initialize answers at once.
        from octo.faces.library import Gateway

        settings = config or Config.from_env()
        ceiling = [Path.cwd()] if over_http and not settings.roots else None
        try:
            async with Gateway(settings, roots=ceiling, meters=meters) as gateway:
                if opened is not None:
                    opened(gateway)
                yield gateway
        finally:
            if opened is not None:
                opened(None)
            if closed is not None:
                closed.set()

    def tool_definitions() -> list[types.Tool]:
        # Read on the first tools/list from the snapshot `octo docs` writes: answering it
        # imports no family.
        if not definitions:
            definitions.extend(tools_snapshot.load((config or Config.from_env()).toolsets))
        return definitions

    async def list_tools(
        ctx: Context, _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if not definitions:
            # The registry loads in a worker thread while the client reads the list, so the
            # first call does not wait for it.
            ctx.lifespan_context.runtime.start_background(
                anyio.to_thread.run_sync, _load_registry, name="registry import"
            )
        return types.ListToolsResult(tools=tool_definitions())

    def input_schema_of(name: str) -> dict[str, Any] | None:
        return next((t.input_schema for t in tool_definitions() if t.name == name), None)

    server: Server[Gateway] = Server(
        "octo",
        version=__version__,
        title="octo research gateway",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        get_tool_input_schema=input_schema_of,
        on_list_tools=list_tools,
        on_call_tool=_call_tool,
        on_list_resources=guide.list_resources,
        on_list_resource_templates=guide.list_resource_templates,
        on_read_resource=guide.read_resource,
        on_list_prompts=guide.list_prompts,
        on_get_prompt=guide.get_prompt,
    )
    # Registered directly: the constructor argument warns that roots are deprecated in the
    # 2026-07-28 protocol, while handshake-era clients still send this notification.
    server.add_notification_handler(
        "notifications/roots/list_changed", types.NotificationParams, _roots_changed
    )
    server.add_notification_handler(
        "notifications/initialized", types.NotificationParams, _warm_client_roots
    )
    return server


def render_snapshot() -> str:
    """The snapshot :mod:`octo.faces.mcp.tools_snapshot` reads: every registry tool as the SDK
    publishes it in tools/list, with its toolset, and the SDK server's initialize result for
    each handshake protocol version."""
    from mcp_types.methods import serialize_server_result
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    from octo.registry import all_tools

    specs = all_tools()
    listed = types.ListToolsResult(
        tools=[tools_snapshot.tool_definition(spec) for spec in specs]
    ).model_dump(by_alias=True, mode="json", exclude_none=True)
    # The SDK shapes a result for the version the connection negotiated: the tools must come
    # out the same for each, or one answer could not serve them all.
    shaped = {
        line(serialize_server_result("tools/list", version, listed)["tools"])
        for version in HANDSHAKE_PROTOCOL_VERSIONS
    }
    if len(shaped) != 1:
        raise RuntimeError("the SDK publishes the tools differently across protocol versions")
    tools = json.loads(shaped.pop())
    initialize = {v: anyio.run(sdk_answers, v, None) for v in HANDSHAKE_PROTOCOL_VERSIONS}
    entries = [
        {"toolset": spec.category.toolset, "tool": tool}
        for spec, tool in zip(specs, tools, strict=True)
    ]
    # One tool a line: a change to a tool is a change to its line.
    head = {"initialize": {v: json.loads(lines[0])["result"] for v, lines in initialize.items()}}
    return (
        "{"
        + line(head)[1:-1]
        + f',"otherwise":{line(LATEST_HANDSHAKE_VERSION)},"tools":[\n'
        + ",\n".join(map(line, entries))
        + "\n]}\n"
    )


async def sdk_answers(
    version: str, toolsets: frozenset[str] | None, *, tools_too: bool = False
) -> list[str]:
    """The lines the SDK's server (publishing ``toolsets``) writes on the wire to answer
    ``initialize`` at protocol version ``version`` (request id 1) and, with ``tools_too``,
    ``tools/list`` after it (id 2): the reference :func:`render_snapshot` records results
    from, and tests hold the stdio wire's early answers to."""
    from mcp.shared.message import SessionMessage

    server = build_server(Config(toolsets=toolsets))
    to_server, server_in = anyio.create_memory_object_stream[SessionMessage | Exception](4)
    server_out, from_server = anyio.create_memory_object_stream[SessionMessage](4)
    opening = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "octo docs", "version": "0"},
    }
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": opening},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    if tools_too:
        messages.append({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    lines: list[str] = []
    async with to_server, server_in, server_out, from_server, anyio.create_task_group() as tg:
        tg.start_soon(server.run, server_in, server_out, server.create_initialization_options())
        for message in messages:
            parsed = types.jsonrpc_message_adapter.validate_python(message, by_name=False)
            await to_server.send(SessionMessage(parsed))
            if "id" in message:
                answer = (await from_server.receive()).message
                lines.append(answer.model_dump_json(by_alias=True, exclude_unset=True))
        tg.cancel_scope.cancel()
    return lines
