"""Directory listing and file finding under the allowed roots, with ripgrep doing the walk.

``rg --files`` decides which files are visible: it applies .gitignore / .ignore
rules (also outside git repositories), skips hidden entries unless asked, and
never follows symlinks, so the walk cannot leave the root. ripgrep lists files
only, so a directory is shown when it holds at least one visible file (as in
git, empty and wholly ignored directories are left out); symlinks are read
from those directories without being followed. Sensitive files (.env, keys)
are listed with ``sensitive: true``: a name reveals nothing, and reading them
is gated by localGetFileContent.
"""

from __future__ import annotations

import fnmatch
import json
import math
import os
import stat
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from octo.core.errors import InvalidQueryError, NotFoundError, QueryTimeoutError
from octo.core.formats import parse_duration, parse_size
from octo.core.sensitive import is_sensitive
from octo.local.listing_models import (
    EntryType,
    FindFilesQuery,
    FindFilesResult,
    FoundFile,
    ListingPagination,
    StructureEntry,
    StructureSummary,
    ViewStructureQuery,
    ViewStructureResult,
)
from octo.transports.ripgrep import open_rg, rg_error_message

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime
    from octo.core.envelope import ToolQuery
    from octo.legacy import QueryRun

#: Files read from one walk before it stops and reports ``truncated``.
MAX_SCANNED_FILES = 200_000
#: Matches beyond which the answer suggests narrowing filters.
MANY_RESULTS = 100

T = TypeVar("T")


@dataclass(frozen=True)
class _WalkOptions:
    max_depth: int
    hidden: bool
    no_ignore: bool
    exclude_dirs: Sequence[str] = ()
    need_dirs: bool = True
    need_symlinks: bool = True


@dataclass(frozen=True)
class _Walk:
    """Visible entries up to ``max_depth``, as paths relative to the start directory."""

    files: list[str]
    dirs: list[str]
    symlinks: list[str]
    truncated: bool


@dataclass(frozen=True)
class _Entry:
    rel: str
    type: EntryType
    stat: os.stat_result

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]

    @property
    def size(self) -> int:
        return self.stat.st_size if self.type == "file" else 0

    @property
    def shown(self) -> str:
        """``rel`` fit for JSON: bytes that are not UTF-8 become U+FFFD."""
        return self.rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


async def _rg_files(
    args: Sequence[str], cwd: Path, *, max_files: int, timeout_ms: int
) -> tuple[list[str], bool]:
    """Paths ``rg --files args`` lists in ``cwd``, stopping at ``max_files`` or the deadline.

    Returns the paths and whether the listing was cut short; a listing that runs
    out of time keeps what it found instead of failing.
    """
    paths: list[str] = []
    cut_short = False
    rejected: str | None = None
    try:
        # NUL-ended names: a newline is a legal character in a file name.
        async with open_rg(
            ["--files", "--null", "--no-messages", *args], cwd=cwd, timeout_ms=timeout_ms
        ) as rg:
            async for line in rg.lines(b"\0"):
                if line:
                    paths.append(os.fsdecode(line))
                if len(paths) >= max_files:
                    cut_short = True
                    break
            else:
                if await rg.wait() == 2 and not paths:
                    rejected = rg_error_message(rg.stderr)
    except QueryTimeoutError:
        cut_short = True
    # Raised out here: inside open_rg's task group it would arrive wrapped in a group.
    if rejected is not None:
        raise InvalidQueryError(
            f"ripgrep rejected the listing: {rejected}",
            hints=['Check excludeDir: names or paths such as "node_modules" or "src/gen".'],
        )
    return paths, cut_short


def _rg_args(options: _WalkOptions) -> list[str]:
    args = ["--no-require-git"]
    if options.hidden:
        # .git internals are noise in a listing even when hidden entries are wanted.
        args += ["--hidden", "--glob", "!.git/"]
    if options.no_ignore:
        args.append("--no-ignore")
    if not options.need_dirs:
        args += ["--max-depth", str(options.max_depth)]
    for raw in options.exclude_dirs:
        cleaned, anchored = _exclude_pattern(raw)
        args += ["--glob", f"!/{cleaned}/" if anchored else f"!{cleaned}/"]
    return args


