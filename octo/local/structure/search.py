"""localSearchStructure: the files of the query's places (listed like the local tools list
them: .gitignore, hidden and credential files honoured), matched by the ast-grep CLI as a
child killed at the deadline, each match's text then read by octo the confined way.

No answer depends on what redaction hides: a file that holds a secret (told as the search
tools tell it, :func:`~octo.local.redacted_search.secret_files`) is parsed in-process over
its redacted text, so a rule's ``regex`` probing a token one character at a time matches
the marker alone, whatever the guess; the CLI parses only files whose text is what octo
shows."""

from __future__ import annotations

import heapq
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from functools import partial
from pathlib import Path

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_hints
from octo.core.budget import page_of
from octo.core.budget import with_tokens
from octo.core.errors import OctoError
from octo.core.errors import PathNotAllowedError
from octo.core.errors import QueryTimeoutError
from octo.core.files.confined import Opened
from octo.core.files.confined import open_below
from octo.core.files.confined import open_confined
from octo.core.files.paths import PathPolicy
from octo.core.formats import compact_json
from octo.core.secrets.sensitive import is_sensitive
from octo.core.secrets.sensitive import withheld
from octo.local.listing.entries import WalkOptions
from octo.local.listing.file_walk import walk
from octo.local.redacted_search import redacted_bytes
from octo.local.redacted_search import secret_files
from octo.local.structure.matching import MAX_TEXT
from octo.local.structure.matching import FileText
from octo.local.structure.matching import Matcher
from octo.local.structure.models import LANGUAGE_GLOBS
from octo.local.structure.models import SearchStructureQuery
from octo.local.structure.models import SearchStructureResult
from octo.local.structure.models import StructureMatch
from octo.local.structure.sg_child import CLI_SUFFIXES
from octo.local.structure.sg_child import Found
from octo.local.structure.sg_child import cli_matches
from octo.local.structure.sg_child import sg_binary
from octo.transports.ripgrep import RgQueue

TOOL = "localSearchStructure"
#: Matches collected at most; past them the answer is partial.
MAX_MATCHES = 2000
#: Threads the ast-grep CLI parses with.
WORKERS = min(4, os.cpu_count() or 1)
#: Larger files are skipped (generated bundles, data).
MAX_FILE_BYTES = 2_000_000


@dataclass(frozen=True)
class _Place:
    """A directory and the files to read below it (relative), or a single file."""

    root: Path
    directory: Path
    files: list[str]


def _opened_place(paths: PathPolicy, raw: str, query: SearchStructureQuery) -> tuple[Path, Opened]:
    real = paths.resolve(raw)
    root = paths.root_of(real)
    assert root is not None  # resolve() guarantees it
    is_dir = real.is_dir()
    reason = withheld(
        real, root, hidden=query.hidden, include_sensitive=query.includeSensitive or is_dir, raw=raw
    )
    if reason is not None:
        flag = "includeSensitive" if reason == "sensitive" else "hidden"
        again = {**query.params(), flag: True}
        raise PathNotAllowedError(
            f"'{raw}' is {'a credential file' if reason == 'sensitive' else 'hidden'}",
            hints=[f"To search it anyway (secrets stay redacted): {TOOL} {compact_json(again)}"],
        )
    return root, open_confined(root, real, raw, directory=is_dir)


async def _place(ctx: QueryContext, raw: str, query: SearchStructureQuery) -> tuple[_Place, int]:
    """The files of one place, and how many credential files were left out."""
    root, opened = await anyio.to_thread.run_sync(_opened_place, ctx.paths, raw, query)
    with opened:
        if not opened.is_dir:
            return _Place(root, opened.path.parent, [opened.path.name]), 0
        options = WalkOptions.files_only(
            hidden=query.hidden,
            no_ignore=query.noIgnore,
            paths=ctx.paths,
            include=query.include or LANGUAGE_GLOBS[query.language],
            exclude=query.exclude or (),
        )
        listed = await walk(
            opened,
            options,
            ctx.config.rg_timeout_ms,
            place=ctx.backend(RgQueue).place(ctx.arrived),
        )
    files = sorted(listed.files)
    kept = files if query.includeSensitive else [f for f in files if not is_sensitive(f)]
    return _Place(root, opened.path, kept), len(files) - len(kept)


