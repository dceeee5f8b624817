"""What ``octo lsp`` shows: the configured servers and where each one's program is, and
what one server answers for a file (``octo lsp check FILE``), for people writing a servers
file."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio

from octo.core.errors import OctoError
from octo.lsp.servers.running.pool import LspPool
from octo.lsp.servers.running.pool import open_on
from octo.lsp.servers.table.catalog import ServerEntry
from octo.lsp.servers.table.commands import ServerTable
from octo.lsp.servers.table.commands import locate
from octo.lsp.servers.wire.documents import Source

#: The operations octo asks of a server, by the capability that offers each.
OPERATIONS = {
    "definitionProvider": "definition",
    "referencesProvider": "references",
    "hoverProvider": "hover",
    "documentSymbolProvider": "documentSymbols",
    "workspaceSymbolProvider": "workspaceSymbols",
    "callHierarchyProvider": "callHierarchy",
    "typeHierarchyProvider": "typeHierarchy",
    "diagnosticProvider": "diagnostics",
}

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Installed:
    """One configured server and the command it would start with (None: not found)."""

    entry: ServerEntry
    command: tuple[str, ...] | None


def inventory(table: ServerTable, env: Mapping[str, str]) -> list[Installed]:
    """Every configured server, by language and in the order asked, with its program
    looked up (blocking)."""
    families = table.families()
    ordered = sorted(table.entries, key=lambda entry: families.index(entry.languages[0]))
    return [Installed(entry, locate(entry, env)) for entry in ordered]


def inventory_lines(found: list[Installed]) -> list[str]:
    """``octo lsp``'s listing: one line per server."""
    lines = []
    for item in found:
        entry = item.entry
        where = item.command[0] if item.command else f"not installed ({entry.command[0]})"
        lines.append(f"{entry.name:28} {','.join(entry.languages):12} {where}  [{entry.origin}]")
    return lines


async def check_lines(pool: LspPool, path: Path, root: Path) -> list[str]:
    """Start the first server for ``path`` (under allowed ``root``), and say which server
    it is, the operations it offers and what it answers to one definition request."""
    source = await anyio.to_thread.run_sync(Source.read, path)
    language = await anyio.to_thread.run_sync(pool.language, path)
    slot = await open_on(pool, source, language, root)
    client = slot.live_client()
    offered = [name for capability, name in OPERATIONS.items() if client.supports(capability)]
    lines = [
        f"server: {slot.server_id} ({' '.join(slot.command.argv)})",
        f"language: {language.family} (languageId {language.language_id}), root {slot.root}",
        f"offers: {', '.join(offered) or 'none of octo operations'}",
    ]
    found = next(
        (
            (number, match)
            for number, line in enumerate(source.text.splitlines())
            if (match := _WORD.search(line))
        ),
        None,
    )
    if found is None:
        return [*lines, "definition: not asked (the file has no word)"]
    number, match = found
    params = {
        "textDocument": {"uri": path.as_uri()},
        "position": {"line": number, "character": match.start()},
    }
    try:
        answer = await slot.request("textDocument/definition", params)
    except OctoError as exc:
        return [*lines, f"definition of {match.group()!r} (line {number + 1}): {exc.message}"]
    count = len(answer) if isinstance(answer, list) else int(answer is not None)
    return [
        *lines,
        f"definition of {match.group()!r} (line {number + 1}): {count} location(s)",
    ]


_NAVIGATION = "definition, references, hover, call hierarchy, document symbols"
#: Built-in servers whose answers tests here check against the real server, and which.
TESTED_HERE: dict[str, str] = {
    "ty": _NAVIGATION,
    "basedpyright": _NAVIGATION,
    "typescript-language-server": _NAVIGATION,
    "clangd": _NAVIGATION,
    "intelephense": "definition, references, hover, document symbols",
    "bash-language-server": "definition, references, hover, document symbols",
    "yaml-language-server": "definition (alias to anchor), document symbols",
    "vscode-json-language-server": "document symbols",
    "vscode-css-language-server": "definition (custom property), hover, document symbols",
    "vscode-html-language-server": "hover, document symbols",
    "dockerfile-language-server": "definition (ARG), hover, document symbols",
    "svelte-language-server": "definition, hover, document symbols",
    "fortls": "definition, references, hover, document symbols",
    "vue-language-server": "definition, references, hover, document symbols (version 2)",
    "perl-language-server": "definition, references (its definition only), document symbols; no hover",
}


def languages_markdown(table: ServerTable, outlines: Mapping[str, str]) -> list[str]:
    """The table of which language answers which operation, from the built-in ``table``
    and the extensions octo outlines by syntax tree (``outlines``)."""
    lines = [
        "| language | files | servers (asked in this order) | checked here with the real"
        " server | lspDocumentSymbols without a server |",
        "|---|---|---|---|---|",
    ]
    for family in table.families():
        entries = table.servers_of(family)
        files = dict.fromkeys(
            [f"`{n}`" for e in entries for n in e.filenames]
            + [f"`{x}`" for e in entries for x in e.extensions]
        )
        servers = ", ".join(e.name for e in entries)
        checked = next((TESTED_HERE[e.name] for e in entries if e.name in TESTED_HERE), None)
        outlined = any(x in outlines for e in entries for x in e.extensions)
        lines.append(
            f"| {family} | {' '.join(files)} | {servers} |"
            f" {checked or 'configured, not tested here'} |"
            f" {'syntax-tree outline' if outlined else 'none'} |"
        )
    return lines
