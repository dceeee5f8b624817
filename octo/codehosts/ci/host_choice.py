"""The host a CI query goes to: its provider's, and the ``host`` it names, which must be
that host (one host per provider is configured)."""

from __future__ import annotations

from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.models.ci import CiQuery
from octo.contract import QueryContext
from octo.core.errors import InvalidQueryError


def ci_host(ctx: QueryContext, query: CiQuery) -> CodeHost:
    """The backend answering ``query``; InvalidQueryError when its ``host`` names another."""
    host = choose_host(ctx, query)
    if query.host is not None and query.host.lower() not in host.host_names:
        configured = sorted(host.host_names - {host.provider})[-1]
        raise InvalidQueryError(
            f"host {query.host!r} is not configured for {host.name}",
            hints=[f'The configured host is "{configured}": leave host out or name it.'],
        )
    return host


def host_label(host: CodeHost) -> str:
    """How an answer names the host that gave it: its hosts file name, else its web host."""
    if host.entry is not None:
        return host.entry.name
    return sorted(host.host_names - {host.provider})[0]
