"""The symbol a query points at: its file read, its position found, and the server that
knows the file, started (or warm) with the file open.

A query is answered by the first server of its language; when that one does not answer in
time or lacks the operation, the next available server answers instead (once), and the
answer says so.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import TypeVar

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import Pagination
from octo.core.budget import with_tokens
from octo.core.concurrency import map_ordered
from octo.core.config import Config
from octo.core.errors import NotFoundError
from octo.core.errors import PathNotAllowedError
from octo.core.files.confined import open_confined
from octo.core.files.paths import PathPolicy
from octo.core.secrets.redaction import learn
from octo.core.secrets.sensitive import withheld
from octo.lsp.guards.outside_roots import inside_only
from octo.lsp.guards.outside_roots import library_folders
from octo.lsp.guards.outside_roots import only_inside
from octo.lsp.guards.outside_roots import outside_note
from octo.lsp.guards.workspace_values import learn_workspace
from octo.lsp.models import FileQuery
from octo.lsp.models import ResolvedSymbol
from octo.lsp.models import ServerAnswer
from octo.lsp.models import SymbolQuery
from octo.lsp.navigation.symbols import FoundSymbol
from octo.lsp.navigation.symbols import resolve_symbol
from octo.lsp.servers.running.pool import LspPool
from octo.lsp.servers.running.pool import ServerSlot
from octo.lsp.servers.running.pool import open_on
from octo.lsp.servers.table.commands import Language
from octo.lsp.servers.table.commands import workspace_root
from octo.lsp.servers.wire.client import RequestTimeoutError
from octo.lsp.servers.wire.client import UnsupportedOperationError
from octo.lsp.servers.wire.documents import Source
from octo.transports.ripgrep import RgQueue

ResultT = TypeVar("ResultT", bound=ServerAnswer)
TargetT = TypeVar("TargetT", bound="FileTarget")


@dataclass(frozen=True)
class FileTarget:
    """The queried file open on the server that knows it, and hints about the query."""

    path: Path
    slot: ServerSlot
    hints: tuple[str, ...]
    #: The settings of the query (its token budget).
    config: Config

    def document(self) -> dict[str, Any]:
        """Request params naming the file (``textDocument``)."""
        return {"textDocument": {"uri": self.path.as_uri()}}


@dataclass(frozen=True)
class Target(FileTarget):
    """The queried symbol, the server that knows its file, and hints about finding it."""

    resolved: ResolvedSymbol
    position: dict[str, int]

    def params(self, **extra: Any) -> dict[str, Any]:
        """Request params naming the symbol's position (``textDocument`` + ``position``)."""
        return {**self.document(), "position": self.position, **extra}


@dataclass(frozen=True)
class FileRead:
    """The queried file as read: its text, its allowed root and its language."""

    source: Source
    allowed_root: Path
    #: None only when read with ``any_language`` and no server handles the file.
    language: Language | None
    #: The workspace root its server opens (None with no language), found in the same
    #: worker-thread hop as the read: a warm query makes no other hop before its request.
    workspace: Path | None = None


def read_file(
    pool: LspPool, paths: PathPolicy, query: FileQuery, *, any_language: bool = False
) -> FileRead:
    """Everything about the queried file that touches the disk (runs in a worker thread).

    The file needs the query's opt-in when hidden or a credential file, and is read as
    opened without following a link swapped in after the check. Its language is asked of
    the pool last: a file no server handles is still read (a tree-sitter outline needs it).
    """
    path = paths.resolve(query.uri)
    allowed_root = paths.root_of(path)
    assert allowed_root is not None  # resolve() guarantees it
    try:
        opened = open_confined(allowed_root, path, query.uri)
    except NotFoundError:
        opened = None
    with opened or contextlib.nullcontext():
        if opened is None or not opened.is_file:
            raise NotFoundError(
                f"'{query.uri}' is not a file", hints=["Find the file first with localFindFiles."]
            )
        _check_opt_ins(path, allowed_root, query)
        data, stat = opened.read_bytes(), opened.stat
    source = Source(path, data.decode("utf-8", errors="replace"), (stat.st_mtime_ns, stat.st_size))
    # What a server says about the file (hover, diagnostics) may quote its secrets bare.
    learn(source.text)
    language = pool.table.language_of(path) if any_language else pool.language(path)
    workspace = (
        workspace_root(path, allowed_root, language.family, pool.table) if language else None
    )
    return FileRead(source, allowed_root, language, workspace)


