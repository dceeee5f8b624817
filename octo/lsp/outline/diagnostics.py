"""lspDiagnostics: the errors and warnings a server reports for a file, or for the source
files under a folder: pulled where the server offers pull diagnostics (ty), else the ones it
publishes once the file is open (basedpyright, typescript-language-server)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_hints
from octo.core.budget import page_of
from octo.core.errors import OctoError
from octo.core.files.paths import PathPolicy
from octo.core.files.paths import is_generated
from octo.core.files.paths import is_hidden
from octo.lsp.guards.outside_roots import inside_only
from octo.lsp.guards.outside_roots import library_folders
from octo.lsp.guards.outside_roots import only_inside
from octo.lsp.guards.outside_roots import outside_note
from octo.lsp.navigation.locations import range_of
from octo.lsp.navigation.locations import see_files
from octo.lsp.navigation.next_calls import read_call
from octo.lsp.navigation.target import FileTarget
from octo.lsp.navigation.target import ask
from octo.lsp.navigation.target import finished
from octo.lsp.navigation.target import on_servers
from octo.lsp.navigation.target import read_file
from octo.lsp.outline.models import Diagnostic
from octo.lsp.outline.models import DiagnosticsQuery
from octo.lsp.outline.models import DiagnosticsResult
from octo.lsp.outline.models import Severity
from octo.lsp.servers.running.pool import LspPool
from octo.lsp.servers.table.commands import language_of

#: Source files of a folder checked at most (each is opened on its server).
MAX_FILES = 30
#: How long a server that only publishes may take to publish a file's diagnostics.
PUBLISH_WAIT = 10.0
_SEVERITIES: tuple[Severity, ...] = ("error", "warning", "information", "hint")


def _files(paths: PathPolicy, query: DiagnosticsQuery) -> tuple[list[Path], bool]:
    """The file asked about, or the source files under the folder (True when cut)."""
    place = paths.resolve(query.uri)
    if not place.is_dir():
        return [place], False
    root = paths.root_of(place)
    assert root is not None  # resolve() guarantees it
    fenced = {place / rel for rel in paths.fenced_below(place)}
    found: list[Path] = []
    for top, folders, files in os.walk(place):
        directory = Path(top)
        folders[:] = sorted(
            f
            for f in folders
            if not is_generated(f)
            and (query.hidden or not is_hidden(directory / f, root))
            and directory / f not in fenced
        )
        for name in sorted(files):
            if language_of(Path(name)) is not None and directory / name not in fenced:
                found.append(directory / name)
                if len(found) > MAX_FILES:
                    return found[:MAX_FILES], True
    return found, False


def _severity(raw: Any) -> Severity:
    return _SEVERITIES[raw - 1] if isinstance(raw, int) and 1 <= raw <= 4 else "error"


async def _of_file(target: FileTarget) -> list[dict[str, Any]]:
    client = target.slot.live_client()
    if client.supports("diagnosticProvider"):
        sent = await ask(target.slot, lsp.TEXT_DOCUMENT_DIAGNOSTIC, target.document())
        items = sent.get("items") if isinstance(sent, Mapping) else None
        return [item for item in items or [] if isinstance(item, dict)]
    published = await client.published.wait_for(target.path.as_uri(), PUBLISH_WAIT)
    kept = await inside_only(published or [])
    return [item for item in kept if isinstance(item, dict)]


async def diagnostics(ctx: QueryContext, query: DiagnosticsQuery) -> Answer[DiagnosticsResult]:
    """Diagnostics of the file or folder at uri, paged, worst first."""
    pool = ctx.backend(LspPool)
    files, cut = await anyio.to_thread.run_sync(_files, ctx.paths, query)
    worst = _SEVERITIES.index(query.severity) if query.severity else len(_SEVERITIES)
    raw: list[tuple[Path, dict[str, Any]]] = []
    notes: list[str] = []
    partial = False
    skipped: list[str] = []
    servers: set[str] = set()
    # One scope for every file: the answer says once what was left out.
    with only_inside(ctx.paths, library_folders(())) as outside:
        for file in files:
            one = query.model_copy(update={"uri": str(file)})
            try:
                read = await anyio.to_thread.run_sync(read_file, pool, ctx.paths, one)
            except OctoError as exc:
                if len(files) == 1:
                    raise
                skipped.append(f"{ctx.paths.relative(file)}: {exc.message}")
                continue

            async def run(target: FileTarget, _last: bool) -> Answer[DiagnosticsResult]:
                # One file's part; the answer is made once every file is in.
                servers.add(target.slot.server_id)
                raw.extend((target.path, item) for item in await _of_file(target))
                notes.extend(target.hints)
                client = target.slot.client
                part = DiagnosticsResult(
                    server=target.slot.server_id,
                    diagnostics=[],
                    totalDiagnostics=0,
                    filesChecked=1,
                    pagination=page_of([], 1, 1)[1],
                )
                return Answer(part, partial=client is not None and client.progress.busy)

            partial = (await on_servers(ctx, query, read, run)).partial or partial
    notes.extend(outside_note(outside.dropped))
    seen = await see_files(ctx.paths, [path for path, _ in raw], query)
    found: list[Diagnostic] = []
    for path, item in raw:
        severity = _severity(item.get("severity"))
        if _SEVERITIES.index(severity) > worst or "range" not in item:
            continue
        where = range_of(item["range"])
        lines = seen[path].lines
        code = item.get("code")
        found.append(
            Diagnostic(
                path=seen[path].path,
                line=where.start.line,
                character=where.start.character,
                endLine=where.end.line,
                severity=severity,
                code=str(code) if code is not None else None,
                source=item.get("source") if isinstance(item.get("source"), str) else None,
                # The file's values are known to the call: a piece of one at the cut is hidden.
                message=str(item.get("message", ""))[:1000],
                content=lines[where.start.line - 1].strip()[:200]
                if 0 < where.start.line <= len(lines)
                else None,
            )
        )
    found.sort(key=lambda d: (_SEVERITIES.index(d.severity), d.path, d.line))
    chosen, pagination = page_of(found, query.diagnosticsPerPage, query.page)
    result = DiagnosticsResult(
        server=", ".join(sorted(servers)),
        diagnostics=chosen,
        totalDiagnostics=len(found),
        filesChecked=len(files) - len(skipped),
        pagination=pagination,
    )
    hints = page_hints(query.tool, query.params(), "page", pagination, len(found))
    if chosen:
        shown = next(seen[p] for p, _ in raw if seen[p].path == chosen[0].path)
        line = chosen[0].line
        hints.append(f"Read around it: {read_call(shown, line - 5, line + 5)}")
    if cut:
        hints.append(f"Only the first {MAX_FILES} source files were checked; narrow uri.")
    hints.extend(f"Not checked: {why}" for why in skipped[:5])
    if partial:
        hints.append("The server was still indexing: diagnostics may be missing; retry shortly.")
    return finished(result, ctx.config, [*notes, *hints], partial=partial)
