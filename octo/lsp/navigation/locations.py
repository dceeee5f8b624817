"""Places in code as servers send them (Location, LocationLink, call items), and as octo
answers with them: a path relative to its allowed root, a 1-based line and a column, and
lines of code around it.

Files are looked at in one worker-thread hop per answer page (resolving each path, reading
the lines of those inside the allowed roots), never on the event loop.
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from urllib.parse import urlparse

import anyio
from lsprotocol import types as lsp

from octo.core.errors import OctoError
from octo.core.files.confined import open_confined
from octo.core.files.paths import PathPolicy
from octo.core.secrets.redaction import learn_values
from octo.core.secrets.redaction import secret_values
from octo.core.secrets.sensitive import Withheld
from octo.core.secrets.sensitive import withheld
from octo.lsp.models import CodeLocation
from octo.lsp.models import FileQuery
from octo.lsp.models import Position
from octo.lsp.models import Range
from octo.lsp.navigation.symbols import split_lines
from octo.lsp.servers.wire.client import MalformedReplyError

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
    """A range in a file, as the server named it; ``last_line`` is the last 1-based line of
    the whole declaration when the server said (a LocationLink's targetRange)."""

    path: Path
    range: Range
    last_line: int | None = None


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
        extent = None
        if "targetUri" in item:
            uri, raw = (
                item["targetUri"],
                item.get("targetSelectionRange") or item.get("targetRange"),
            )
            extent = item.get("targetRange")
        else:
            uri, raw = item.get("uri"), item.get("range")
        if not isinstance(uri, str):
            raise MalformedReplyError(f"Language server returned a bad location: {item!r:.100}")
        last_line = range_of(extent).end.line if extent else None
        place = Place(path_of(uri), range_of(raw), last_line)
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

    ``absolute``: the real path (the server's own when outside every root); ``path``:
    relative to its allowed root, or absolute when outside every root (``external``: not
    read). ``withheld``: hidden or a credential file the query did not opt in to (not
    read). ``lines``: its lines, redacted, when read.
    """

    absolute: Path
    path: str
    external: bool
    lines: tuple[str, ...] = ()
    withheld: Withheld | None = None


@dataclass(frozen=True)
class _FileLines:
    """A file's lines as read, and the secret values they hold."""

    lines: tuple[str, ...]
    secrets: list[tuple[str, str]]


@lru_cache(maxsize=256)
def _file_lines(root: Path, path: Path, stamp: tuple[int, int, int, int]) -> _FileLines:
    """The lines of ``path``, read as opened without following links, and its secret values:
    the call knows them before any line is cut (to 200 characters), so the dispatcher hides
    a value on a line shown without its name, a key's body line without its BEGIN line, and a
    piece of one a cut leaves."""
    with open_confined(root, path, path.name) as opened:
        text = opened.read_bytes().decode("utf-8", errors="replace")
    return _FileLines(tuple(split_lines(text)), secret_values(text))


def _see(
    paths: PathPolicy, files: list[Path], read: bool, opt_ins: FileQuery | None
) -> dict[Path, SeenFile]:
    seen: dict[Path, SeenFile] = {}
    for path in files:
        try:
            real = path.resolve()
        except (OSError, RuntimeError):  # a symbolic-link loop: nothing to show
            real = path
        root = paths.root_of(real)
        if root is None:
            seen[path] = SeenFile(path, str(path), external=True)
            continue
        shown = paths.relative(real)
        reason = None
        if opt_ins is not None:
            reason = withheld(
                real, root, hidden=opt_ins.hidden, include_sensitive=opt_ins.includeSensitive
            )
        if reason is not None or not read:
            seen[path] = SeenFile(real, shown, external=False, withheld=reason)
            continue
        try:
            stat = real.stat()
            stamp = (stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_size)
            read_lines = _file_lines(root, real, stamp)
            learn_values(read_lines.secrets)
            lines = read_lines.lines
        except (OSError, OctoError):
            lines = ()
        seen[path] = SeenFile(real, shown, external=False, lines=lines)
    return seen


async def see_files(
    paths: PathPolicy,
    files: Collection[Path],
    opt_ins: FileQuery | None,
    *,
    read: bool = True,
) -> dict[Path, SeenFile]:
    """Each of ``files`` as the caller sees it, in one worker-thread hop: read when ``read``,
    inside the roots, and not withheld (a hidden or credential file needs ``opt_ins``'
    ``hidden`` / ``includeSensitive``; None: nothing is read, nothing withheld)."""
    unique = list(dict.fromkeys(files))
    if not unique:
        return {}
    return await anyio.to_thread.run_sync(_see, paths, unique, read, opt_ins)


def withheld_hints(query: FileQuery, files: Iterable[SeenFile]) -> list[str]:
    """How to see the code the answer left out of hidden or credential files, if it did."""
    needed = sorted({file.withheld for file in files if file.withheld is not None})
    if not needed:
        return []
    what = " and ".join("credential" if reason == "sensitive" else "hidden" for reason in needed)
    return [
        f"Locations in {what} files are listed without their code; to see it (secrets stay "
        f"redacted): {query.with_opt_ins(needed)}"
    ]


def _cut(line: str) -> str:
    # The file's values are known to the call (_see): a piece of one at the cut is hidden.
    line = line.rstrip()
    return line if len(line) <= _MAX_LINE else line[:_MAX_LINE] + "..."


def code_location(seen: SeenFile, where: Range, context: int) -> CodeLocation:
    """The start of ``where`` in ``seen`` with ``context`` lines before and after (none when
    external or withheld)."""
    lines = seen.lines
    index = where.start.line - 1
    shown = not seen.external and seen.withheld is None and 0 <= index < len(lines)
    return CodeLocation(
        path=seen.path,
        line=where.start.line,
        character=where.start.character,
        external=True if seen.external else None,
        withheld=seen.withheld,
        content=_cut(lines[index]) if shown else None,
        contextBefore=[_cut(line) for line in lines[max(0, index - context) : index]]
        if shown
        else [],
        contextAfter=[_cut(line) for line in lines[index + 1 : index + 1 + context]]
        if shown
        else [],
    )


def without_repeated_lines(locations: list[CodeLocation]) -> list[CodeLocation]:
    """``locations`` (sorted by file and line) with each line of code shown once: where two
    places of a file are close, the first one's lines after stop before the second's line,
    and the second's lines before start after the first's last shown line."""
    kept: list[CodeLocation] = []
    for place in locations:
        last = kept[-1] if kept else None
        if last is not None and last.path == place.path and last.content is not None:
            after = last.contextAfter[: max(0, place.line - last.line - 1)]
            kept[-1] = last.model_copy(update={"contextAfter": after})
            shown_to = last.line + len(after)
            before = place.contextBefore
            place = place.model_copy(
                update={
                    "contextBefore": before[max(0, len(before) - (place.line - shown_to - 1)) :]
                }
            )
        kept.append(place)
    return kept


def kind_name(kind: Any) -> str:
    """An LSP SymbolKind number as its lower-case name (``class``, ``method``...)."""
    try:
        return lsp.SymbolKind(int(kind)).name.lower()
    except (TypeError, ValueError):
        return "unknown"
