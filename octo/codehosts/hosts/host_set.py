"""The code hosts of a runtime besides the environment's: one backend per hosts file entry,
each with its own client (its rate-limit state, its answers cached under its URL and
credential), built on first use; and each entry's token, read once from its source and
shared by its backend and the runtime's credential identity."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from octo.codehosts.hosts.github.backend import GitHubBackend
from octo.codehosts.hosts.gitlab.backend import GitLabBackend
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.hosts_file import HostEntry
from octo.codehosts.hosts.hosts_file import read_hosts

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime


class HostSet:
    """The hosts file's entries, their tokens and their backends (a runtime backend)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.entries = read_hosts(runtime.config.env)
        self._backends: dict[str, CodeHost] = {}
        self._tokens: dict[str, str | None] = {}
        self._locks = {entry.name: anyio.Lock() for entry in self.entries}

    def backend(self, entry: HostEntry) -> CodeHost:
        """The backend of ``entry``."""
        found = self._backends.get(entry.name)
        if found is None:
            kind = GitHubBackend if entry.kind == "github" else GitLabBackend
            found = self._backends[entry.name] = kind(
                self.runtime, entry, lambda: self.token(entry)
            )
        return found

    async def token(self, entry: HostEntry) -> str | None:
        """``entry``'s token, read from its source on first use (None when it gave none):
        the one its backend sends, and the runtime's identity is bound to."""
        async with self._locks[entry.name]:
            if entry.name not in self._tokens:
                self._tokens[entry.name] = await entry.token(self.runtime.config.env)
        return self._tokens[entry.name]

    async def credentials(self) -> list[str]:
        """Each entry's host and token (the entries that have one), read concurrently: what
        the runtime's credential identity counts besides the environment's variables."""
        async with anyio.create_task_group() as group:
            for entry in self.entries:
                group.start_soon(self.token, entry)
        return [
            f"{entry.api_url}\n{token}"
            for entry in self.entries
            if (token := self._tokens.get(entry.name))
        ]
