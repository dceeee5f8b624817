"""What a find walks and which walked entries it keeps, in what order: the filters
localFindFiles and localFindAndSearchCode share (names, extensions, depth, time, size,
folders left out) and their sort."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from collections.abc import Sequence

from octo.core.files.confined import Opened
from octo.core.files.paths import PathPolicy
from octo.core.formats import parse_duration
from octo.core.formats import parse_size
from octo.local.listing.entries import Entry
from octo.local.listing.entries import Walk
from octo.local.listing.entries import WalkOptions
from octo.local.listing.entries import stat_entries
from octo.local.listing.models import EntryType
from octo.local.listing.models import FindFilters
from octo.local.listing.models import FindSort

Check = Callable[[Entry], bool]


def select_entries(
    start: Opened,
    walked: Walk,
    filters: FindFilters,
    now: float,
    *,
    kind: EntryType | None = None,
    checks: Sequence[Check] = (),
    named: Callable[[str, EntryType], bool] | None = None,
) -> list[Entry]:
    """The entries of ``kind`` (any when None) that ``filters``, ``named`` (on the path
    relative to the start and the kind, before any lstat) and ``checks`` keep, lstat'ed and
    in ``filters.sortBy`` order. Touches the disk: call it from a worker thread."""
    names = _name_matcher(filters.name_patterns, whole_path=filters.fullPathMatch)
    extensions = filters.wanted_extensions
    min_depth = max(filters.minDepth or 1, 1)
    files_only = bool(filters.sizeGreater or filters.sizeLess or extensions)

    def keep(rel: str, entry_kind: EntryType) -> bool:
        # Names first: they turn most entries away.
        if not names(rel) or (kind is not None and entry_kind != kind):
            return False
        if files_only and entry_kind != "file":
            return False
        if extensions and not rel.lower().endswith(extensions):
            return False
        if named is not None and not named(rel, entry_kind):
            return False
        return min_depth <= rel.count("/") + 1 <= filters.maxDepth

    every = [*_checks(filters, now), *checks]
    kept = [e for e in stat_entries(start, walked, keep) if all(c(e) for c in every)]
    kept.sort(key=_SORT_KEYS[filters.sortBy])
    return kept


#: Newest first, largest first, or A to Z; ties in path order.
_SORT_KEYS: dict[FindSort, Callable[[Entry], tuple[float, str]]] = {
    "modified": lambda e: (-e.stat.st_mtime, e.rel),
    "size": lambda e: (-e.size, e.rel),
    "path": lambda e: (0, e.rel),
}


def find_walk(filters: FindFilters, paths: PathPolicy) -> WalkOptions:
    """The walk a find's ``filters`` ask for (depth, opt-ins, folders left out) below the
    call's roots ``paths``, listing every kind of entry: each find tool narrows it to the
    kinds it keeps."""
    return WalkOptions(
        max_depth=filters.maxDepth,
        hidden=filters.hidden,
        no_ignore=filters.noIgnore,
        paths=paths,
        exclude_dirs=filters.excludeDir or (),
    )


def name_type_args(filters: FindFilters, *, rg_type: str | None) -> list[str]:
    """rg ``--files`` flags that narrow a files-only walk to the names ``filters`` keep (its
    output, not its reading: rg still reads every directory), or none where rg could mean
    something else by them. :func:`select_entries` checks the names exactly in any case.

    The names become an rg file type, not globs: an rg glob that matches a path overrides
    .gitignore. A type matches file names only, case-sensitively, and a second type
    (``rg_type``, the query's own) would be ORed with it. rg's globs know braces and
    escapes, fnmatch does not; and ``:`` ends a type's name. A type also shows the hidden
    files it matches, so the caller drops hidden paths it was not asked for.
    """
    patterns = filters.name_patterns
    if rg_type or filters.fullPathMatch or not patterns:
        return []
    if any(not sensitive or any(c in glob for c in "{}\\^:") for glob, sensitive in patterns):
        return []
    return [*(f"--type-add={_NAMES_TYPE}:{glob}" for glob, _ in patterns), f"--type={_NAMES_TYPE}"]


#: The rg file type a walk narrowed to the query's names gets.
_NAMES_TYPE = "octonames"


def _name_matcher(patterns: list[tuple[str, bool]], *, whole_path: bool) -> Callable[[str], bool]:
    """Whether an entry's path (relative to the start) matches one of ``patterns``: by its
    name, or by the whole path with ``whole_path``. The globs become one regex: a find may
    test hundreds of thousands of names."""
    if not patterns:
        return lambda _rel: True
    regex = re.compile(
        "|".join(
            fnmatch.translate(glob) if sensitive else f"(?i:{fnmatch.translate(glob)})"
            for glob, sensitive in patterns
        )
    )
    if whole_path:
        return lambda rel: regex.match(rel) is not None
    return lambda rel: regex.match(rel, rel.rfind("/") + 1) is not None


def _checks(filters: FindFilters, now: float) -> list[Check]:
    """The checks on an entry's lstat: modification time and size."""
    checks: list[Check] = []
    if filters.modifiedWithin:
        newest = now - parse_duration(filters.modifiedWithin)
        checks.append(lambda e: e.stat.st_mtime >= newest)
    if filters.modifiedBefore:
        oldest = now - parse_duration(filters.modifiedBefore)
        checks.append(lambda e: e.stat.st_mtime < oldest)
    if filters.sizeGreater:
        above = parse_size(filters.sizeGreater)
        checks.append(lambda e: e.stat.st_size > above)
    if filters.sizeLess:
        below = parse_size(filters.sizeLess)
        checks.append(lambda e: e.stat.st_size < below)
    return checks
