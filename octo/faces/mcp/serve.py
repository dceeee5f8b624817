"""``octo serve``: the MCP server over stdio or streamable HTTP, until the client leaves or a
signal asks octo to stop.

Signal handling lives here, in the face, never in library code: SIGTERM and SIGHUP cancel
the serving scope, so the gateway closes as on any other exit (language servers shut
down, rg killed). Children also die with octo when it is killed outright (see
octo.transports.processes).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from collections.abc import Awaitable
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio
import anyio.abc

from octo.core.config import Config
from octo.core.config import ConfigError

if TYPE_CHECKING:
    from mcp.server import Server
    from starlette.types import ASGIApp

    from octo.faces.http.access import HttpAccess
    from octo.faces.http.metrics import PrometheusMeters
    from octo.faces.library import Gateway
    from octo.faces.session_flow import FlowLimits

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


#: How long an idle HTTP connection is kept open. Clients drop theirs sooner (httpx, under the
#: mcp SDK's client, after 5 s), so octo never closes a connection as a client reuses it:
#: with uvicorn's default of 5 s both ends timed out together, and a request sent at that
#: moment met a closed connection (ReadError) under load.
KEEP_ALIVE_SECONDS = 75

#: Seconds the gateway gets to close (language servers shut down politely) after a signal.
_CLOSE_GRACE = 5.0


async def _until_signalled(
    serve: Callable[[], Awaitable[None]],
    closed: anyio.Event,
    stop_signals: tuple[signal.Signals, ...] = _STOP_SIGNALS,
) -> None:
    """Run ``serve()`` until it ends by itself or one of ``stop_signals`` comes.

    On a signal the serving scope is cancelled, the gateway closes (``closed``), and octo
    then dies by that signal: a thread blocked reading stdin cannot be cancelled, and
    waiting for the client to close stdin would keep a stopped server alive.
    """
    async with anyio.create_task_group() as tg:
        serving = anyio.CancelScope()

        async def stop_on_signal(*, task_status: anyio.abc.TaskStatus[None]) -> None:
            with anyio.open_signal_receiver(*stop_signals) as signals:
                task_status.started()
                async for signum in signals:
                    serving.cancel()
                    with anyio.move_on_after(_CLOSE_GRACE):
                        await closed.wait()
                    die_by(signum)

        # Serving starts once the signals are caught, so none comes before its handler.
        await tg.start(stop_on_signal)
        with serving:
            await serve()
        tg.cancel_scope.cancel()


def die_by(signum: int) -> None:
    """End the process by ``signum``'s default action, once everything is closed, so whoever
    started octo sees it was signalled (exit status 128 + signum)."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


async def serve_stdio(config: Config | None = None) -> None:
    """Serve one MCP client over stdin/stdout until it disconnects or octo is signalled.

    On pipes (an MCP client's), the wire answers ``initialize`` and ``tools/list`` from the
    snapshot while the SDK is imported in a worker thread (most of a cold start), then hands
    the session to the SDK's server (:class:`octo.faces.mcp.stdio_wire.Opening`).
    """
    from octo.faces.mcp.stdio_wire import stdio_is_piped

    on_terminal = sys.stdin.isatty()
    closed = anyio.Event()
    settings = config or Config.from_env()

    async def serve_piped() -> None:
        await _serve_piped(config, settings, closed)

    async def serve_by_sdk() -> None:
        if on_terminal:
            # Started by hand rather than by an MCP client: say what octo is waiting for
            # (once Ctrl+C is caught, so it does what the line says).
            print(
                "octo: MCP server on stdio, waiting for an MCP client's JSON-RPC (not typed "
                "commands); Ctrl+D or Ctrl+C stops it",
                file=sys.stderr,
                flush=True,
            )
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    if stdio_is_piped():
        serve = serve_piped
    else:
        server = _sdk_server(config, settings, closed)
        serve = serve_by_sdk
    # On a terminal Ctrl+C stops octo as SIGTERM does: as KeyboardInterrupt it would wait for
    # the SDK's thread blocked reading the terminal, that is for Ctrl+D.
    stop_signals = (*_STOP_SIGNALS, signal.SIGINT) if on_terminal else _STOP_SIGNALS
    try:
        await _until_signalled(serve, closed, stop_signals)
    except* ConfigError as bad:  # a setting read as the SDK loaded, beside the early answers
        first: BaseException = bad
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None


async def _serve_piped(config: Config | None, settings: Config, closed: anyio.Event) -> None:
    from octo.faces.mcp import tools_snapshot
    from octo.faces.mcp.stdio_wire import Opening
    from octo.faces.mcp.stdio_wire import stdio_wire

    opening = Opening(tools_snapshot.handshake(settings.toolsets), anyio.Event())
    servers: list[Server[Gateway]] = []

    async def load() -> None:
        server = await anyio.to_thread.run_sync(
            _sdk_server, config, settings, closed, abandon_on_cancel=True
        )
        servers.append(server)
        opening.ready.set()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(load)
            async with stdio_wire(_flow_limits(settings), opening=opening) as (read, write):
                server = servers[0]
                await server.run(read, write, server.create_initialization_options())
    finally:
        if not servers:  # stopped before the server ran: it opened nothing to close
            closed.set()


