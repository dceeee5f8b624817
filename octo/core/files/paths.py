"""Where octo may read: the allowed roots, with every path resolved before it is checked."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path

from octo.core.errors import InvalidQueryError
from octo.core.errors import PathNotAllowedError

logger = logging.getLogger("octo.paths")

#: Longest file name (one path component) common file systems allow, in bytes.
_NAME_MAX = 255

#: Folders that tools fill (caches, installed dependencies, build output, virtual
#: environments): nothing to read first, nor to suggest looking into.
GENERATED_DIRS = frozenset(
    {
        "__pycache__",
        "node_modules",
        "site-packages",
        "dist-packages",
        "venv",
        "build",
        "dist",
        "target",
        "out",
        "coverage",
        "htmlcov",
        "bower_components",
        "vendor",
    }
)


def is_generated(name: str) -> bool:
    """True for a folder name tools fill (GENERATED_DIRS, dot-folders, ``*.egg-info``)."""
    return name in GENERATED_DIRS or name.startswith(".") or name.endswith(".egg-info")


def is_hidden(path: Path, root: Path) -> bool:
    """True when any component of ``path`` below ``root`` starts with a dot."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts
    return any(part.startswith(".") and part not in (".", "..") for part in parts)


def clone_root(clone_dir: Path, identity: str) -> Path:
    """The folder of the clones fetched by credential ``identity`` inside the managed clone
    folder: the only part of it a runtime of that identity reads (its extra root)."""
    return clone_dir / identity


def _names_in(folder: Path) -> list[str] | None:
    """The entries of ``folder``; None when it cannot be read or a name is not text."""
    try:
        names = os.listdir(folder)
        for name in names:
            name.encode("utf-8")
    except (OSError, UnicodeEncodeError):
        return None
    return names