def _kept_files(at: Opened, files: Sequence[str]) -> list[str]:
    """The regular files of ``files`` (below ``at``) small enough to parse (blocking)."""
    kept = []
    for rel in files:
        try:
            st = os.stat(rel, dir_fd=at.fd, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_FILE_BYTES:
            kept.append(rel)
    return kept


def _shown_name(place: _Place, rel: str, base: Path) -> str:
    # A name that is not UTF-8 is shown with U+FFFD (no JSON answer holds its bytes).
    shown = os.path.relpath(place.directory / rel, base)
    return shown.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _in_process(
    place: _Place, files: Sequence[str], base: Path, matcher: Matcher, cap: int
) -> list[tuple[int, StructureMatch]]:
    """Match ``files`` of ``place`` in this thread over the text octo shows (redacted), read
    below a directory this thread opens (and closes) itself, so an abandoned thread never
    reads through a descriptor its caller closed. Each match comes with its file's index."""
    found: list[tuple[int, StructureMatch]] = []
    order = {rel: index for index, rel in enumerate(place.files)}
    with open_confined(place.root, place.directory, str(place.directory), directory=True) as at:
        for rel in files:
            try:
                with open_below(at, rel) as opened:
                    if not opened.is_file or opened.stat.st_size > MAX_FILE_BYTES:
                        continue
                    hidden = redacted_bytes(opened)
                    data = hidden if hidden is not None else bytes(opened.read_bytes())
            except (OctoError, OSError):
                continue
            text = data.decode("utf-8", errors="replace")
            shown = _shown_name(place, rel, base)
            found += [(order[rel], match) for match in matcher.matches(shown, text)]
            if len(found) > cap:
                break
    return found


Key = tuple[int, int, int, int]


def _confirmed(
    place: _Place, reported: Sequence[tuple[Key, Found]], base: Path
) -> list[tuple[Key, StructureMatch]]:
    """The CLI's matches, their text read by octo from the files it opens the confined way
    (a match the file no longer holds is left out). Blocking."""
    by_file: dict[int, list[tuple[Key, Found]]] = {}
    for key, found in reported:
        by_file.setdefault(key[1], []).append((key, found))
    confirmed: list[tuple[Key, StructureMatch]] = []
    with open_confined(place.root, place.directory, str(place.directory), directory=True) as at:
        for index, founds in sorted(by_file.items()):
            rel = place.files[index]
            try:
                with open_below(at, rel) as opened:
                    if not opened.is_file:
                        continue
                    data = bytes(opened.read_bytes(MAX_FILE_BYTES))
            except (OctoError, OSError):
                continue
            text = FileText(_shown_name(place, rel, base), data)
            for key, found in founds:
                match = text.match(found)
                if match is not None:
                    confirmed.append((key, match))
    return confirmed


def _in_file_order(tally: _Tally) -> list[tuple[Key, Found | StructureMatch]]:
    """Every match kept, the CLI's and those found in-process, in file order."""
    every: list[tuple[Key, Found | StructureMatch]] = list(tally.local)
    every += [((-k[0], -k[1], -k[2], -k[3]), found) for k, found in tally.reported]
    every.sort(key=lambda keyed: keyed[0])
    return every


async def _shown(
    places: Sequence[_Place], base: Path, page: Sequence[tuple[Key, Found | StructureMatch]]
) -> list[StructureMatch]:
    """The page's matches: the CLI's read from their files the confined way (one worker
    thread per place), with those found in-process."""
    by_place: dict[int, list[tuple[Key, Found]]] = {}
    for key, found in page:
        if isinstance(found, Found):
            by_place.setdefault(key[0], []).append((key, found))
    shown = [(key, match) for key, match in page if isinstance(match, StructureMatch)]
    for number, reported in by_place.items():
        shown += await anyio.to_thread.run_sync(_confirmed, places[number], reported, base)
    shown.sort(key=lambda keyed: keyed[0])
    return [match for _, match in shown]


@dataclass
class _Tally:
    """What a search found so far: the first matches in file order, and how many in all."""

    cap: int
    total: int = 0
    #: The CLI's matches, the ``cap`` first (keys negated: a heap keeps its smallest on top).
    reported: list[tuple[Key, Found]] = field(default_factory=list)
    local: list[tuple[Key, StructureMatch]] = field(default_factory=list)

    def add(self, key: Key, found: Found) -> None:
        self.total += 1
        # A heap of the ``cap`` smallest keys (negated: heapq keeps the smallest on top).
        entry = ((-key[0], -key[1], -key[2], -key[3]), found)
        if len(self.reported) < self.cap:
            heapq.heappush(self.reported, entry)
        else:
            heapq.heappushpop(self.reported, entry)


async def _search_place(
    ctx: QueryContext, number: int, place: _Place, base: Path, matcher: Matcher, tally: _Tally
) -> None:
    """Match one place: files that hold a secret (or that the CLI would not read as the
    language) in-process over their redacted text, the rest by the ast-grep CLI."""
    with await anyio.to_thread.run_sync(
        partial(open_confined, place.root, place.directory, str(place.directory), directory=True)
    ) as at:
        files = await anyio.to_thread.run_sync(_kept_files, at, place.files)
        names = [os.fsencode(rel) for rel in files]
        secret = await secret_files(
            at,
            names,
            place=ctx.backend(RgQueue).place(ctx.arrived),
            cwd=at.child_path(),
            pass_fds=(at.fd,),
            timeout_ms=ctx.config.rg_timeout_ms,
        )
        suffixes = CLI_SUFFIXES[matcher.language] if sg_binary() is not None else frozenset()
        by_cli = [
            rel
            for rel, name in zip(files, names, strict=True)
            if name not in secret and os.path.splitext(rel)[1] in suffixes and _utf8(rel)
        ]
        local = sorted(set(files) - set(by_cli))
        order = {rel: index for index, rel in enumerate(place.files)}
        if local:
            matched = await anyio.to_thread.run_sync(
                _in_process, place, local, base, matcher, tally.cap, abandon_on_cancel=True
            )
            tally.total += len(matched)
            for serial, (index, match) in enumerate(matched):
                tally.local.append(((number, index, match.startLine, serial), match))
        serial = 0
        async for found in cli_matches(
            matcher.rule_document(),
            by_cli,
            cwd=at.child_path(),
            pass_fds=(at.fd,),
            threads=WORKERS,
            head=MAX_TEXT,
        ):
            at_index = order.get(found.file)
            if at_index is not None:
                serial += 1
                tally.add((number, at_index, found.start, serial), found)


def _utf8(name: str) -> bool:
    """Whether ``name`` reads back the same from the CLI's JSON (no undecodable bytes)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


async def search_structure(
    ctx: QueryContext, query: SearchStructureQuery
) -> Answer[SearchStructureResult]:
    """Structural matches of the pattern or rule in the query's places."""
    matcher = Matcher.of(query.language, query.pattern, query.rule)
    await anyio.to_thread.run_sync(matcher.check)
    raws = [query.path] if isinstance(query.path, str) else query.path
    places: list[_Place] = []
    left_out = 0
    for raw in raws:
        place, skipped = await _place(ctx, raw, query)
        places.append(place)
        left_out += skipped
    base = Path(os.path.commonpath([str(p.directory) for p in places]))
    tally = _Tally(MAX_MATCHES)
    done_places = 0
    # The CLI is killed at the deadline, and no thread is left parsing more than a few files.
    stopped = False
    with anyio.move_on_after(max(1.0, ctx.config.query_timeout * 0.75)) as scope:
        try:
            for number, place in enumerate(places):
                await _search_place(ctx, number, place, base, matcher, tally)
                done_places += 1
        except QueryTimeoutError:
            # rg (the walk of secret-holding files) reached its own limit first.
            stopped = True
    stopped = stopped or scope.cancelled_caught
    # Only the page's matches are read and built; the rest are counted.
    found = _in_file_order(tally)[:MAX_MATCHES]
    searched = sum(len(place.files) for place in places[:done_places])
    cut = tally.total > MAX_MATCHES
    partial = cut or stopped
    page, pagination = page_of(found, query.matchesPerPage, query.page)
    chosen = await _shown(places, base, page)
    result = SearchStructureResult(
        matches=chosen,
        totalMatches=len(found),
        filesSearched=searched,
        root=str(base),
        pagination=pagination,
        partial=True if partial else None,
    )
    next_step = f"page={query.page + 1}" if pagination.hasMore else None
    result = with_tokens(
        result,
        ctx.config,
        next_step=next_step,
    )
    done = Answer(result, partial=partial)
    done.hint(*page_hints(TOOL, query.params(), "page", pagination, len(found)))
    for match in chosen[:1]:
        around = {
            "path": str(base / match.path),
            "startLine": max(1, match.startLine - 5),
            "endLine": match.endLine + 5,
        }
        done.hint(f"Read around it: localGetFileContent {compact_json(around)}")
    if stopped:
        done.hint(f"The deadline stopped the search after {searched} files; narrow path.")
    if cut:
        done.hint(f"More than {MAX_MATCHES} matches: the first ones are kept; narrow the pattern.")
    if left_out:
        done.hint(f"{left_out} credential file(s) left out; includeSensitive=true searches them.")
    if not found and searched == 0:
        done.hint(f"No {query.language} files under the path; check language, include, exclude.")
    return done
