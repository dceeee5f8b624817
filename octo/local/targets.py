"""Where a local query points: the allowed file or directory it names, checked on disk.

Each check resolves and inspects the path in one worker thread: symlinks, stat and the
walk up to an existing parent all touch the disk, and the event loop must not wait on it.
"""

from __future__ import annotations

import os
import stat
from functools import partial
from pathlib import Path

import anyio

from octo.core.errors import InvalidQueryError
from octo.core.errors import NotFoundError
from octo.core.errors import PathNotAllowedError
from octo.core.formats import compact_json
from octo.core.paths import PathPolicy
from octo.core.paths import is_hidden
from octo.core.sensitive import is_sensitive
from octo.local.models import LocalGetFileContentQuery
from octo.local.search_models import LocalSearchCodeQuery


async def search_target(paths: PathPolicy, query: LocalSearchCodeQuery) -> tuple[Path, str]:
    """Where rg runs and what it is given: a directory and ".", or a file's directory and
    "./name"."""
    return await anyio.to_thread.run_sync(partial(_search_target, paths, query))


async def file_target(
    paths: PathPolicy, query: LocalGetFileContentQuery
) -> tuple[Path, os.stat_result]:
    """The resolved regular file a read names, with its stat."""
    return await anyio.to_thread.run_sync(partial(_file_target, paths, query))


async def start_directory(paths: PathPolicy, raw: str, tool: str) -> Path:
    """The resolved start directory of a listing; NOT_FOUND or INVALID_QUERY with a way
    forward otherwise."""
    return await anyio.to_thread.run_sync(partial(_start_directory, paths, raw, tool))


def _search_target(paths: PathPolicy, query: LocalSearchCodeQuery) -> tuple[Path, str]:
    target = paths.resolve(query.path)
    root = paths.root_of(target) or target
    if not target.exists():
        raise _not_found(target, root, query.path)
    # A directory is searched without its credential files; only naming one needs the opt-in.
    _check_opt_ins(target, root, "localSearchCode", query, sensitive_ok=target.is_dir())
    if target.is_dir():
        return target, "."
    if target.is_file():
        return target.parent, f"./{target.name}"
    raise InvalidQueryError(f"'{query.path}' is neither a directory nor a regular file")


def _file_target(paths: PathPolicy, query: LocalGetFileContentQuery) -> tuple[Path, os.stat_result]:
    real = paths.resolve(query.path)
    root = paths.root_of(real) or real
    try:
        info = real.stat()
    except FileNotFoundError:
        raise _not_found(real, root, query.path) from None
    if stat.S_ISDIR(info.st_mode):
        raise InvalidQueryError(
            f"'{query.path}' is a directory, not a file",
            hints=[f"List it with localViewStructure {compact_json({'path': query.path})}"],
        )
    if not stat.S_ISREG(info.st_mode):
        raise InvalidQueryError(f"'{query.path}' is not a regular file")
    _check_opt_ins(real, root, "localGetFileContent", query)
    return real, info


def _start_directory(paths: PathPolicy, raw: str, tool: str) -> Path:
    start = paths.resolve(raw)
    if not start.exists():
        parent = next((p for p in start.parents if p.is_dir()), None)
        hints = ["Check the spelling; paths are absolute or relative to the first allowed root."]
        if parent is not None and paths.root_of(parent) is not None:
            hints.append(
                "See what exists: localViewStructure " + compact_json({"path": str(parent)})
            )
        raise NotFoundError(f"Directory '{raw}' does not exist", hints=hints)
    if not start.is_dir():
        raise InvalidQueryError(
            f"'{raw}' is a file, not a directory: {tool} lists directories",
            hints=[
                "Read it with localGetFileContent " + compact_json({"path": str(start)}),
                f"List its directory: {tool} " + compact_json({"path": str(start.parent)}),
            ],
        )
    return start


def _check_opt_ins(
    real: Path,
    root: Path,
    tool: str,
    query: LocalSearchCodeQuery | LocalGetFileContentQuery,
    *,
    sensitive_ok: bool = False,
) -> None:
    """Hidden and credential files need the query's explicit opt-in; the refusal gives the
    query again with every opt-in it needs."""
    raw = query.path
    needs: dict[str, bool] = {}
    reasons = []
    if not (query.includeSensitive or sensitive_ok) and (is_sensitive(real) or is_sensitive(raw)):
        needs["includeSensitive"] = True
        reasons.append("looks like a credential file")
    if not query.hidden and is_hidden(real, root):
        needs["hidden"] = True
        reasons.append("is hidden (a dot-file or inside a dot-directory)")
    if not needs:
        return
    again = f"{tool} {compact_json({**query.params(), **needs})}"
    redacted = " (secrets stay redacted)" if "includeSensitive" in needs else ""
    raise PathNotAllowedError(
        f"'{raw}' {' and '.join(reasons)}", hints=[f"To use it anyway{redacted}: {again}"]
    )


def _not_found(real: Path, root: Path, raw: str) -> NotFoundError:
    if not root.is_dir():
        # Every path under a root that is gone is missing: say what is really wrong.
        return NotFoundError(
            f"The allowed root {root} does not exist, so '{raw}' does not either",
            hints=["Fix the roots (OCTO_ROOTS, --root, or the MCP client's roots)."],
        )
    parent = real.parent
    while parent != root and not parent.is_dir() and parent.is_relative_to(root):
        parent = parent.parent
    where = str(parent) if parent.is_dir() else str(root)
    return NotFoundError(
        f"'{raw}' does not exist",
        hints=[
            "Find it: localFindFiles " + compact_json({"path": where, "iname": f"*{real.name}*"}),
            "Or look around: localViewStructure " + compact_json({"path": where}),
        ],
    )
