"""The graphs kept per root: in memory (a few roots, least recently used dropped) and on
disk in octo's cache directory, refreshed by modification time and size so that a query
after one file changed reads that file only. A build runs in the runtime's background:
a query waits for it until its deadline, then answers partial; the next one uses it."""

from __future__ import annotations

import hashlib
import json
import os
from collections import OrderedDict
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import Protocol

import anyio

from octo.contract import QueryContext
from octo.contract.runtime import Runtime
from octo.core.config import cache_dir
from octo.core.errors import ToolNotAvailableError
from octo.core.files.confined import open_confined
from octo.core.secrets.sensitive import is_sensitive
from octo.local.graph.graph import Edge
from octo.local.graph.graph import ImportGraph
from octo.local.graph.imports import RawImport
from octo.local.graph.languages.compiled_modules import COMPILED_SUFFIXES
from octo.local.graph.languages.compiled_modules import DECLARING_SUFFIXES
from octo.local.graph.languages.compiled_modules import CompiledModules
from octo.local.graph.languages.functional_modules import ELIXIR_SUFFIXES
from octo.local.graph.languages.functional_modules import FUNCTIONAL_SUFFIXES
from octo.local.graph.languages.functional_modules import FunctionalModules
from octo.local.graph.languages.interpreted_modules import INTERPRETED_SUFFIXES
from octo.local.graph.languages.interpreted_modules import PHP_SUFFIX
from octo.local.graph.languages.interpreted_modules import InterpretedModules
from octo.local.graph.languages.python_modules import PythonModules
from octo.local.graph.languages.python_modules import script_modules
from octo.local.graph.languages.script_modules import SCRIPT_SUFFIXES
from octo.local.graph.languages.script_modules import ScriptModules
from octo.local.graph.languages.web_links import WEB_SUFFIXES
from octo.local.graph.languages.web_links import WebLinks
from octo.local.graph.sources import SOURCE_GLOBS
from octo.local.graph.sources import FileRecord
from octo.local.graph.sources import is_source
from octo.local.graph.sources import read_records
from octo.local.listing.entries import WalkOptions
from octo.local.listing.file_walk import walk
from octo.transports.ripgrep import RgQueue

#: Roots whose graphs stay in memory, and on disk (the least recently built dropped).
KEPT_ROOTS = 4
KEPT_ON_DISK = 32
#: Files read per worker-thread hop.
BATCH = 256
#: Seconds between a build and the write of its files to the disk cache.
SAVE_DELAY = 2.0
_FORMAT = 3


class Resolver(Protocol):
    """A language's resolution of a file's imports to edges (and problems)."""

    def edges(self, rel: str, imports: tuple[RawImport, ...]) -> tuple[list[Edge], list[str]]: ...


@dataclass(frozen=True)
class Resolvers:
    """Each language's resolver of one set of files: built together, since each reads the
    files' module names, settings and declarations."""

    modules: PythonModules
    scripts: ScriptModules
    compiled: CompiledModules
    interpreted: InterpretedModules
    functional: FunctionalModules
    web: WebLinks

    @classmethod
    def of(cls, records: dict[str, FileRecord], start: Path) -> Resolvers:
        """The resolvers of ``records``, the files below ``start``."""
        modules = PythonModules(records)
        configs = {rel: r.text for rel, r in records.items() if r.text is not None}
        declared = {rel: r.declares for rel, r in records.items() if r.declares is not None}
        return cls(
            modules=modules,
            scripts=ScriptModules(modules.files, configs),
            compiled=CompiledModules(modules.files, declared, configs, start),
            interpreted=InterpretedModules(modules.files, declared, configs),
            functional=FunctionalModules(modules.files, declared, configs),
            web=WebLinks(modules.files),
        )

    def of_file(self, rel: str) -> Resolver:
        """The resolver of ``rel``'s imports, by its suffix (Python's for the rest)."""
        if rel.endswith(SCRIPT_SUFFIXES):
            return self.scripts
        if rel.endswith(COMPILED_SUFFIXES):
            return self.compiled
        if rel.endswith(INTERPRETED_SUFFIXES):
            return self.interpreted
        if rel.endswith(FUNCTIONAL_SUFFIXES):
            return self.functional
        if rel.endswith(WEB_SUFFIXES):
            return self.web
        return self.modules

    def problems(self) -> list[str]:
        """What the languages' settings files could not say (not JSON or TOML, an ``extends``
        not followed)."""
        problems = [*self.scripts.problems, *self.compiled.problems, *self.interpreted.problems]
        return problems + script_modules(self.scripts.configs)[1]


