"""The hosts file (``OCTO_HOSTS_FILE``): several code hosts and accounts, which repositories
go where, and where each one's token comes from.

```toml
[[hosts]]
name = "company"                      # how answers, hints and a query's ``host`` name it
kind = "github"                       # or "gitlab"
api_url = "https://ghe.example.com/api/v3"
web_hosts = ["ghe.example.com"]       # repository URLs on these hosts go here
owners = ["acme-*", "platform"]       # owner (group) globs; none: the kind's catch-all
token_env = "GHE_TOKEN"               # or token_command = [...], or token_file = "..."
```

The first entry that matches a query answers it. Without the file, the environment of
today (GITHUB_TOKEN, GITLAB_HOST, ...) is the single host of each kind. A mistake in the
file (an unknown key, no token source, two catch-alls of one kind) is a ConfigError that
names its line, raised when octo starts.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any
from typing import Literal
from urllib.parse import urlsplit

import anyio

from octo.core.config import ConfigError
from octo.transports.processes import command_output

#: Where a host's token is read on its first request (None: it gave none).
TokenSource = Callable[[], Awaitable[str | None]]
#: The variable naming the hosts file.
HOSTS_FILE = "OCTO_HOSTS_FILE"
#: The most a token file may hold.
MAX_TOKEN_BYTES = 64 * 1024
#: The longest a token command may take.
TOKEN_COMMAND_SECONDS = 10.0
_KEYS = frozenset(
    {"name", "kind", "api_url", "web_hosts", "owners", "token_env", "token_command", "token_file"}
)
_TOKEN_KEYS = ("token_env", "token_command", "token_file")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")
#: A web host as a repository URL names it: a host name, and a port other than the default.
_WEB_HOST = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(:\d{1,5})?$")


@dataclass(frozen=True)
class HostEntry:
    """One ``[[hosts]]`` entry: a host of one kind, the owners it serves and its token."""

    name: str
    kind: Literal["github", "gitlab"]
    api_url: str
    web_hosts: tuple[str, ...]
    owners: tuple[str, ...]
    token_env: str | None
    token_command: tuple[str, ...] | None
    token_file: str | None
    #: The line of the entry's ``[[hosts]]`` header.
    line: int

    @property
    def api_host(self) -> str:
        return (urlsplit(self.api_url).hostname or "").lower()

    @property
    def names(self) -> frozenset[str]:
        """What a query's ``host`` (or a repository URL's host) may call this entry: its
        name, its API host (with its port, if any, and without an ``api.`` prefix: the web
        host of api.github.com), its web hosts as written."""
        api = urlsplit(self.api_url)
        api_netloc = f"{self.api_host}:{api.port}" if api.port else self.api_host
        web = (h.lower() for h in self.web_hosts)
        return frozenset(
            {self.name.lower(), self.api_host, api_netloc, api_netloc.removeprefix("api."), *web}
        )

    def serves(self, owner: str) -> bool:
        """Whether ``owner`` (a GitLab group path by its top group too) is one of this
        entry's owners; a catch-all serves none by name."""
        candidates = {owner.lower(), owner.lower().split("/", 1)[0]}
        return any(fnmatchcase(c, glob.lower()) for c in candidates for glob in self.owners)

    @property
    def token_source(self) -> str:
        """Where the token comes from, in words that hold no token."""
        if self.token_env:
            return f"environment variable {self.token_env}"
        if self.token_file:
            return f"file {self.token_file}"
        return f"command {self.token_command[0] if self.token_command else '?'}"

    async def token(self, env: Mapping[str, str]) -> str | None:
        """The token, read from its source now (None when it yields nothing)."""
        if self.token_env:
            return env.get(self.token_env) or None
        if self.token_file:
            return await anyio.to_thread.run_sync(_file_token, self.token_file)
        assert self.token_command
        with anyio.move_on_after(TOKEN_COMMAND_SECONDS):
            return await command_output(self.token_command, env)
        return None


def _file_token(path: str) -> str | None:
    """The token a file holds; None when it cannot be read, is no UTF-8 text or is longer
    than any token (``/dev/zero`` is not read to its end)."""
    try:
        with Path(path).expanduser().open("rb") as file:
            data = file.read(MAX_TOKEN_BYTES + 1)
        if len(data) > MAX_TOKEN_BYTES:
            return None
        return data.decode("utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def read_hosts(env: Mapping[str, str]) -> tuple[HostEntry, ...]:
    """The entries of the hosts file ``env`` names; none without one. ConfigError names the
    file and line of a mistake."""
    path = env.get(HOSTS_FILE)
    if not path:
        return ()
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{HOSTS_FILE}={path}: cannot read it: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not TOML: {exc}") from None
    unknown = sorted(set(data) - {"hosts"})
    if unknown:
        raise ConfigError(f"{path}: unknown table or key {unknown[0]!r} (only [[hosts]])")
    tables = data.get("hosts", [])
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[hosts]]"]
    if not isinstance(tables, list) or len(lines) != len(tables):
        raise ConfigError(f"{path}: write each host as a [[hosts]] table on its own line")
    entries = [_entry(path, text, table, line) for table, line in zip(tables, lines, strict=True)]
    _check_together(path, entries)
    return tuple(entries)


