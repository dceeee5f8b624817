"""Places in code as servers send them (Location, LocationLink, call items), and as octo
answers with them: a path relative to its allowed root, a 1-based range, and lines of code
around it.

Files are looked at in one worker-thread hop per answer page (resolving each path, reading
the lines of those inside the allowed roots), never on the event loop.
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from urllib.parse import urlparse

import anyio

from octo.core.paging import Pagination
from octo.core.paths import PathPolicy
from octo.core.redaction import redact
from octo.lsp.client import MalformedReplyError
from octo.lsp.models import CodeLocation
from octo.lsp.models import Position
from octo.lsp.models import Range
from octo.lsp.symbols import split_lines

#: Longest line of code shown, in characters.
_MAX_LINE = 200
#: The most locations taken from one reply: a server may send far more (the references of a
#: name used everywhere); the first ones are used, and the answer is partial.
MAX_PLACES = 10_000


def path_of(uri: str) -> Path:
    """The local path of a server's ``file:`` URI."""
    if not uri.startswith("file:"):
        raise MalformedReplyError(f"Language server returned a non-file URI: {uri[:100]}")
    return Path(unquote(urlparse(uri).path))


def range_of(raw: Any) -> Range:
    """An LSP range (0-based lines) as octo's (1-based lines)."""
    try:
        start, end = raw["start"], raw["end"]
        return Range(
            start=Position(line=int(start["line"]) + 1, character=int(start["character"])),
            end=Position(line=int(end["line"]) + 1, character=int(end["character"])),
        )
    except (KeyError, TypeError, ValueError):
        raise MalformedReplyError(f"Language server returned a bad range: {raw!r:.100}") from None


@dataclass(frozen=True)
class Place:
    """A range in a file, as the server named it."""

    path: Path
    range: Range


def places_of(result: Any) -> list[Place]:
    """Location | Location[] | LocationLink[] | None as places, deduplicated and sorted (the
    first MAX_PLACES of a longer list: see :func:`cut_places`)."""
    if result is None:
        return []
    items = result[:MAX_PLACES] if isinstance(result, list) else [result]
    places: dict[tuple[str, int, int], Place] = {}
    for item in items:
        if not isinstance(item, Mapping):
            raise MalformedReplyError(f"Language server returned a bad location: {item!r:.100}")
        if "targetUri" in item:
            uri, raw = (
                item["targetUri"],
                item.get("targetSelectionRange") or item.get("targetRange"),
            )
        else:
            uri, raw = item.get("uri"), item.get("range")
        if not isinstance(uri, str):
            raise MalformedReplyError(f"Language server returned a bad location: {item!r:.100}")
        place = Place(path_of(uri), range_of(raw))
        places[(str(place.path), place.range.start.line, place.range.start.character)] = place
    return sorted(places.values(), key=lambda p: (str(p.path), p.range.start.line))


def cut_places(result: Any, server: str, what: str) -> list[str]:
    """The hint saying ``result`` held more ``what`` than octo takes, when it did."""
    if not isinstance(result, list) or len(result) <= MAX_PLACES:
        return []
    return [
        f"{server} returned {len(result)} {what}; octo took the first {MAX_PLACES} (the answer "
        "is partial). Ask about a more specific symbol for the rest."
    ]


@dataclass(frozen=True)
class SeenFile:
    """A file a server named, as the caller sees it.

    ``uri``: relative to its allowed root, or absolute when outside every root
    (``external``: not read). ``lines``: its lines when read.
    """

    uri: str
    external: bool
    lines: tuple[str, ...] = ()


@lru_cache(maxsize=256)
def _file_lines(path: Path, mtime_ns: int, size: int) -> tuple[str, ...]:
    return tuple(split_lines(path.read_text(encoding="utf-8", errors="replace")))


def _see(paths: PathPolicy, files: list[Path], read: bool) -> dict[Path, SeenFile]:
    seen: dict[Path, SeenFile] = {}
    for path in files:
        try:
            real = path.resolve()
        except (OSError, RuntimeError):  # a symbolic-link loop: nothing to show
            real = path
        if paths.root_of(real) is None:
            seen[path] = SeenFile(str(path), external=True)
            continue
        lines: tuple[str, ...] = ()
        if read:
            try:
                stat = real.stat()
                lines = _file_lines(real, stat.st_mtime_ns, stat.st_size)
            except OSError:
                pass
        seen[path] = SeenFile(paths.relative(real), external=False, lines=lines)
    return seen


async def see_files(
    paths: PathPolicy, files: Collection[Path], *, read: bool = True
) -> dict[Path, SeenFile]:
    """Each of ``files`` as the caller sees it (read when ``read`` and inside the roots),
    in one worker-thread hop."""
    unique = list(dict.fromkeys(files))
    if not unique:
        return {}
    return await anyio.to_thread.run_sync(_see, paths, unique, read)


def _cut(line: str) -> str:
    line = line.rstrip()
    return redact(line if len(line) <= _MAX_LINE else line[:_MAX_LINE] + "...")


def code_location(seen: SeenFile, where: Range, context: int) -> CodeLocation:
    """``where`` in ``seen`` with ``context`` lines before and after (none when external)."""
    if seen.external:
        return CodeLocation(uri=seen.uri, range=where, external=True)
    lines = seen.lines
    index = where.start.line - 1
    if not 0 <= index < len(lines):
        return CodeLocation(uri=seen.uri, range=where)
    # Empty lists are left out like None: every location would repeat them.
    return CodeLocation(
        uri=seen.uri,
        range=where,
        content=_cut(lines[index]),
        contextBefore=[_cut(line) for line in lines[max(0, index - context) : index]] or None,
        contextAfter=[_cut(line) for line in lines[index + 1 : index + 1 + context]] or None,
    )


def page_hints(pagination: Pagination, total: int, what: str) -> list[str]:
    """How to get the next page of ``total`` ``what`` (references, calls), if any."""
    if pagination.currentPage > pagination.totalPages and total:
        return [f"Page {pagination.currentPage} is past the last page ({pagination.totalPages})."]
    if pagination.hasMore:
        return [
            f"{total} {what} in all: ask for page={pagination.currentPage + 1} for the next ones."
        ]
    return []
