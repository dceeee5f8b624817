"""localSearchStructure: the files of the query's places (listed like the local tools list
them: .gitignore, hidden and credential files honoured), read through octo's confined reader
and matched by ast-grep in worker threads, batch by batch, until the deadline."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_hints
from octo.core.budget import page_of
from octo.core.budget import with_tokens
from octo.core.errors import OctoError
from octo.core.errors import PathNotAllowedError
from octo.core.files.confined import Opened
from octo.core.files.confined import open_below
from octo.core.files.confined import open_confined
from octo.core.files.paths import PathPolicy
from octo.core.formats import compact_json
from octo.core.secrets.sensitive import is_sensitive
from octo.core.secrets.sensitive import withheld
from octo.local.listing.entries import WalkOptions
from octo.local.listing.file_walk import walk
from octo.local.structure.matching import Matcher
from octo.local.structure.matching import match_texts
from octo.local.structure.models import LANGUAGE_GLOBS
from octo.local.structure.models import SearchStructureQuery
from octo.local.structure.models import SearchStructureResult
from octo.local.structure.models import StructureMatch

TOOL = "localSearchStructure"
#: Matches collected at most; past them the answer is partial.
MAX_MATCHES = 2000
#: Files read and matched per worker-thread hop.
BATCH = 64
#: Batches parsed at once (ast-grep releases the GIL while it parses).
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
        globs = query.include or list(LANGUAGE_GLOBS[query.language])
        filters = [arg for glob in globs for arg in ("--glob", glob)]
        filters += [arg for glob in query.exclude or () for arg in ("--glob", f"!{glob}")]
        options = WalkOptions(
            max_depth=10_000,
            hidden=query.hidden,
            no_ignore=query.noIgnore,
            need_dirs=False,
            need_symlinks=False,
            file_filters=filters,
        )
        listed = await walk(opened, options, ctx.config.rg_timeout_ms)
    files = sorted(listed.files)
    kept = files if query.includeSensitive else [f for f in files if not is_sensitive(f)]
    return _Place(root, opened.path, kept), len(files) - len(kept)


def _read_batch(
    place: _Place, files: Sequence[str], base: Path, matcher: Matcher, cap: int
) -> list[StructureMatch]:
    """Read ``files`` of ``place`` below a directory this thread opens (and closes) itself,
    so an abandoned thread never reads through a descriptor its caller closed."""
    texts: list[tuple[str, str]] = []
    with open_confined(place.root, place.directory, str(place.directory), directory=True) as at:
        for rel in files:
            try:
                with open_below(at, rel) as opened:
                    if not opened.is_file or opened.stat.st_size > MAX_FILE_BYTES:
                        continue
                    data = opened.read_bytes(MAX_FILE_BYTES)
            except (OctoError, OSError):
                continue
            # A name that is not UTF-8 is shown with U+FFFD (no JSON answer holds its bytes).
            shown = os.path.relpath(place.directory / rel, base)
            shown = shown.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            texts.append((shown, data.decode("utf-8", errors="replace")))
    return match_texts(matcher, texts, cap)


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
    batches = [
        (place, place.files[start : start + BATCH])
        for place in places
        for start in range(0, len(place.files), BATCH)
    ]
    parts: list[list[StructureMatch] | None] = [None] * len(batches)
    workers = anyio.CapacityLimiter(WORKERS)
    total = 0

    async def one(index: int, place: _Place, files: list[str]) -> None:
        nonlocal total
        async with workers:
            if total >= MAX_MATCHES:
                return
            found = await anyio.to_thread.run_sync(
                _read_batch, place, files, base, matcher, MAX_MATCHES, abandon_on_cancel=True
            )
        parts[index] = found
        total += len(found)

    # Parsing is abandoned at the deadline (a worker finishes its batch unheard).
    with anyio.move_on_after(max(1.0, ctx.config.query_timeout * 0.75)) as scope:
        async with anyio.create_task_group() as group:
            for index, (place, files) in enumerate(batches):
                group.start_soon(one, index, place, files)
    # In file order, whichever worker finished first.
    found = [match for part in parts if part is not None for match in part]
    searched = sum(
        len(files) for part, (_, files) in zip(parts, batches, strict=True) if part is not None
    )
    cut = len(found) > MAX_MATCHES or (total >= MAX_MATCHES and None in parts)
    found = found[:MAX_MATCHES]
    partial = cut or scope.cancelled_caught
    chosen, pagination = page_of(found, query.matchesPerPage, query.page)
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
    if scope.cancelled_caught:
        done.hint(f"The deadline stopped the search after {searched} files; narrow path.")
    if cut:
        done.hint(f"More than {MAX_MATCHES} matches: the first ones are kept; narrow the pattern.")
    if left_out:
        done.hint(f"{left_out} credential file(s) left out; includeSensitive=true searches them.")
    if not found and searched == 0:
        done.hint(f"No {query.language} files under the path; check language, include, exclude.")
    return done