def _split_walk(paths: list[str], options: _WalkOptions) -> tuple[list[str], list[str]]:
    """Files within the depth window, and every directory within it that holds a listed file."""
    files: list[str] = []
    dirs: set[str] = set()
    for rel in paths:
        rel = rel.removeprefix("./")
        depth = rel.count("/") + 1
        if depth <= options.max_depth:
            files.append(rel)
        if not options.need_dirs:
            continue
        parent = rel.rpartition("/")[0]
        # Trim to the window, then add ancestors until one is known (its own are known too).
        while parent and parent.count("/") + 1 > options.max_depth:
            parent = parent.rpartition("/")[0]
        while parent and parent not in dirs:
            dirs.add(parent)
            parent = parent.rpartition("/")[0]
    return files, sorted(dirs)


def _exclude_pattern(raw: str) -> tuple[str, bool]:
    """An excludeDir entry as a glob, and whether it is anchored at the start directory.

    "node_modules" is a name anywhere; "src/gen", "./build" and "/build" are paths.
    """
    text = raw.strip()
    cleaned = text.removeprefix("./").strip("/")
    return cleaned, "/" in cleaned or text.startswith(("./", "/"))


def _excluded(name: str, rel: str, exclude_dirs: Sequence[str]) -> bool:
    for raw in exclude_dirs:
        cleaned, anchored = _exclude_pattern(raw)
        if fnmatch.fnmatchcase(rel if anchored else name, cleaned):
            return True
    return False


def _symlinks(start: Path, dirs: Iterable[str], options: _WalkOptions) -> list[str]:
    """Symlinks in the start directory and the visible directories above the window's floor."""
    found: list[str] = []
    for parent in ["", *(d for d in dirs if d.count("/") + 1 < options.max_depth)]:
        try:
            with os.scandir(start / parent if parent else start) as scan:
                for item in scan:
                    rel = f"{parent}/{item.name}" if parent else item.name
                    if not item.is_symlink():
                        continue
                    if item.name.startswith(".") and not options.hidden:
                        continue
                    if _excluded(item.name, rel, options.exclude_dirs):
                        continue
                    found.append(rel)
        except OSError:
            continue
    return found


async def _walk(start: Path, options: _WalkOptions, timeout_ms: int) -> _Walk:
    paths, cut_short = await _rg_files(
        _rg_args(options), start, max_files=MAX_SCANNED_FILES, timeout_ms=timeout_ms
    )

    def split() -> _Walk:
        files, dirs = _split_walk(paths, options)
        links = _symlinks(start, dirs, options) if options.need_symlinks else []
        return _Walk(files, dirs if options.need_dirs else [], links, cut_short)

    return await anyio.to_thread.run_sync(split)


def _stat_entries(start: Path, walk: _Walk, keep: Callable[[str, EntryType], bool]) -> list[_Entry]:
    """lstat every entry ``keep`` accepts (by path and type); vanished entries are skipped."""
    entries: list[_Entry] = []
    kinds: list[tuple[list[str], EntryType]] = [
        (walk.files, "file"),
        (walk.dirs, "dir"),
        (walk.symlinks, "symlink"),
    ]
    for rels, kind in kinds:
        for rel in rels:
            if not keep(rel, kind):
                continue
            try:
                info = os.lstat(start / rel)
            except OSError:
                continue
            entries.append(_Entry(rel, kind, info))
    return entries


def _iso(mtime: float) -> str:
    return datetime.fromtimestamp(int(mtime), UTC).isoformat().replace("+00:00", "Z")


def _octal(mode: int) -> str:
    return format(stat.S_IMODE(mode), "03o")