@dataclass(frozen=True)
class GraphKey:
    """A root and the opt-ins its files were listed with."""

    root: Path
    start: Path
    hidden: bool
    no_ignore: bool
    include_sensitive: bool


@dataclass
class BuiltGraph:
    """A root's graph, the resolvers it was built with and what could not be read."""

    graph: ImportGraph
    resolvers: Resolvers
    records: dict[str, FileRecord]
    diagnostics: list[str]
    truncated: bool
    #: Answers about the whole graph, kept with it (cycles, fans, reachability).
    memo: dict[object, Any] = field(default_factory=dict)


@dataclass
class RootGraph:
    """One root's files as last read, its graph, and the build under way."""

    key: GraphKey
    records: dict[str, FileRecord] = field(default_factory=dict)
    dirs: dict[str, int] = field(default_factory=dict)
    built: BuiltGraph | None = None
    #: Each file's edges and problems, resolved by ``resolvers`` (kept while no file comes
    #: or goes, so an edit resolves that file's imports only).
    resolved: dict[str, tuple[list[Edge], list[str]]] = field(default_factory=dict)
    resolvers: Resolvers | None = None
    loaded: bool = False
    truncated: bool = False
    #: Files read in the build under way, and how many it reads.
    parsed: int = 0
    to_parse: int = 0
    running: anyio.Event | None = None
    #: Built since the disk cache was last written.
    unsaved: bool = False
    #: What stopped the last build (the next query raises it).
    failure: Exception | None = None


