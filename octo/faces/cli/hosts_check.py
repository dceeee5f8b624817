"""``octo hosts``: the code hosts of the hosts file, and whether each one's token works
(one cheap authenticated call to its own API host, ``/user``). No token is ever printed:
a host is shown with where its token comes from."""

from __future__ import annotations

import anyio

from octo.codehosts.hosts.host_set import HostSet
from octo.codehosts.hosts.hosts_file import HOSTS_FILE
from octo.codehosts.hosts.hosts_file import HostEntry
from octo.core.config import Config
from octo.core.errors import OctoError
from octo.faces.library import Gateway

#: The longest one host's check may take.
CHECK_SECONDS = 20.0


async def hosts_report(config: Config) -> tuple[list[str], bool]:
    """One line per host (name, kind, API URL, owners, token source, verdict) and whether
    every token works."""
    async with Gateway(config=config) as gateway:
        hosts = gateway.runtime.backend(HostSet)
        if not hosts.entries:
            return [
                f"No hosts file ({HOSTS_FILE} unset): GitHub and GitLab as the environment "
                "configures them (GITHUB_TOKEN, GITHUB_API_URL, GITLAB_TOKEN, GITLAB_HOST)."
            ], True
        lines: list[str] = []
        healthy = True
        for entry in hosts.entries:
            with anyio.move_on_after(CHECK_SECONDS) as scope:
                verdict = await _verdict(hosts, entry, config)
            if scope.cancelled_caught:
                verdict = f"no answer within {CHECK_SECONDS:.0f} s"
            healthy = healthy and verdict == "token works"
            owners = ", ".join(entry.owners) or "(catch-all)"
            lines.append(
                f"{entry.name}  {entry.kind}  {entry.api_url}  owners: {owners}  "
                f"token: {entry.token_source}  -> {verdict}"
            )
        return lines, healthy


async def _verdict(hosts: HostSet, entry: HostEntry, config: Config) -> str:
    if not await hosts.token(entry):
        return "no token (its source gave nothing)"
    try:
        await hosts.backend(entry).remote.send("/user")
    except OctoError as exc:
        return f"fails: {exc.code.value}: {exc}"
    return "token works"