class PathPolicy:
    """The allowed roots; every path is resolved (symlinks included) before it is checked.

    Roots given here are *configured* (OCTO_ROOTS, ``--root``, ``Gateway(roots=)``) and are
    the ceiling of every call: a client's roots only narrow them (:meth:`narrowed`). With
    none given, the working directory is the root and a client's roots replace it.

    ``extra_roots`` (this credential identity's clones, :func:`clone_root`) are admitted
    beside the roots in every call, whatever a client announced: :meth:`resolve` accepts a
    path below one, nothing else does (they are never searched by default nor resolve
    relative paths), so a client's roots cannot widen through them into any other folder.
    Each folder directly inside an extra root (one clone) is a root of its own: a language
    server or an index started on a clone sees that clone alone. Nothing below a ``fenced``
    folder (the whole clone folder: other identities' clones, records, work in progress)
    is allowed except through an extra root, even when a root holds it, and no walk enters
    one (:meth:`fenced_below`).
    """

    def __init__(
        self,
        roots: Iterable[Path | str],
        extra_roots: Iterable[Path | str] = (),
        fenced: Iterable[Path | str] = (),
    ) -> None:
        resolved = [Path(r).expanduser().resolve() for r in roots]
        #: True when roots were given: they are the ceiling of every call.
        self.configured = bool(resolved)
        if not resolved:
            resolved = [Path.cwd().resolve()]
        self.roots: tuple[Path, ...] = tuple(dict.fromkeys(resolved))
        self.extra_roots: tuple[Path, ...] = tuple(
            dict.fromkeys(Path(r).expanduser().resolve() for r in extra_roots)
        )
        self.fenced: tuple[Path, ...] = tuple(
            dict.fromkeys(Path(r).expanduser().resolve() for r in fenced)
        )

    def narrowed(self, client_roots: Iterable[Path | str]) -> PathPolicy:
        """The roots of a call whose client announced ``client_roots``.

        Configured roots are a ceiling: a client root inside one narrows to it, a client
        root holding some narrows to those, and one outside every root is ignored (with a
        log line). When none is left, the configured roots apply. Without configured roots
        the client's roots are the call's roots (stdio: the client is the user's own
        process).
        """
        wanted = [Path(r).expanduser().resolve() for r in client_roots]
        if not self.configured:
            return PathPolicy(wanted, self.extra_roots, self.fenced) if wanted else self
        kept: list[Path] = []
        for root in wanted:
            if self.root_of(root) is not None:
                kept.append(root)
                continue
            inner = [mine for mine in self.roots if mine.is_relative_to(root)]
            if inner:
                kept.extend(inner)
            else:
                logger.warning(
                    "client root %s is outside the configured roots (%s): ignored",
                    root,
                    ", ".join(str(r) for r in self.roots),
                )
        return PathPolicy(kept, self.extra_roots, self.fenced) if kept else self

    def fenced_below(self, start: Path, *, shared: bool = False) -> tuple[str, ...]:
        """What a walk from the resolved directory ``start`` keeps out of, as paths relative
        to it (``/``-separated, sorted): every entry of a fenced folder below ``start`` but
        the extra roots in it (other identities' clones, records, work in progress); the
        whole fenced folder where none of them is in it, or its entries cannot all be read
        and named as text. Every walk (rg's exclusion globs, octo's own walks) obeys it.

        Empty where no fenced folder lies below ``start`` (a walk inside one clone, or away
        from the clone folder). ``shared``: for what every identity reads alike (a semantic
        index), the whole fenced folder. Lists the fenced folder: blocking, call it in a
        worker thread.
        """
        fenced: list[str] = []
        for fence in self.fenced:
            if fence == start or not fence.is_relative_to(start):
                continue
            inside = fence.relative_to(start).as_posix()
            mine = set() if shared else {e.name for e in self.extra_roots if e.parent == fence}
            names = _names_in(fence)
            if names is None or not mine.intersection(names):
                fenced.append(inside)
            else:
                fenced += [f"{inside}/{name}" for name in names if name not in mine]
        return tuple(sorted(fenced))

    def root_of(self, path: Path) -> Path | None:
        """The allowed root that contains the resolved ``path``, if any (below an extra root:
        the folder directly inside it that holds ``path``); None below a fenced folder but
        outside every extra root."""
        fenced = any(path.is_relative_to(fence) for fence in self.fenced)
        for root in self.roots if not fenced else ():
            if path == root or path.is_relative_to(root):
                return root
        for extra in self.extra_roots:
            if path == extra:
                return extra
            if path.is_relative_to(extra):
                return extra / path.relative_to(extra).parts[0]
        return None

    def resolve(self, raw: str | Path) -> Path:
        """Resolve a user path (absolute, a file:// URI, or relative to a root).

        A relative path belongs to the first root under which it exists (answers give
        paths relative to their own root, so they must come back to the same file),
        else to the first root. Raises PathNotAllowedError when the real path leaves every allowed root.
        """
        text = str(raw)
        if text.startswith("file://"):
            from urllib.parse import unquote
            from urllib.parse import urlparse

            text = unquote(urlparse(text).path)
        if "\0" in text:
            raise InvalidQueryError(
                "The path holds a NUL character, which no file name can",
                hints=['Give the path as plain text, e.g. "src/app.py".'],
            )
        candidate = Path(text)
        if any(len(os.fsencode(part)) > _NAME_MAX for part in candidate.parts):
            raise InvalidQueryError(
                f"'{text[:80]}...' has a name longer than {_NAME_MAX} bytes, which no file can",
                hints=["Check the path; find files by name with localFindFiles."],
            )
        # pathlib raises RuntimeError for an unknown ~user and (before 3.13) a symlink loop,
        # OSError for a path longer than the system allows: each is this query's fault.
        try:
            candidate = candidate.expanduser()
            if not candidate.is_absolute():
                candidate = next(
                    (root / candidate for root in self.roots if (root / candidate).exists()),
                    self.roots[0] / candidate,
                )
            real = candidate.resolve()
        except (RuntimeError, OSError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            shown = text if len(text) <= 80 else f"{text[:80]}..."
            raise InvalidQueryError(
                f"'{shown}' cannot be resolved: {reason}",
                hints=[
                    "Give a path relative to an allowed root or an absolute one, without ~user "
                    "and without symbolic-link loops; find files with localFindFiles."
                ],
            ) from None
        if self.root_of(real) is None:
            raise PathNotAllowedError(
                f"'{raw}' resolves outside the allowed roots",
                hints=[
                    "Allowed roots: " + ", ".join(str(r) for r in self.roots),
                    "Use a path under one of them, or add a root to OCTO_ROOTS (an MCP client's roots only narrow it).",
                ],
            )
        return real

    def relative(self, path: Path) -> str:
        """``path`` relative to its root, for compact answers."""
        root = self.root_of(path)
        if root is None:
            return str(path)
        rel = path.relative_to(root)
        return str(rel) if str(rel) != "." else "."
