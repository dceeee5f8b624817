"""Where a local query points: the allowed file or directory it names, checked on disk.

Each check resolves and inspects the path in one worker thread: symlinks, stat and the
walk up to an existing parent all touch the disk, and the event loop must not wait on it.
The parameters of follow-up reads every local tool's hints suggest are here too (the same
opt-ins).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from typing import Protocol

import anyio

from octo.core.errors import InvalidQueryError
from octo.core.errors import NotFoundError
from octo.core.errors import PathNotAllowedError
from octo.core.files.confined import Opened
from octo.core.files.confined import closed_on_error
from octo.core.files.confined import open_confined
from octo.core.files.paths import PathPolicy
from octo.core.files.paths import is_hidden
from octo.core.formats import compact_json
from octo.core.secrets.sensitive import is_sensitive
from octo.local.models import LocalGetFileContentQuery


class OptedInQuery(Protocol):
    """A query naming one path, with the opt-ins for hidden and credential files (a search's
    or a read's: this module knows neither tool)."""

    @property
    def path(self) -> str: ...
    @property
    def hidden(self) -> bool: ...
    @property
    def includeSensitive(self) -> bool: ...
    def params(self) -> dict[str, Any]: ...


@dataclass
class OpenedSearch:
    """What a search reads, opened without following links: the directory rg runs in, the
    paths below it that its walk keeps out of (PathPolicy.fenced_below), and the file when
    the query names one (close it, or use ``with``)."""

    root: Path
    directory: Opened
    fenced: tuple[str, ...]
    file: Opened | None = None

    @property
    def cwd(self) -> str:
        """rg's working directory: the opened directory itself."""
        return self.directory.child_path()

    @property
    def arg(self) -> str:
        """What rg searches: "." or the opened file."""
        return self.file.child_path() if self.file is not None else "."

    @property
    def fds(self) -> tuple[int, ...]:
        """The descriptors rg inherits so that :attr:`cwd` and :attr:`arg` name them."""
        opened = (self.directory, self.file)
        return tuple(o.fd for o in opened if o is not None)

    def close(self) -> None:
        self.directory.close()
        if self.file is not None:
            self.file.close()

    def __enter__(self) -> OpenedSearch:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


async def open_search(paths: PathPolicy, query: OptedInQuery) -> OpenedSearch:
    """The directory (or file) a search names, checked and opened."""
    return await anyio.to_thread.run_sync(partial(_open_search, paths, query))


async def open_file(paths: PathPolicy, query: LocalGetFileContentQuery) -> Opened:
    """The regular file a read names, opened without following a link swapped in after the
    check (the caller closes it)."""
    return await anyio.to_thread.run_sync(partial(_open_file, paths, query))


async def opened_directory(paths: PathPolicy, start: Path, raw: str) -> Opened:
    """The checked directory ``start`` (``raw`` as the caller named it), opened without
    following a link swapped in since (the caller closes it)."""
    root = paths.root_of(start) or start
    return await anyio.to_thread.run_sync(partial(open_confined, root, start, raw, directory=True))


def open_start(paths: PathPolicy, raw: str, tool: str) -> Opened:
    """The start directory of a listing, resolved, checked and opened (no link followed);
    NOT_FOUND or INVALID_QUERY with a way forward otherwise (the caller closes it).
    Blocking: the listing calls it in the worker thread that walks."""
    start = _start_directory(paths, raw, tool)
    root = paths.root_of(start) or start
    return open_confined(root, start, raw, directory=True)


def _open_search(paths: PathPolicy, query: OptedInQuery) -> OpenedSearch:
    root, target, opened = _opened(paths, query.path)
    with closed_on_error(opened):
        # A directory is searched without its credential files; only naming one needs the
        # opt-in.
        _check_opt_ins(target, root, "localSearchCode", query, sensitive_ok=opened.is_dir)
        if opened.is_dir:
            return OpenedSearch(root, opened, paths.fenced_below(opened.path))
        if not opened.is_file:
            raise InvalidQueryError(f"'{query.path}' is neither a directory nor a regular file")
        # The file's directory holds no secret the file check did not cover.
        directory = open_confined(root, target.parent, query.path, directory=True)
    return OpenedSearch(root, directory, (), opened)


def _open_file(paths: PathPolicy, query: LocalGetFileContentQuery) -> Opened:
    root, real, opened = _opened(paths, query.path)
    with closed_on_error(opened):
        if opened.is_dir:
            raise InvalidQueryError(
                f"'{query.path}' is a directory, not a file",
                hints=[f"List it with localViewStructure {compact_json({'path': query.path})}"],
            )
        if not opened.is_file:
            raise InvalidQueryError(f"'{query.path}' is not a regular file")
        _check_opt_ins(real, root, "localGetFileContent", query)
    return opened


def _opened(paths: PathPolicy, raw: str) -> tuple[Path, Path, Opened]:
    """The allowed root, the resolved path and the object at it, opened (no link followed)."""
    real = paths.resolve(raw)
    root = paths.root_of(real) or real
    try:
        return root, real, open_confined(root, real, raw)
    except NotFoundError:
        raise _not_found(real, root, raw) from None


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
    query: OptedInQuery,
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


_REGEX_SYNTAX = re.compile(r"[\\^$.|?*+()\[\]{}]")


def read_params(start: Path, rel: str) -> dict[str, Any]:
    """localGetFileContent's exact parameters for ``rel`` below ``start``, with the opt-ins
    (hidden, includeSensitive) it needs."""
    params: dict[str, Any] = {"path": str(start / rel)}
    if any(part.startswith(".") for part in rel.split("/")):
        params["hidden"] = True
    if is_sensitive(rel):
        params["includeSensitive"] = True
    return params


def has_regex_syntax(pattern: str) -> bool:
    """True when ``pattern`` holds a character that means something in a regex."""
    return _REGEX_SYNTAX.search(pattern) is not None


# Constructs nobody types by accident in literal text: character classes and escapes (\w, \d,
# \s, \b), wildcards (.* .+), alternation, a bracketed class, an anchor at either end.
_INTENDED_REGEX = re.compile(r"\\[wdsbWDSB]|\.[*+?]|\||\[[^\]]+\]|^\^|(?<!\\)\$$")


def is_intended_regex(pattern: str) -> bool:
    """True when ``pattern`` is plainly written as a regex (``class \\w+Error``, ``foo|bar``),
    so searching its text literally is no way out of an empty answer."""
    return _INTENDED_REGEX.search(pattern) is not None