def _flow_limits(settings: Config) -> Callable[[], FlowLimits]:
    def limits() -> FlowLimits:
        from octo.faces.session_flow import FlowLimits

        return FlowLimits.from_env(settings.env)

    return limits


def _sdk_server(config: Config | None, settings: Config, closed: anyio.Event) -> Server[Gateway]:
    """The SDK's server of :func:`octo.faces.mcp.server.build_server` (importing the SDK),
    once the session bounds ``settings`` sets are known good (else ConfigError)."""
    from octo.faces.mcp.server import build_server
    from octo.faces.session_flow import FlowLimits

    FlowLimits.from_env(settings.env)
    return build_server(config, closed=closed)


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (0: any free port) and listening.

    Bound here rather than by uvicorn, so a bad host or a taken port is one OSError for the
    command line to report, and the URL printed names the port really bound.
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock


def mcp_url(sock: socket.socket) -> str:
    """The MCP endpoint's URL on ``sock``."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/mcp"


async def serve_http(
    sock: socket.socket, access: HttpAccess, config: Config | None = None, sse: bool = False
) -> None:
    """Serve MCP over streamable HTTP at ``/mcp`` (and, with ``sse``, the legacy HTTP+SSE
    transport at ``/sse``) on the listening ``sock`` (see :func:`listen`) to requests that
    pass ``access`` (Host, Origin, bearer token), with /healthz, /readyz and /metrics beside
    it; says on stderr where, which host names it answers to, and how to stop it.

    uvicorn handles SIGTERM/SIGINT itself: it stops accepting, finishes, and runs the
    app's shutdown, which closes the gateway. The open-files limit is raised towards its hard
    limit first, and the connection cap lowered to what the limit in force can hold.
    """
    import asyncio
    from dataclasses import replace

    import uvicorn

    from octo.faces.http.limits import guarded_protocol
    from octo.faces.http.limits import open_files_limit
    from octo.faces.http.limits import quiet_accept_failures
    from octo.faces.http.limits import within_open_files

    # The connection cap is the one the descriptors really in force can hold.
    access = replace(access, limits=within_open_files(access.limits, open_files_limit()))
    quiet_accept_failures(asyncio.get_running_loop())
    settings = uvicorn.Config(
        http_app(access, config, sse=sse),
        log_level="warning",
        log_config=None,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        http=guarded_protocol(access.limits),
        backlog=access.limits.backlog,
    )
    url = mcp_url(sock)
    also = f" and HTTP+SSE at {url.removesuffix('/mcp')}/sse" if sse else ""
    print(
        f"octo: MCP server (streamable HTTP) at {url}{also}; Ctrl+C stops it. Host names "
        f"allowed: {', '.join(access.allowed_hosts)} (--allow-host NAME adds one)",
        file=sys.stderr,
        flush=True,
    )
    await uvicorn.Server(settings).serve(sockets=[sock])


def http_app(access: HttpAccess, config: Config | None = None, *, sse: bool = False) -> ASGIApp:
    """The ASGI app of ``octo serve --http``: the MCP endpoint at ``/mcp`` (with ``sse``, the
    SDK's SSE transport at ``/sse`` too: :mod:`octo.faces.http.sse`) behind the Host check that
    names ``--allow-host`` (:mod:`octo.faces.http.host_check`), the SDK's Host / Origin checks
    and, with a token, its bearer-token middleware; the operational endpoints beside it
    (:mod:`octo.faces.http.operations`: /metrics behind the same token). At the session cap
    the session idle the longest makes room for a new client; a session's requests in flight
    and unread answers are bounded (:mod:`octo.faces.session_flow`)."""
    from octo.faces.http.host_check import HostCheck
    from octo.faces.http.limits import bound_sessions
    from octo.faces.http.operations import Operations
    from octo.faces.mcp.server import build_server
    from octo.faces.session_flow import FlowLimits

    flow = FlowLimits.from_env(config.env if config is not None else os.environ)
    operations = Operations(_prometheus_meters())
    server = build_server(
        config, over_http=True, meters=operations.meters, opened=operations.opened
    )
    app = server.streamable_http_app(
        **access.app_options(),
        custom_starlette_routes=operations.routes(
            protect_metrics=access.token is not None, host_allowed=access.host_allowed
        ),
    )
    bound_sessions(server.session_manager, flow.max_in_flight)
    if sse:
        from octo.faces.http.sse import sse_routes

        app.router.routes.extend(sse_routes(server, operations, access, flow))
    return HostCheck(app, access.allowed_hosts)


def _prometheus_meters() -> PrometheusMeters | None:
    """Meters that publish, when prometheus-client (the ``team`` extra) is installed."""
    try:
        from octo.faces.http.metrics import PrometheusMeters
    except ImportError:
        return None
    return PrometheusMeters()