class GraphStore:
    """The runtime's graphs (a backend: ``ctx.backend(GraphStore)``)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.folder = cache_dir(runtime.config.env) / "graphs"
        self._roots: OrderedDict[GraphKey, RootGraph] = OrderedDict()

    async def fresh(self, ctx: QueryContext, key: GraphKey, wait: float) -> RootGraph:
        """The root's graph, refreshed when a file changed, waiting at most ``wait``
        seconds for a build (then the state says how far it got)."""
        state = self._roots.get(key)
        if state is None:
            state = self._roots[key] = RootGraph(key)
            while len(self._roots) > KEPT_ROOTS:
                self._roots.popitem(last=False)
        self._roots.move_to_end(key)
        done = state.running
        if done is None:
            done = anyio.Event()
            try:
                self.runtime.start_background(
                    self._refresh_and_save, ctx, state, done, name="dependency graph"
                )
            except ToolNotAvailableError:
                # A gateway not opened as a context manager keeps no background work: the
                # query builds, until its deadline (the next one goes on from there).
                state.running = done
                with anyio.move_on_after(wait):
                    await self._refresh(ctx, state, done)
            else:
                state.running = done
        with anyio.move_on_after(wait):
            await done.wait()
        failure, state.failure = state.failure, None
        if failure is not None:
            raise failure
        return state

    async def _refresh(self, ctx: QueryContext, state: RootGraph, done: anyio.Event) -> None:
        try:
            if not state.loaded:
                state.loaded = True
                await anyio.to_thread.run_sync(self._load, state)
            changed = None
            if state.built is not None:
                changed = await anyio.to_thread.run_sync(_changed_files, state)
            if changed is None:
                files = await self._walk(ctx, state)
                changed = await anyio.to_thread.run_sync(_stale, state, files)
            elif not changed and state.built is not None:
                return
            state.to_parse, state.parsed = len(changed), 0
            for begin in range(0, len(changed), BATCH):
                part = changed[begin : begin + BATCH]
                key = state.key
                read = await anyio.to_thread.run_sync(read_records, key.root, key.start, part)
                state.records.update(read)
                state.parsed += len(part)
            state.built = await anyio.to_thread.run_sync(_built, state, changed)
            state.unsaved = True
        except Exception as exc:  # noqa: BLE001 - a failed build fails its query, not the gateway
            state.failure = exc
        finally:
            state.running = None
            done.set()

    async def _refresh_and_save(
        self, ctx: QueryContext, state: RootGraph, done: anyio.Event
    ) -> None:
        """:meth:`_refresh` in the background, then the disk cache written: after the answer
        (the query waits for the graph, not the disk), and once for a burst of edits; closing
        the gateway writes what is left (:meth:`aclose`)."""
        await self._refresh(ctx, state, done)
        if not state.unsaved:
            return
        await anyio.sleep(SAVE_DELAY)
        if state.running is None and state.unsaved:
            state.unsaved = False
            await anyio.to_thread.run_sync(self._save, state)

    async def aclose(self) -> None:
        """Write the graphs not written yet (closing the runtime)."""
        for state in list(self._roots.values()):
            if state.unsaved and state.running is None:
                state.unsaved = False
                await anyio.to_thread.run_sync(self._save, state)

    async def _walk(self, ctx: QueryContext, state: RootGraph) -> list[str]:
        key = state.key
        options = WalkOptions.files_only(
            paths=ctx.paths, hidden=key.hidden, no_ignore=key.no_ignore, include=SOURCE_GLOBS
        )
        opened = await anyio.to_thread.run_sync(
            lambda: open_confined(key.root, key.start, str(key.start), directory=True)
        )
        with opened:
            listed = await walk(
                opened,
                options,
                max(ctx.config.rg_timeout_ms, 60_000),
                place=ctx.backend(RgQueue).place(ctx.arrived),
            )
        state.truncated = listed.truncated
        files = (
            listed.files
            if key.include_sensitive
            else [f for f in listed.files if not is_sensitive(f)]
        )
        state.dirs = await anyio.to_thread.run_sync(_dir_times, key.start, files)
        return sorted(files)

    def _path(self, key: GraphKey) -> Path:
        name = json.dumps([str(key.start), key.hidden, key.no_ignore, key.include_sensitive])
        return self.folder / (hashlib.sha256(name.encode()).hexdigest()[:24] + ".json")

    def _load(self, state: RootGraph) -> None:
        try:
            saved = json.loads(self._path(state.key).read_text("utf-8"))
            if saved.get("format") != _FORMAT:
                return
            state.records = {rel: FileRecord.of_row(row) for rel, row in saved["files"].items()}
        except (OSError, ValueError, TypeError, KeyError, AssertionError):
            state.records = {}

    def _save(self, state: RootGraph) -> None:
        path = self._path(state.key)
        rows = {rel: record.as_row() for rel, record in state.records.items()}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(".tmp")
            temporary.write_text(json.dumps({"format": _FORMAT, "files": rows}), "utf-8")
            temporary.replace(path)
            kept = sorted(self.folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
            for old in kept[:-KEPT_ON_DISK]:
                old.unlink(missing_ok=True)
        except OSError:
            return  # a cache that cannot be written only costs the next start a build


def _dir_times(start: Path, files: list[str]) -> dict[str, int]:
    folders = {""} | {rel.rsplit("/", 1)[0] for rel in files if "/" in rel}
    times: dict[str, int] = {}
    for folder in folders:
        try:
            times[folder] = os.lstat(start / folder).st_mtime_ns
        except OSError:
            times[folder] = -1
    return times


def _changed_files(state: RootGraph) -> list[str] | None:
    """The files whose time or size changed; None when a folder did (files came or went:
    the root is listed again)."""
    start = state.key.start
    for folder, mtime in state.dirs.items():
        try:
            if os.lstat(start / folder).st_mtime_ns != mtime:
                return None
        except OSError:
            return None
    return _stale(state, list(state.records))


def _stale(state: RootGraph, files: list[str]) -> list[str]:
    """The listed files not read at their current time and size (the ones gone dropped)."""
    start = state.key.start
    listed = set(files)
    for gone in [rel for rel in state.records if rel not in listed]:
        del state.records[gone]
    stale = []
    for rel in files:
        record = state.records.get(rel)
        try:
            status = os.lstat(start / rel)
        except OSError:
            state.records.pop(rel, None)
            continue
        if record is None or (record.mtime_ns, record.size) != (status.st_mtime_ns, status.st_size):
            stale.append(rel)
    return stale


def _built(state: RootGraph, changed: list[str]) -> BuiltGraph:
    """The graph of the records; only ``changed`` files are resolved again while the
    files are the same ones (module names stay), every file otherwise."""
    records = dict(state.records)
    resolvers = state.resolvers
    # A package, namespace or module a file declares, or a settings file, can change what
    # every import names.
    everything = any(
        not is_source(rel) or rel.endswith((*DECLARING_SUFFIXES, PHP_SUFFIX, *ELIXIR_SUFFIXES))
        for rel in changed
    )
    if resolvers is None or resolvers.modules.files != records.keys() or everything:
        resolvers = state.resolvers = Resolvers.of(records, state.key.start)
        state.resolved = {}
    for rel in changed:
        state.resolved.pop(rel, None)
    edges: list[Edge] = []
    diagnostics = resolvers.problems()
    for rel, record in records.items():
        if record.problem is not None:
            diagnostics.append(f"{rel}: {record.problem}")
        if not is_source(rel):
            continue
        resolved = state.resolved.get(rel)
        if resolved is None:
            resolved = state.resolved[rel] = resolvers.of_file(rel).edges(rel, record.imports)
        edges.extend(resolved[0])
        diagnostics.extend(resolved[1])
    graph = ImportGraph(sorted(rel for rel in records if is_source(rel)), edges)
    return BuiltGraph(graph, resolvers, records, diagnostics, state.truncated)
