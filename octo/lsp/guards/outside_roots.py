"""No answer names a file outside the allowed roots: what a server says of such a file
(a location, a call or type-hierarchy item, a symbol, a diagnostic's related place) is left
out of every answer, and the answer says how many were.

The language's own library stays: the Python installation octo runs with (its standard
library and site-packages, where basedpyright keeps its typeshed), ty's cache of its bundled
typeshed, and the folders the language servers are installed in. Everything else outside the
roots (a folder a symbolic link inside a root leads to, or one a project's configuration
named) is dropped. Each query's answers are filtered in the scope :func:`only_inside` puts
in force; :func:`inside_only` is applied to every reply a server sends.
"""

from __future__ import annotations

import sysconfig
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from dataclasses import field
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from urllib.parse import urlparse

import anyio
import platformdirs

from octo.core.files.paths import PathPolicy

#: Keys of an item that hold a place in a file: its own, or a part's (a call's caller or
#: callee, a symbol's or a related diagnostic's location).
_URI_KEYS = ("uri", "targetUri")
_PART_KEYS = ("location", "from", "to")


@dataclass
class Outside:
    """The roots of one query, the library folders, and what was dropped so far."""

    paths: PathPolicy
    libraries: tuple[Path, ...]
    dropped: int = 0
    _verdicts: dict[str, bool] = field(default_factory=dict)

    def allows(self, uri: str) -> bool:
        """Whether a file named by ``uri`` may be named in an answer (blocking: resolves)."""
        known = self._verdicts.get(uri)
        if known is None:
            known = self._verdicts[uri] = self._allows(uri)
        return known

    def _allows(self, uri: str) -> bool:
        if not uri.startswith("file:"):
            return True  # not a file on this machine (a server's own virtual document)
        try:
            real = Path(unquote(urlparse(uri).path)).resolve()
        except (OSError, RuntimeError):
            return False
        if self.paths.root_of(real) is not None:
            return True
        return any(real.is_relative_to(folder) for folder in self.libraries)


_IN_FORCE: ContextVar[Outside | None] = ContextVar("octo_lsp_outside", default=None)


@cache
def _installation() -> tuple[Path, ...]:
    names = ("stdlib", "platstdlib", "purelib", "platlib")
    found = {Path(sysconfig.get_paths()[name]).resolve() for name in names}
    found.add(Path(platformdirs.user_cache_dir("ty", appauthor=False)).resolve())
    return tuple(sorted(found))


def library_folders(programs: Sequence[str]) -> tuple[Path, ...]:
    """The folders a language's own library lives in, for servers started as ``programs``
    (each server's argv): the Python installation, ty's cache, and each server's install
    folder (the ``node_modules`` holding it, or the folder above its program's)."""
    found = set(_installation())
    for program in programs:
        path = Path(program)
        if not path.is_absolute():
            continue
        real = path.resolve()
        modules = next((p for p in real.parents if p.name == "node_modules"), None)
        found.add(modules or real.parent.parent)
    return tuple(sorted(found))


@contextmanager
def only_inside(paths: PathPolicy, libraries: tuple[Path, ...]) -> Iterator[Outside]:
    """Filter every server reply within the block to the roots of ``paths`` (and the
    libraries); an enclosing block's scope, when there is one, stays in force."""
    enclosing = _IN_FORCE.get()
    if enclosing is not None:
        yield enclosing
        return
    scope = Outside(paths, libraries)
    token = _IN_FORCE.set(scope)
    try:
        yield scope
    finally:
        _IN_FORCE.reset(token)


def dropped() -> int:
    """How many items were dropped so far in the scope in force."""
    scope = _IN_FORCE.get()
    return scope.dropped if scope is not None else 0


def outside_note(count: int) -> list[str]:
    """The note an answer gets when ``count`` items were left out."""
    if not count:
        return []
    return [f"{count} item(s) naming files outside the allowed roots were left out."]


async def inside_only(reply: Any) -> Any:
    """``reply`` without what names a file outside the roots, in the scope in force (one
    worker-thread hop: each file named is resolved)."""
    scope = _IN_FORCE.get()
    if scope is None or not isinstance(reply, (list, Mapping)):
        return reply
    return await anyio.to_thread.run_sync(_kept, reply, scope)


def _names_outside(item: Any, scope: Outside) -> bool:
    if not isinstance(item, Mapping):
        return False
    for key in _URI_KEYS:
        uri = item.get(key)
        if isinstance(uri, str) and not scope.allows(uri):
            return True
    return any(_names_outside(item.get(key), scope) for key in _PART_KEYS)


def _kept(value: Any, scope: Outside) -> Any:
    """``value`` with every list item that names an outside file left out (a whole reply
    that does, a single location, becomes None)."""
    if isinstance(value, list):
        kept = []
        for item in value:
            if _names_outside(item, scope):
                scope.dropped += 1
            else:
                kept.append(_kept(item, scope))
        return kept
    if isinstance(value, Mapping):
        if _names_outside(value, scope):
            scope.dropped += 1
            return None
        return {key: _kept(part, scope) for key, part in value.items()}
    return value
