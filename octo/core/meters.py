"""What octo counts while it works: calls, cache use, upstream requests, rate limits, the
shared store's health.

:class:`Meters` is what every layer calls; it counts nothing, which is what a library user
and ``octo call`` get. ``octo serve --http`` hands the runtime a subclass that publishes
Prometheus metrics (:mod:`octo.faces.http.metrics`), so no layer below the faces imports a
metrics library.
"""

from __future__ import annotations


class Meters:
    """The counting points; each method of this base does nothing."""

    def query(self, tool: str, status: str, output_mode: str = "") -> None:
        """One query of ``tool`` ended with ``status`` (success, empty, error, rejected);
        ``output_mode``: the outputMode it asked for, for the tools that have one (a search's
        groupByFile, totalOnly, countOnly, summary, or ``other``), else empty."""

    def call_seconds(self, tool: str, seconds: float) -> None:
        """One call of ``tool`` took ``seconds``."""

    def cache(self, result: str, store: str) -> None:
        """A cache lookup's ``result`` (hit, miss, revalidated) in ``store`` (local, shared)."""

    def upstream(self, host: str, status: str) -> None:
        """One request to ``host`` answered ``status`` (a number, timeout or unreachable)."""

    def quota(self, host: str, resource: str, remaining: int) -> None:
        """``host`` said ``remaining`` requests are left of ``resource``."""

    def shared_store(self, operation: str, ok: bool) -> None:
        """A call to the shared store (get, put, claim...) succeeded or failed."""