def _entry(path: str, text: str, table: Mapping[str, Any], line: int) -> HostEntry:
    def fail(message: str, key: str | None = None) -> ConfigError:
        return ConfigError(f"{path}:{_key_line(text, line, key) if key else line}: {message}")

    for key in table:
        if key not in _KEYS:
            raise fail(f"unknown key {key!r} (keys: {', '.join(sorted(_KEYS))})", key)
    name, kind, api_url = table.get("name"), table.get("kind"), table.get("api_url")
    if not isinstance(name, str) or not _NAME.match(name):
        raise fail("name: a short name of letters, digits, '.', '_', '-'", "name")
    if kind not in ("github", "gitlab"):
        raise fail('kind: "github" or "gitlab"', "kind")
    if not isinstance(api_url, str) or urlsplit(api_url).scheme not in ("http", "https"):
        raise fail("api_url: the http(s) URL of the host's API", "api_url")
    sources = [key for key in _TOKEN_KEYS if key in table]
    if len(sources) != 1:
        raise fail(f"host {name!r} needs exactly one of {', '.join(_TOKEN_KEYS)}")
    command = table.get("token_command")
    if command is not None and (
        not isinstance(command, list) or not command or not all(isinstance(a, str) for a in command)
    ):
        raise fail("token_command: a list of strings (no shell)", "token_command")
    for key in ("token_env", "token_file"):
        if key in table and not (isinstance(table[key], str) and table[key]):
            raise fail(f"{key}: a non-empty string", key)
    web_hosts = _strings(table, "web_hosts", fail)
    for web_host in web_hosts:
        if not _WEB_HOST.match(web_host):
            raise fail(
                f"web_hosts: {web_host!r} is not a host name (a port may follow: host:8443;"
                " no scheme, no path)",
                "web_hosts",
            )
    return HostEntry(
        name=name,
        kind=kind,
        api_url=api_url.rstrip("/"),
        web_hosts=web_hosts,
        owners=_strings(table, "owners", fail),
        token_env=table.get("token_env"),
        token_command=tuple(command) if command else None,
        token_file=table.get("token_file"),
        line=line,
    )


def _strings(table: Mapping[str, Any], key: str, fail: Any) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise fail(f"{key}: a list of non-empty strings", key)
    return tuple(value)


def _key_line(text: str, header: int, key: str) -> int:
    """The line of ``key`` in the table whose header is on line ``header``."""
    for number, line in enumerate(text.splitlines()[header:], header + 1):
        if line.strip() == "[[hosts]]":
            break
        if line.strip().startswith(f"{key}") and "=" in line:
            return number
    return header


def _check_together(path: str, entries: list[HostEntry]) -> None:
    seen: dict[str, HostEntry] = {}
    catch_alls: dict[str, HostEntry] = {}
    for entry in entries:
        if entry.name.lower() in seen:
            raise ConfigError(f"{path}:{entry.line}: a second host named {entry.name!r}")
        seen[entry.name.lower()] = entry
        if not entry.owners:
            first = catch_alls.get(entry.kind)
            if first is not None:
                raise ConfigError(
                    f"{path}:{entry.line}: a second {entry.kind} host without owners (the "
                    f"catch-all is {first.name!r}, line {first.line}); give this one owners"
                )
            catch_alls[entry.kind] = entry


def pick(
    entries: tuple[HostEntry, ...], kind: str | None, owner: str | None, host: str | None
) -> HostEntry | None:
    """The entry answering a query: the one ``host`` names, else the first whose owners
    match ``owner``, else the catch-all of ``kind`` (unsaid: GitHub's, else GitLab's); of
    ``kind`` only when it is given. None when no entry fits."""
    fits = [e for e in entries if kind is None or e.kind == kind]
    if host is not None:
        return next((e for e in fits if host.lower() in e.names), None)
    if owner:
        found = next((e for e in fits if e.owners and e.serves(owner)), None)
        if found is not None:
            return found
    catch_alls = [e for e in fits if not e.owners]
    # Unsaid, GitHub's catch-all, else the only kind there is.
    return next((e for e in catch_alls if e.kind == "github"), next(iter(catch_alls), None))
