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
from octo.core.config import Config
from octo.core.confined import open_confined
from octo.core.errors import NotFoundError
from octo.core.errors import PathNotAllowedError
from octo.core.paths import PathPolicy
from octo.core.secrets.sensitive import withheld
from octo.lsp.client import RequestTimeoutError
from octo.lsp.client import UnsupportedOperationError
from octo.lsp.documents import Source
from octo.lsp.models import NavigationResult
from octo.lsp.models import ResolvedSymbol
from octo.lsp.models import SymbolQuery
from octo.lsp.pool import LspPool
from octo.lsp.pool import ServerSlot
from octo.lsp.servers import Language
from octo.lsp.servers import ServerCommand
from octo.lsp.symbols import FoundSymbol
from octo.lsp.symbols import resolve_symbol

ResultT = TypeVar("ResultT", bound=NavigationResult)


@dataclass(frozen=True)
class Target:
    """The queried symbol, the server that knows its file, and hints about finding it."""

    path: Path
    slot: ServerSlot
    resolved: ResolvedSymbol
    position: dict[str, int]
    hints: tuple[str, ...]
    #: The settings of the query (its token budget).
    config: Config

    def params(self, **extra: Any) -> dict[str, Any]:
        """Request params naming the symbol's position (``textDocument`` + ``position``)."""
        return {"textDocument": {"uri": self.path.as_uri()}, "position": self.position, **extra}


@dataclass(frozen=True)
class _Read:
    source: Source
    allowed_root: Path
    language: Language
    found: FoundSymbol


def _read(pool: LspPool, paths: PathPolicy, query: SymbolQuery) -> _Read:
    """Everything about the queried file that touches the disk (runs in a worker thread).

    The file needs the query's opt-in when hidden or a credential file, and is read as
    opened without following a link swapped in after the check.
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
    language = pool.language(path)
    source = Source(path, data.decode("utf-8", errors="replace"), (stat.st_mtime_ns, stat.st_size))
    found = resolve_symbol(
        source.text,
        query.symbolName,
        query.lineHint,
        query.orderHint,
        language=language.language_id,
    )
    return _Read(source, allowed_root, language, found)


def _check_opt_ins(path: Path, root: Path, query: SymbolQuery) -> None:
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
#: to fall back to (a call-hierarchy walk that got nothing answers partial only then).
Run = Callable[[Target, bool], Awaitable[Answer[ResultT]]]

#: Why a server's turn ends and the next server is asked.
_FALL_BACK_ON = (RequestTimeoutError, UnsupportedOperationError)


async def navigate(ctx: QueryContext, query: SymbolQuery, run: Run[ResultT]) -> Answer[ResultT]:
    """``run`` on the queried symbol with the first server of its language, and with the
    next one when the first times out or lacks the operation."""
    pool = ctx.backend(LspPool)
    read = await anyio.to_thread.run_sync(_read, pool, ctx.paths, query)
    commands = (await pool.commands(read.language.family))[:2]
    notes: list[str] = []
    for index, command in enumerate(commands):
        last = index == len(commands) - 1
        try:
            target = await _ready(pool, read, query, command, notes, ctx.config)
            return await run(target, last)
        except _FALL_BACK_ON as exc:
            if last:
                raise exc.with_hints(*notes) from None
            notes.append(
                f"{command.server_id} could not answer ({exc.message}); "
                f"{commands[index + 1].server_id} was asked instead."
            )
    raise AssertionError("unreachable: every language has at least one server")


async def _ready(
    pool: LspPool,
    read: _Read,
    query: SymbolQuery,
    command: ServerCommand,
    notes: list[str],
    config: Config,
) -> Target:
    """The target on ``command``'s server: started, the file open, first indexing over."""
    found = read.found
    hints: list[str] = []
    if found.line_offset:
        hints.append(
            f"'{query.symbolName}' was found on line {found.line + 1}, not on line {query.lineHint}."
        )
    slot = await open_on(pool, read.source, read.language, read.allowed_root, command)
    resolved = ResolvedSymbol(
        line=found.line + 1,
        character=found.character,
        lineOffset=found.line_offset,
        text=found.text,
    )
    position = {"line": found.line, "character": found.character}
    return Target(read.source.path, slot, resolved, position, (*notes, *hints), config)


async def open_on(
    pool: LspPool,
    source: Source,
    language: Language,
    allowed_root: Path,
    command: ServerCommand | None = None,
) -> ServerSlot:
    """``command``'s server (default: the language's first) for ``source``: started, the
    file open, its first indexing over."""
    slot = await pool.acquire(source.path, allowed_root, command)
    client = slot.live_client()
    await client.open_document(source, language.language_id)
    if not slot.settled:
        # The first answers of a fresh server can point at the wrong place while it indexes.
        await client.progress.settle(slot.settle_cap)
        slot.settled = True
        pool.touch(slot)
    return slot


async def ask(slot: ServerSlot, method: str, params: dict[str, Any]) -> Any:
    """One request; asked again once indexing ends when the server indexed while answering.

    typescript-language-server first points at the import line, clangd at the header,
    until their indexing is done. On a loaded machine a server's first progress (its
    indexing) may begin only while it answers; later progress is the request's own.
    """
    before = slot.client
    unindexed = before is not None and not before.progress.ever_began
    asked_at = time.monotonic()
    result = await slot.request(method, params)
    client = slot.client
    if client is None:
        return result
    indexed_meanwhile = unindexed and client is before and client.progress.last_change >= asked_at
    if client.progress.busy or indexed_meanwhile:
        await client.progress.settle(slot.settle_cap)
        result = await slot.request(method, params)
    return result


def require(slot: ServerSlot, capability: str, what: str) -> None:
    """Fail clearly when ``slot``'s server does not offer ``capability``."""
    if not slot.live_client().supports(capability):
        raise UnsupportedOperationError(
            f"{slot.server_id} does not support {what}",
            hints=[
                "Choose a server that does with OCTO_LSP_<LANGUAGE>_SERVERS "
                "(ty, basedpyright, pyright, tsgo, typescript-language-server, clangd, gopls).",
                "localSearchCode finds the symbol's uses by text meanwhile.",
            ],
        )


def _with_tokens(result: ResultT, config: Config) -> ResultT:
    """``result`` with its size, and the page that continues it."""
    pagination = getattr(result, "pagination", None)
    next_step = None
    if isinstance(pagination, Pagination) and pagination.hasMore:
        next_step = f"page={pagination.currentPage + 1}"
    return with_tokens(
        result,
        max_tokens=config.max_tokens,
        chars_per_token=config.chars_per_token,
        next_step=next_step,
    )


def answer(
    target: Target, result: ResultT, hints: Iterable[str], *, partial: bool = False
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