def _page(items: list[T], per_page: int, page: int) -> tuple[list[T], ListingPagination]:
    total_pages = max(1, math.ceil(len(items) / per_page))
    start = (page - 1) * per_page
    return items[start : start + per_page], ListingPagination(
        currentPage=page, totalPages=total_pages, hasMore=page < total_pages
    )


def _as_call(query: ToolQuery, **changes: Any) -> str:
    """The query's own parameters (defaults and context left out) with ``changes``, as JSON."""
    return json.dumps({**query.params(), **changes}, separators=(",", ":"))


def _start_directory(run: QueryRun, raw: str, tool: str) -> Path:
    """The resolved start directory; NOT_FOUND or INVALID_QUERY with a way forward otherwise."""
    start = run.paths.resolve(raw)
    if not start.exists():
        parent = next((p for p in start.parents if p.is_dir()), None)
        hints = ["Check the spelling; paths are absolute or relative to the first allowed root."]
        if parent is not None and run.paths.root_of(parent) is not None:
            hints.append(f'See what exists: localViewStructure {{"path":"{parent}"}}')
        raise NotFoundError(f"Directory '{raw}' does not exist", hints=hints)
    if not start.is_dir():
        raise InvalidQueryError(
            f"'{raw}' is a file, not a directory: {tool} lists directories",
            hints=[
                f'Read it with localGetFileContent {{"path":"{start}"}}',
                f'List its directory: {tool} {{"path":"{start.parent}"}}',
            ],
        )
    return start


def read_params(start: Path, rel: str) -> dict[str, Any]:
    """localGetFileContent's exact parameters for ``rel`` below ``start``, with the opt-ins
    (hidden, includeSensitive) it needs."""
    params: dict[str, Any] = {"path": str(start / rel)}
    if any(part.startswith(".") for part in rel.split("/")):
        params["hidden"] = True
    if is_sensitive(rel):
        params["includeSensitive"] = True
    return params


def _past_last_page(
    run: QueryRun,
    tool: str,
    query: ViewStructureQuery | FindFilesQuery,
    pagination: ListingPagination,
) -> bool:
    """Hint the last page when ``query`` asked for one past it; True when it did."""
    field = "entryPageNumber" if isinstance(query, ViewStructureQuery) else "filePageNumber"
    asked: int = getattr(query, field)
    if asked <= pagination.totalPages:
        return False
    run.hint(
        f"Page {asked} is past the last page: "
        f"{tool} {_as_call(query, **{field: pagination.totalPages})}"
    )
    return True


def _read_call(start: Path, rel: str) -> str:
    return json.dumps(read_params(start, rel), separators=(",", ":"))


def _next_steps(run: QueryRun, start: Path, files: list[tuple[str, bool]]) -> None:
    """Hints to read a listed file (sensitive ones need an opt-in) and to search the directory.

    ``files`` are the page's files as (path relative to ``start``, sensitive).
    """
    plain = next((rel for rel, sensitive in files if not sensitive), None)
    if plain is not None:
        run.hint(f"Read a file: localGetFileContent {_read_call(start, plain)}")
    flagged = [rel for rel, sensitive in files if sensitive]
    if flagged:
        run.hint(
            f"{', '.join(flagged[:3])} may hold secrets (sensitive: true); to read one "
            f"(secrets redacted): localGetFileContent {_read_call(start, flagged[0])}"
        )
    run.hint(f'Search inside: localSearchCode {{"path":"{start}","pattern":"<regex>"}}')


def _truncated_hint(run: QueryRun, timeout_ms: int) -> None:
    run.hint(
        f"The walk stopped early ({MAX_SCANNED_FILES} files or {timeout_ms} ms): totals are "
        "partial; start from a sub-directory or add excludeDir / filters."
    )


