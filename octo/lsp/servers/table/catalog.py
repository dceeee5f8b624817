"""The table of language servers: octo's built-in entries (builtin_servers.toml in this
package) and a user's servers file (``OCTO_LSP_SERVERS_FILE``, default ``lsp-servers.toml``
in octo's user configuration directory), one ``[[servers]]`` table each.

A user entry with a built-in's name replaces it; any other adds a server. An unknown key, a
value of the wrong type or a missing command is a ConfigError naming the file and line.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from importlib import resources
from pathlib import Path
from typing import Any

from octo.core.config import ConfigError
from octo.transports.processes import child_environment

BUILTIN_FILE = "builtin_servers.toml"
SERVERS_FILE_VARIABLE = "OCTO_LSP_SERVERS_FILE"

_STRING_LISTS = ("languages", "extensions", "filenames", "command", "root_markers", "env")
_TABLES = ("initialization_options", "settings")
_KEYS = frozenset({"name", "priority", *_STRING_LISTS, *_TABLES})
_HEADER = re.compile(r"^\s*\[\[\s*servers\s*\]\]")
_VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ServerEntry:
    """One ``[[servers]]`` entry: which files a server answers for and how to start it.

    ``origin`` says where it was configured (``built-in`` or ``FILE:LINE``).
    """

    name: str
    languages: tuple[str, ...]
    extensions: tuple[str, ...]
    command: tuple[str, ...]
    filenames: tuple[str, ...] = ()
    root_markers: tuple[str, ...] = ()
    initialization_options: Mapping[str, Any] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)
    env: tuple[str, ...] = ()
    priority: int = 0
    origin: str = "built-in"


def default_servers_file(env: Mapping[str, str]) -> Path:
    """Where the user's servers file is: ``OCTO_LSP_SERVERS_FILE``, else the user config
    directory's ``octo/lsp-servers.toml`` (``XDG_CONFIG_HOME`` and ``HOME`` read from ``env``)."""
    named = env.get(SERVERS_FILE_VARIABLE)
    if named:
        return Path(named).expanduser()
    config_home = env.get("XDG_CONFIG_HOME")
    if config_home:
        return Path(config_home) / "octo" / "lsp-servers.toml"
    import platformdirs

    return Path(platformdirs.user_config_dir("octo", appauthor=False)) / "lsp-servers.toml"


def _entry_lines(text: str) -> list[tuple[int, list[str]]]:
    """Per ``[[servers]]`` header: its line number (1-based) and the lines up to the next."""
    found: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if _HEADER.match(line):
            found.append((number, []))
        elif found:
            found[-1][1].append(line)
    return found


def _key_line(start: int, lines: list[str], key: str) -> int:
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    return next((start + 1 + i for i, line in enumerate(lines) if pattern.match(line)), start)


def _strings(value: Any, where: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def _entry(raw: Any, where: str, lines: tuple[int, list[str]] | None, source: str) -> ServerEntry:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: each [[servers]] entry must be a table")
    for key in raw:
        if key not in _KEYS:
            line = _key_line(*lines, key) if lines else None
            at = f"{source}:{line}" if line else where
            raise ConfigError(
                f"{at}: unknown key {key!r} in [[servers]] (known: {', '.join(sorted(_KEYS))})"
            )
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}: the entry has no name")
    command = _strings(raw.get("command", []), where, "command")
    if not command or not command[0]:
        raise ConfigError(f"{where}: server {name!r} has no command (a list: program, args)")
    lists = {key: _strings(raw.get(key, []), where, key) for key in _STRING_LISTS}
    if not lists["languages"]:
        raise ConfigError(f"{where}: server {name!r} names no language")
    for variable in lists["env"]:
        if not _VARIABLE_NAME.match(variable):
            raise ConfigError(f"{where}: env holds variable names, got {variable!r}")
        if not child_environment({variable: ""}):
            raise ConfigError(
                f"{where}: env names {variable}, which octo never passes to a child process"
                " (its name is a credential's)"
            )
    tables = {key: raw.get(key, {}) for key in _TABLES}
    for key, value in tables.items():
        if not isinstance(value, Mapping):
            raise ConfigError(f"{where}: {key} must be a table")
    priority = raw.get("priority", 0)
    if not isinstance(priority, int) or isinstance(priority, bool):
        raise ConfigError(f"{where}: priority must be a whole number")
    return ServerEntry(
        name=name,
        languages=tuple(language.lower() for language in lists["languages"]),
        extensions=tuple(extension.lower() for extension in lists["extensions"]),
        command=command,
        filenames=lists["filenames"],
        root_markers=lists["root_markers"],
        initialization_options=dict(tables["initialization_options"]),
        settings=dict(tables["settings"]),
        env=lists["env"],
        priority=priority,
        origin=where,
    )


def parse_servers(text: str, source: str) -> list[ServerEntry]:
    """The entries of one servers file's ``text`` (``source``: its name in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    unknown = [key for key in data if key != "servers"]
    if unknown:
        raise ConfigError(f"{source}: unknown table {unknown[0]!r} (only [[servers]] entries)")
    raw = data.get("servers", [])
    if not isinstance(raw, list):
        raise ConfigError(f"{source}: servers must be [[servers]] entries")
    spans = _entry_lines(text)
    entries = []
    for index, item in enumerate(raw):
        lines = spans[index] if index < len(spans) else None
        where = f"{source}:{lines[0]}" if lines else f"{source} entry {index + 1}"
        entry = _entry(item, where, lines, source)
        if source == BUILTIN_FILE:
            entry = ServerEntry(**{**entry.__dict__, "origin": "built-in"})
        entries.append(entry)
    return entries


def builtin_servers() -> list[ServerEntry]:
    """octo's built-in entries."""
    text = resources.files(__package__).joinpath(BUILTIN_FILE).read_text(encoding="utf-8")
    return parse_servers(text, BUILTIN_FILE)


def load_servers(env: Mapping[str, str]) -> tuple[ServerEntry, ...]:
    """The built-in entries with the user's servers file over them (blocking: reads it).

    A file named by ``OCTO_LSP_SERVERS_FILE`` must exist; the default one may not.
    """
    entries = {entry.name: entry for entry in builtin_servers()}
    path = default_servers_file(env)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if env.get(SERVERS_FILE_VARIABLE):
            raise ConfigError(f"{SERVERS_FILE_VARIABLE}: {path} does not exist") from None
        text = ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{SERVERS_FILE_VARIABLE}: cannot read {path}: {exc}") from None
    for entry in parse_servers(text, str(path)):
        entries.pop(entry.name, None)  # a replaced built-in takes the user's place in order
        entries[entry.name] = entry
    return tuple(entries.values())
