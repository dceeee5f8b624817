"""The code hosts of a runtime besides the environment's: one backend per hosts file entry,
each with its own client (its rate-limit state, its answers cached under its URL and
credential), built on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from octo.codehosts.hosts.github.backend import GitHubBackend
from octo.codehosts.hosts.gitlab.backend import GitLabBackend
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.hosts_file import HostEntry
from octo.codehosts.hosts.hosts_file import read_hosts

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime


class HostSet:
    """The hosts file's entries and their backends (a runtime backend)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.entries = read_hosts(runtime.config.env)
        self._backends: dict[str, CodeHost] = {}

    def backend(self, entry: HostEntry) -> CodeHost:
        """The backend of ``entry``."""
        found = self._backends.get(entry.name)
        if found is None:
            kind = GitHubBackend if entry.kind == "github" else GitLabBackend
            found = self._backends[entry.name] = kind(self.runtime, entry)
        return found