class LocalFilesProvider:
    """localViewStructure and localFindFiles on ``rg --files`` plus lstat."""

    def __init__(self, runtime: Runtime) -> None:
        self.timeout_ms = runtime.config.rg_timeout_ms

    async def view_structure(self, run: QueryRun, query: ViewStructureQuery) -> ViewStructureResult:
        """List a directory: filter, sort, summarise, then page."""
        start = _start_directory(run, query.path, "localViewStructure")
        options = _WalkOptions(
            max_depth=query.effective_depth,
            hidden=query.hidden,
            no_ignore=query.noIgnore,
            need_dirs=not query.filesOnly,
            need_symlinks=not (query.filesOnly or query.directoriesOnly),
        )
        walk = await _walk(start, options, self.timeout_ms)
        entries = await anyio.to_thread.run_sync(partial(_select_structure, start, walk, query))
        files = [e for e in entries if e.type == "file"]
        summary = StructureSummary(
            totalFiles=len(files),
            totalDirs=sum(1 for e in entries if e.type == "dir"),
            totalSize=sum(e.size for e in files),
        )
        kept = entries[: query.limit] if query.limit else entries
        page, pagination = _page(kept, query.entriesPerPage, query.entryPageNumber)
        result = ViewStructureResult(
            path=str(start),
            entries=[_structure_entry(e, query.details) for e in page],
            summary=summary,
            pagination=pagination,
            truncated=True if walk.truncated else None,
        )
        _structure_hints(run, query, start, result, len(entries), len(kept), walk)
        if walk.truncated:
            _truncated_hint(run, self.timeout_ms)
        return result

    async def find_files(self, run: QueryRun, query: FindFilesQuery) -> FindFilesResult:
        """Find entries by name, type, depth, time, size and permissions; newest first."""
        start = _start_directory(run, query.path, "localFindFiles")
        options = _WalkOptions(
            max_depth=query.maxDepth,
            hidden=query.hidden,
            no_ignore=query.noIgnore,
            exclude_dirs=query.excludeDir or (),
            need_dirs=query.type in (None, "d", "l"),
            need_symlinks=query.type in (None, "l"),
        )
        walk = await _walk(start, options, self.timeout_ms)
        found = await anyio.to_thread.run_sync(
            partial(_select_found, start, walk, query, time.time())
        )
        kept = found[: query.limit]
        page, pagination = _page(kept, query.filesPerPage, query.filePageNumber)
        result = FindFilesResult(
            path=str(start),
            files=[_found_file(e) for e in page],
            totalCount=len(kept),
            pagination=pagination,
            truncated=True if walk.truncated or len(found) > len(kept) else None,
        )
        _find_hints(run, query, start, result, len(found))
        if walk.truncated:
            _truncated_hint(run, self.timeout_ms)
        return result


# localViewStructure


def _pattern_matcher(pattern: str) -> Callable[[_Entry], bool]:
    needle = pattern.lower()
    on_path = "/" in needle
    if any(c in needle for c in "*?["):
        return lambda e: fnmatch.fnmatchcase((e.rel if on_path else e.name).lower(), needle)
    return lambda e: needle in (e.rel if on_path else e.name).lower()


