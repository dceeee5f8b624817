"""Globs in a local query's ``path`` (``services/*``, ``src/**/tests``, ``*.py``): what they
match is what the search or listing of their fixed part would visit.

The fixed part (the components before the first with a glob character) is walked by
``rg --files`` with the query's walk flags, so .gitignore, .ignore, .rgignore and the git
exclude file hold as they do for ``"."``, dot-entries stay out unless ``hidden: true`` and
ignored ones unless ``noIgnore: true``; no link is followed. A glob matches the folders that
hold a visible file and, for a tool whose path may name a file, the visible files
themselves (credential files only with ``includeSensitive``). Components match names as a
shell's do: ``*`` and ``?`` within one name, ``**`` any number of folders, and a name
starting with a dot only a component that does too (any, with ``hidden``).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from octo.contract import QueryContext
from octo.core.errors import NotFoundError
from octo.core.formats import compact_json
from octo.core.secrets.sensitive import is_sensitive
from octo.local.checked_paths import opened_directory
from octo.local.listing.entries import WalkOptions
from octo.local.listing.file_walk import walk
from octo.transports.ripgrep import RgQueue

_GLOB_CHARS = frozenset("*?[")
#: The depth a walk for a ``**`` glob looks at: every folder rg lists.
_ANY_DEPTH = 10**6


def is_glob(path: str) -> bool:
    """Whether ``path`` holds a glob character."""
    return any(char in _GLOB_CHARS for char in path)


@dataclass(frozen=True)
class GlobRules:
    """What a query lets its globs match: the walk's opt-ins, and whether its tool's path may
    name a file."""

    hidden: bool = False
    no_ignore: bool = False
    files: bool = False
    include_sensitive: bool = False


async def expand_glob(ctx: QueryContext, start: Path, pattern: str, rules: GlobRules) -> list[Path]:
    """The folders (and files, when ``rules.files``) below the resolved ``start`` (the fixed
    part of ``pattern``) that its glob components match, sorted; NOT_FOUND when none does."""
    parts = Path(pattern).parts
    fixed = next(i for i, part in enumerate(parts) if is_glob(part))
    globs = parts[fixed:]
    # A component that starts with a dot names dot-entries: the walk must list them.
    options = WalkOptions(
        max_depth=_ANY_DEPTH if "**" in globs else len(globs),
        hidden=rules.hidden or any(g.startswith(".") for g in globs),
        no_ignore=rules.no_ignore,
        paths=ctx.paths,
        need_symlinks=False,
    )
    with await opened_directory(ctx.paths, start, pattern) as opened:
        walked = await walk(
            opened,
            options,
            ctx.config.rg_timeout_ms,
            place=ctx.backend(RgQueue).place(ctx.arrived),
        )
    files = [
        rel
        for rel in walked.files
        if _nameable(rel) and (rules.include_sensitive or not is_sensitive(rel))
    ]
    dirs = _matching([rel for rel in walked.dirs if _nameable(rel)], globs, rules.hidden)
    matched_files = _matching(files, globs, rules.hidden)
    found = sorted(start / rel for rel in [*dirs, *(matched_files if rules.files else ())])
    if not found:
        raise _nothing_matches(ctx.tool, start, pattern, rules, matched_files)
    return found


def _nameable(rel: str) -> bool:
    """Whether a path is text a query (JSON) can name: a name that is not UTF-8 is not a place
    (the search of its folder shows it, with U+FFFD for its bytes)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _matching(rels: Sequence[str], globs: Sequence[str], hidden: bool) -> list[str]:
    return [rel for rel in rels if _matches(globs, rel.split("/"), hidden)]


def _matches(globs: Sequence[str], names: Sequence[str], hidden: bool) -> bool:
    """Whether the path ``names`` (its components) matches the glob components."""
    if not globs:
        return not names
    first, rest = globs[0], globs[1:]
    if first == "**":
        return _matches(rest, names, hidden) or (
            bool(names)
            and _name_matches("*", names[0], hidden)
            and _matches(globs, names[1:], hidden)
        )
    return (
        bool(names) and _name_matches(first, names[0], hidden) and _matches(rest, names[1:], hidden)
    )


def _name_matches(glob: str, name: str, hidden: bool) -> bool:
    if name.startswith(".") and not (hidden or glob.startswith(".")):
        return False
    return fnmatch.fnmatchcase(name, glob)


#: Where a folder tool takes file names, when it is not name / names.
_NAME_FIELDS = {"localViewStructure": "pattern or extensions"}


def _nothing_matches(
    tool: str, start: Path, pattern: str, rules: GlobRules, files: list[str]
) -> NotFoundError:
    what = "folder or file" if rules.files else "folder"
    hints = [
        "See what exists: localViewStructure "
        + compact_json({"path": str(start), "directoriesOnly": True})
    ]
    if files and not rules.files:
        hints.insert(
            0,
            f"'{pattern}' matches files only, and {tool}'s path names folders: keep the "
            f"folder in path and the file names in {_NAME_FIELDS.get(tool, 'name or names')}.",
        )
    walk_rules = "" if rules.hidden and rules.no_ignore else " (ignored and dot-entries skipped)"
    return NotFoundError(
        f"No {what} under the allowed roots matches '{pattern}'{walk_rules}", hints=hints
    )