def _check_opt_ins(path: Path, root: Path, query: FileQuery) -> None:
    """A hidden or credential file is answered on only with the query's opt-in."""
    needed = withheld(
        path, root, hidden=query.hidden, include_sensitive=query.includeSensitive, raw=query.uri
    )
    if needed is not None:
        what = "a credential file" if needed == "sensitive" else "hidden (a dot-file or in a"
        what += "" if needed == "sensitive" else " dot-directory)"
        raise PathNotAllowedError(
            f"'{query.uri}' is {what}",
            hints=[f"To use it anyway (secrets stay redacted): {query.with_opt_ins([needed])}"],
        )


#: ``run(target, last)``: a tool's work on a ready target; ``last`` when no server is left
#: to fall back to (a call graph's expansion that got nothing answers partial only then).
Run = Callable[[TargetT, bool], Awaitable[Answer[ResultT]]]

#: Why a server's turn ends and the next server is asked.
_FALL_BACK_ON = (RequestTimeoutError, UnsupportedOperationError)


async def navigate(
    ctx: QueryContext, query: SymbolQuery, run: Run[Target, ResultT]
) -> Answer[ResultT]:
    """``run`` on the queried symbol with the first server of its language, and with the
    next one when the first times out or lacks the operation."""
    pool = ctx.backend(LspPool)
    read, found = await anyio.to_thread.run_sync(_read_and_resolve, pool, ctx.paths, query)

    def at_symbol(on: FileTarget) -> Target:
        hints = on.hints
        if found.line_offset:
            hints = (
                *hints,
                f"'{query.symbolName}' was found on line {found.line + 1}, not on line"
                f" {query.lineHint}.",
            )
        resolved = ResolvedSymbol(
            line=found.line + 1,
            character=found.character,
            lineOffset=found.line_offset,
            text=found.text,
        )
        position = {"line": found.line, "character": found.character}
        return Target(on.path, on.slot, hints, on.config, resolved, position)

    return await on_servers(ctx, query, read, lambda on, last: run(at_symbol(on), last))


def _read_and_resolve(
    pool: LspPool, paths: PathPolicy, query: SymbolQuery
) -> tuple[FileRead, FoundSymbol]:
    """The queried file read and the symbol found in it, in one worker-thread hop."""
    read = read_file(pool, paths, query)
    return read, resolve_symbol(
        read.source.text,
        query.symbolName,
        query.lineHint,
        query.orderHint,
        language=read.language.language_id if read.language else "",
    )


async def on_servers(
    ctx: QueryContext, query: FileQuery, read: FileRead, run: Run[FileTarget, ResultT]
) -> Answer[ResultT]:
    """``run`` on the read file with the first server of its language, and with the next
    one when the first times out or lacks the operation (the dispatcher cuts the answer to
    the token budget as a whole).

    What a server says may quote another file's secret values without their names: the
    workspace's values are made known to the call while the server answers (a ``stat`` of
    each file that held one, rg's listing now and then), before the dispatcher redacts it.
    """
    workspace = read.workspace
    if workspace is None:
        return await _answered(ctx, read, run)
    answers: list[Answer[ResultT]] = []

    async def answer() -> None:
        answers.append(await _answered(ctx, read, run))

    async def learned() -> None:
        place = ctx.backend(RgQueue).place(ctx.arrived)
        await learn_workspace(read.allowed_root, workspace, place)

    await map_ordered(lambda step: step(), [answer, learned])
    return answers[0]


