"""The HTTP server's endpoints for whoever runs it, beside ``/mcp``: ``GET /healthz``
(liveness), ``GET /readyz`` (ready to answer: the gateway is open and the shared Redis,
when one is configured, answers) and ``GET /metrics`` (Prometheus text format).

/healthz and /readyz answer without authentication (a load balancer's probes carry no
token and learn nothing private); /metrics sits behind the same bearer token as /mcp when
the server has one. /readyz and /metrics answer only a Host header that names the server,
as /mcp does (a DNS-rebound page must not read them).
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.responses import PlainTextResponse
from starlette.responses import Response
from starlette.routing import Route
from starlette.routing import request_response

from octo.faces.library import Gateway

if TYPE_CHECKING:
    from octo.faces.http.metrics import PrometheusMeters

#: The content type of the Prometheus text format.
PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"


class Operations:
    """The endpoints' view of the server: its meters and, while it is open, its gateway."""

    def __init__(self, meters: PrometheusMeters | None) -> None:
        self.meters = meters
        self.gateway: Gateway | None = None

    def opened(self, gateway: Gateway | None) -> None:
        """The MCP server's lifespan says its gateway opened (or closed: None)."""
        self.gateway = gateway

    async def healthz(self, _request: Request) -> Response:
        return PlainTextResponse("ok\n")

    async def readyz(self, _request: Request) -> Response:
        gateway = self.gateway
        if gateway is None:
            return JSONResponse({"ready": False, "gateway": "closed"}, status_code=503)
        shared = gateway.runtime.shared
        if shared is None:
            return JSONResponse({"ready": True, "gateway": "open", "redis": "off"})
        if await shared.ping():
            return JSONResponse({"ready": True, "gateway": "open", "redis": "ok"})
        return JSONResponse(
            {"ready": False, "gateway": "open", "redis": f"unreachable at {shared.settings.where}"},
            status_code=503,
        )

    async def metrics(self, _request: Request) -> Response:
        if self.meters is None:
            return PlainTextResponse(
                "metrics need prometheus-client: pip install 'octo-gateway[team]'\n",
                status_code=501,
            )
        return Response(self.meters.exposition(), media_type=PROMETHEUS_TEXT)

    def routes(
        self, *, protect_metrics: bool, host_allowed: Callable[[str | None], bool]
    ) -> list[Route]:
        """The routes; ``protect_metrics``: /metrics needs the bearer token /mcp needs (the
        SDK's authentication middleware has checked it; this asks for its verdict);
        ``host_allowed``: the Host check /readyz and /metrics pass first."""

        def checked(
            endpoint: Callable[[Request], Awaitable[Response]],
        ) -> Callable[[Request], Awaitable[Response]]:
            async def answer(request: Request) -> Response:
                if not host_allowed(request.headers.get("host")):
                    return PlainTextResponse("Invalid Host header\n", status_code=421)
                return await endpoint(request)

            return answer

        metrics: object = checked(self.metrics)
        if protect_metrics:
            from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware

            metrics = RequireAuthMiddleware(request_response(checked(self.metrics)), [], None)
        return [
            Route("/healthz", self.healthz, methods=["GET"]),
            Route("/readyz", checked(self.readyz), methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),  # type: ignore[arg-type]
        ]