def _extension(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return ext.lower() if dot and stem else ""


_STRUCTURE_ORDER: dict[str, Callable[[_Entry], Any]] = {
    "name": lambda e: e.rel.lower(),
    "size": lambda e: (-e.size, e.rel.lower()),
    "time": lambda e: (-e.stat.st_mtime, e.rel.lower()),
    "extension": lambda e: (_extension(e.name), e.rel.lower()),
}


def _select_structure(start: Path, walk: _Walk, query: ViewStructureQuery) -> list[_Entry]:
    extensions = query.wanted_extensions

    def keep(rel: str, kind: EntryType) -> bool:
        if query.filesOnly and kind != "file":
            return False
        if query.directoriesOnly and kind != "dir":
            return False
        if extensions and kind != "dir":
            name = rel.rsplit("/", 1)[-1].lower()
            return any(name.endswith("." + ext) for ext in extensions)
        return True

    entries = _stat_entries(start, walk, keep)
    if query.pattern:
        matches = _pattern_matcher(query.pattern)
        entries = [e for e in entries if matches(e)]
    entries.sort(key=_STRUCTURE_ORDER[query.sortBy])
    return entries


def _structure_entry(entry: _Entry, details: bool) -> StructureEntry:
    return StructureEntry(
        name=entry.shown,
        type=entry.type,
        size=entry.stat.st_size if details and entry.type == "file" else None,
        modified=_iso(entry.stat.st_mtime) if details else None,
        permissions=_octal(entry.stat.st_mode) if details else None,
        sensitive=True if entry.type == "file" and is_sensitive(entry.name) else None,
    )


def _structure_hints(
    run: QueryRun,
    query: ViewStructureQuery,
    start: Path,
    result: ViewStructureResult,
    matched: int,
    kept: int,
    walk: _Walk,
) -> None:
    pagination = result.pagination
    assert pagination is not None
    if not result.entries:
        if matched and _past_last_page(run, "localViewStructure", query, pagination):
            return
        relax = []
        if query.pattern:
            relax.append(f"drop pattern '{query.pattern}'")
        if query.wanted_extensions:
            relax.append("drop extension/extensions")
        if query.filesOnly or query.directoriesOnly:
            relax.append("drop filesOnly/directoriesOnly")
        if query.effective_depth < 5:
            relax.append("go deeper with recursive=true")
        if not query.hidden:
            relax.append("hidden=true (dot-entries are skipped)")
        if not query.noIgnore:
            relax.append("noIgnore=true (.gitignore'd entries are skipped)")
        run.hint("Nothing matched. Relax: " + "; ".join(relax) + ".")
        if not walk.files and not walk.dirs:
            run.hint("Directories show only when they hold a visible file (like git).")
        return
    if pagination.hasMore:
        run.hint(
            f"Next page: localViewStructure {_as_call(query, entryPageNumber=query.entryPageNumber + 1)}"
        )
    if matched > kept:
        run.hint(f"limit kept {kept} of {matched} entries: raise limit or add filters.")
    if matched > MANY_RESULTS:
        run.hint(
            f"{matched} entries: narrow with pattern, extensions, filesOnly/directoriesOnly, "
            "or list a sub-directory."
        )
    dirs = [e.name for e in result.entries if e.type == "dir"]
    if dirs and query.effective_depth == 1 and not query.recursive:
        run.hint(
            f'Look inside: localViewStructure {{"path":"{start / dirs[0]}"}} or add "depth":2.'
        )
    _next_steps(
        run, start, [(e.name, bool(e.sensitive)) for e in result.entries if e.type == "file"]
    )


# localFindFiles


def _name_matcher(patterns: list[tuple[str, bool]]) -> Callable[[str], bool]:
    if not patterns:
        return lambda _name: True
    compiled = [(p if sensitive else p.lower(), sensitive) for p, sensitive in patterns]
    return lambda name: any(
        fnmatch.fnmatchcase(name if sensitive else name.lower(), p) for p, sensitive in compiled
    )


_TYPE_OF: dict[str, EntryType] = {"f": "file", "d": "dir", "l": "symlink"}


def _access(path: Path, mode: int, kind: EntryType) -> bool:
    if kind == "symlink":
        # Judge the link itself: its target may lie outside the allowed roots.
        if os.access not in os.supports_follow_symlinks:
            return False
        return os.access(path, mode, follow_symlinks=False)
    return os.access(path, mode)


def _access_is(start: Path, mode: int, wanted: bool, entry: _Entry) -> bool:
    return _access(start / entry.rel, mode, entry.type) == wanted


def _select_found(start: Path, walk: _Walk, query: FindFilesQuery, now: float) -> list[_Entry]:
    names = _name_matcher(query.name_patterns)
    wanted_type = _TYPE_OF[query.type] if query.type else None
    min_depth = max(query.minDepth or 1, 1)

    def keep(rel: str, kind: EntryType) -> bool:
        if wanted_type is not None and kind != wanted_type:
            return False
        if (query.sizeGreater or query.sizeLess) and kind != "file":
            return False
        depth = rel.count("/") + 1
        return min_depth <= depth <= query.maxDepth and names(rel.rsplit("/", 1)[-1])

    checks: list[Callable[[_Entry], bool]] = []
    if query.modifiedWithin:
        newest = now - parse_duration(query.modifiedWithin)
        checks.append(lambda e: e.stat.st_mtime >= newest)
    if query.modifiedBefore:
        oldest = now - parse_duration(query.modifiedBefore)
        checks.append(lambda e: e.stat.st_mtime < oldest)
    if query.sizeGreater:
        above = parse_size(query.sizeGreater)
        checks.append(lambda e: e.stat.st_size > above)
    if query.sizeLess:
        below = parse_size(query.sizeLess)
        checks.append(lambda e: e.stat.st_size < below)
    if query.permissions:
        mode = int(query.permissions, 8)
        mask = 0o7777 if len(query.permissions) == 4 else 0o777
        checks.append(lambda e: e.stat.st_mode & mask == mode)
    for flag, access in (
        (query.executable, os.X_OK),
        (query.readable, os.R_OK),
        (query.writable, os.W_OK),
    ):
        if flag is not None:
            checks.append(partial(_access_is, start, access, flag))

    entries = [e for e in _stat_entries(start, walk, keep) if all(c(e) for c in checks)]
    entries.sort(key=lambda e: (-e.stat.st_mtime, e.rel))
    return entries


def _found_file(entry: _Entry) -> FoundFile:
    return FoundFile(
        path=entry.shown,
        type=entry.type,
        size=entry.stat.st_size if entry.type == "file" else None,
        modified=_iso(entry.stat.st_mtime),
        permissions=_octal(entry.stat.st_mode),
        sensitive=True if entry.type == "file" and is_sensitive(entry.name) else None,
    )


def _find_hints(
    run: QueryRun,
    query: FindFilesQuery,
    start: Path,
    result: FindFilesResult,
    matched: int,
) -> None:
    pagination = result.pagination
    assert pagination is not None
    if not result.files:
        if matched and _past_last_page(run, "localFindFiles", query, pagination):
            return
        relax = [
            f"{field} {value!r}"
            for field, value in (
                ("name", query.name),
                ("iname", query.iname),
                ("names", query.names),
                ("type", query.type),
                ("modifiedWithin", query.modifiedWithin),
                ("modifiedBefore", query.modifiedBefore),
                ("sizeGreater", query.sizeGreater),
                ("sizeLess", query.sizeLess),
                ("permissions", query.permissions),
                ("executable", query.executable),
                ("readable", query.readable),
                ("writable", query.writable),
                ("minDepth", query.minDepth),
                ("excludeDir", query.excludeDir),
            )
            if value is not None
        ]
        advice = ["drop or loosen " + ", ".join(relax)] if relax else []
        if query.maxDepth < 10:
            advice.append(f"raise maxDepth (now {query.maxDepth})")
        if not query.hidden:
            advice.append("hidden=true (dot-entries are skipped)")
        if not query.noIgnore:
            advice.append("noIgnore=true (.gitignore'd entries are skipped)")
        run.hint("Nothing matched. Relax: " + "; ".join(advice) + ".")
        return
    if pagination.hasMore:
        run.hint(
            f"Next page: localFindFiles {_as_call(query, filePageNumber=query.filePageNumber + 1)}"
        )
    if matched > result.totalCount:
        run.hint(
            f"limit kept the {result.totalCount} newest of {matched} matches: raise limit "
            "(up to 10000) or narrow the filters."
        )
    if matched > MANY_RESULTS:
        run.hint(
            f"{matched} matches: narrow with name, type, modifiedWithin, sizeGreater or excludeDir."
        )
    _next_steps(run, start, [(f.path, bool(f.sensitive)) for f in result.files if f.type == "file"])