async def _answered(
    ctx: QueryContext, read: FileRead, run: Run[FileTarget, ResultT]
) -> Answer[ResultT]:
    pool = ctx.backend(LspPool)
    language = read.language or pool.language(read.source.path)
    commands = (await pool.commands(language.family))[:2]
    libraries = library_folders([arg for command in commands for arg in command.argv[:2]])
    notes: list[str] = []
    for index, command in enumerate(commands):
        last = index == len(commands) - 1
        try:
            slot = await open_on(
                pool, read.source, language, read.allowed_root, command, read.workspace
            )
            target = FileTarget(read.source.path, slot, tuple(notes), ctx.config)
            # Nothing a server says of a file outside the roots reaches the answer.
            with only_inside(ctx.paths, libraries) as outside:
                before = outside.dropped
                answered = await run(target, last)
                answered.hint(*outside_note(outside.dropped - before))
            return answered
        except _FALL_BACK_ON as exc:
            if last:
                raise exc.with_hints(*notes) from None
            notes.append(
                f"{command.server_id} could not answer ({exc.message}); "
                f"{commands[index + 1].server_id} was asked instead."
            )
    raise AssertionError("unreachable: every language has at least one server")


async def ask(slot: ServerSlot, method: str, params: dict[str, Any]) -> Any:
    """One request (:func:`_asked`), its reply without what names a file outside the roots
    (:func:`~octo.lsp.guards.outside_roots.inside_only`)."""
    return await inside_only(await _asked(slot, method, params))


async def _asked(slot: ServerSlot, method: str, params: dict[str, Any]) -> Any:
    """One request; asked again once indexing ends when the server indexed while answering,
    or while it did not answer in time.

    typescript-language-server first points at the import line, clangd at the header,
    until their indexing is done. On a loaded machine a server's first progress (its
    indexing) may begin only while it answers; later progress is the request's own. The
    first request to typescript-language-server waits for tsserver's project load, which
    may begin after the pool's settle and outlast the request timeout: the answer comes
    once the load is over.
    """
    before = slot.client
    unindexed = before is not None and not before.progress.ever_began
    asked_at = time.monotonic()
    try:
        result = await slot.request(method, params)
    except RequestTimeoutError:
        client = slot.client
        if client is None or client is not before or not client.progress.busy:
            raise
        await client.progress.settle(slot.settle_cap)
        return await slot.request(method, params)
    client = slot.client
    if client is None:
        return result
    indexed_meanwhile = unindexed and client is before and client.progress.last_change >= asked_at
    if client.progress.busy or indexed_meanwhile:
        await client.progress.settle(slot.settle_cap)
        result = await slot.request(method, params)
    return result


def require(slot: ServerSlot, capability: str, what: str, *named: str) -> None:
    """Fail clearly when ``slot``'s server does not offer ``capability`` (``named``: hints
    naming the servers that do)."""
    if not slot.live_client().supports(capability):
        raise UnsupportedOperationError(
            f"{slot.server_id} does not support {what}",
            hints=[
                *named,
                slot.pool.offering(slot, capability),
                "localSearchCode finds the symbol's uses by text meanwhile.",
            ],
        )


def finished(
    result: ResultT, config: Config, hints: Iterable[str], *, partial: bool = False
) -> Answer[ResultT]:
    """``result`` sized to the budget, as an answer with ``hints``."""
    if partial:
        result.partial = True
    done = Answer(_with_tokens(result, config), partial=partial)
    done.hint(*hints)
    return done


def _with_tokens(result: ResultT, config: Config) -> ResultT:
    """``result`` with its size, and the page that continues it."""
    pagination = getattr(result, "pagination", None)
    next_step = None
    if isinstance(pagination, Pagination) and pagination.hasMore:
        next_step = f"page={pagination.currentPage + 1}"
    return with_tokens(
        result,
        config,
        next_step=next_step,
    )


def answer(
    target: FileTarget, result: ResultT, hints: Iterable[str], *, partial: bool = False
) -> Answer[ResultT]:
    """The answer to a query on ``target``: the target's hints, then ``hints``.

    It is partial when ``partial`` (a limit or failure cut it short) or when the server
    was still indexing as it answered (said in a last hint); ``result.partial`` says so too.
    """
    client = target.slot.client
    indexing = client is not None and client.progress.busy
    if partial or indexing:
        result.partial = True
    result = _with_tokens(result, target.config)
    done = Answer(result, partial=partial or indexing)
    done.hint(*target.hints, *hints)
    if indexing:
        done.hint(
            f"{target.slot.server_id} is still indexing: the answer may be partial; retry shortly."
        )
    return done
