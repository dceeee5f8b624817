"""Prometheus metrics of ``octo serve --http`` (prometheus-client, the ``team`` extra).

:class:`PrometheusMeters` is the runtime's :class:`~octo.core.meters.Meters` that publishes:
each server has its own registry (never the library's global one), so two servers in one
process, or two tests, never see each other's counts.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry
from prometheus_client import Counter
from prometheus_client import Gauge
from prometheus_client import Histogram
from prometheus_client import disable_created_metrics
from prometheus_client import generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from octo.core.meters import Meters
from octo.transports.processes import running

# What is published: name, help, labels.
_QUERIES = (
    "octo_queries",
    "Queries answered, by tool, status and output mode (searches: groupByFile, totalOnly, "
    "countOnly, summary)",
    ("tool", "status", "output_mode"),
)
_CALLS = ("octo_call_seconds", "Time to answer one call, by tool", ("tool",))
_CACHE = (
    "octo_cache_lookups",
    "Cache lookups of remote answers: hit, miss, revalidated (a stale entry the host "
    "confirmed), by store (local, shared)",
    ("result", "store"),
)
_UPSTREAM = (
    "octo_upstream_requests",
    "Requests sent upstream, by host and status",
    ("host", "status"),
)
_QUOTA = (
    "octo_rate_limit_remaining",
    "Requests left of a host's rate-limited resource",
    ("host", "resource"),
)
_REDIS_ERRORS = (
    "octo_redis_errors",
    "Failed or timed-out calls to the shared Redis, by operation",
    ("operation",),
)
_REDIS_UP = ("octo_redis_up", "1 while the last call to the shared Redis succeeded", ())

#: Seconds: a cached answer takes milliseconds, a remote search seconds.
_CALL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class _Children(Collector):
    """The rg and language-server processes running now."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "octo_child_processes", "Child processes running now, by kind", labels=["kind"]
        )
        counts = {"rg": 0, "lsp": 0, **running()}
        for kind, count in sorted(counts.items()):
            family.add_metric([kind], count)
        yield family


class PrometheusMeters(Meters):
    """Counts into its own ``registry``; :meth:`exposition` is the text ``/metrics`` serves."""

    def __init__(self) -> None:
        # The *_created series double the output and tell a scraper nothing it needs.
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = registry = CollectorRegistry()
        self._queries = Counter(*_QUERIES, registry=registry)
        self._calls = Histogram(*_CALLS, buckets=_CALL_BUCKETS, registry=registry)
        self._cache = Counter(*_CACHE, registry=registry)
        self._upstream = Counter(*_UPSTREAM, registry=registry)
        self._quota = Gauge(*_QUOTA, registry=registry)
        self._shared_errors = Counter(*_REDIS_ERRORS, registry=registry)
        self._shared_up = Gauge(*_REDIS_UP, registry=registry)
        registry.register(_Children())

    def exposition(self) -> bytes:
        """Every metric in the Prometheus text format."""
        return generate_latest(self.registry)

    def query(self, tool: str, status: str, output_mode: str = "") -> None:
        self._queries.labels(tool, status, output_mode).inc()

    def call_seconds(self, tool: str, seconds: float) -> None:
        self._calls.labels(tool).observe(seconds)

    def cache(self, result: str, store: str) -> None:
        self._cache.labels(result, store).inc()

    def upstream(self, host: str, status: str) -> None:
        self._upstream.labels(host, status).inc()

    def quota(self, host: str, resource: str, remaining: int) -> None:
        self._quota.labels(host, resource).set(remaining)

    def shared_store(self, operation: str, ok: bool) -> None:
        if not ok:
            self._shared_errors.labels(operation).inc()
        self._shared_up.set(1 if ok else 0)
