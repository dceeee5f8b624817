"""The places a local query names: its ``path`` is one path, a list of up to 10, or globs of
directories (``services/*``) expanded under the allowed roots.

:func:`with_places` derives a tool's query model whose ``path`` takes all three (and the
options of :class:`~octo.contract.places.PlaceOptions`) from the single-place model, so
the single-place code keeps its ``path: str`` and never sees a list; the local tools' models
derived so are below.
"""

from __future__ import annotations

import fnmatch
import os
from functools import partial
from pathlib import Path
from typing import Annotated
from typing import Any
from typing import TypeVar

import anyio
from pydantic import AfterValidator
from pydantic import Field
from pydantic import WithJsonSchema
from pydantic import create_model

from octo.contract.place_answers import Places
from octo.contract.places import MAX_PLACES
from octo.contract.places import AggregationMode
from octo.contract.places import Place
from octo.contract.places import PlaceOptions
from octo.contract.places import ResponseFormat
from octo.core.errors import NotFoundError
from octo.core.errors import OctoError
from octo.core.errors import QueryValidationError
from octo.core.files.paths import PathPolicy
from octo.core.formats import compact_json
from octo.core.queries import ToolQuery
from octo.local.find_and_search import FindAndSearchQuery
from octo.local.listing.models import FindFilesQuery
from octo.local.listing.models import ViewStructureQuery
from octo.local.search.models import LocalSearchCodeQuery

Q = TypeVar("Q", bound=ToolQuery)

_GLOB_CHARS = frozenset("*?[")


def _places(value: str | list[str]) -> str | list[str]:
    """One path, or 1-MAX_PLACES distinct ones; none empty."""
    paths = [value] if isinstance(value, str) else value
    if not 1 <= len(paths) <= MAX_PLACES:
        raise ValueError(f"path takes 1 to {MAX_PLACES} places, got {len(paths)}")
    if not all(paths):
        raise ValueError("path must not be empty")
    twice = sorted({path for path in paths if paths.count(path) > 1})
    if twice:
        raise ValueError(f"path names {', '.join(map(repr, twice))} twice")
    return value


#: Its schema is spelt compactly (tools/list goes into every context); the rules are checked
#: in code.
PathOrPaths = Annotated[
    str | list[str],
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": "string"}, "maxItems": MAX_PLACES},
            ]
        }
    ),
    AfterValidator(_places),
]


def is_glob(path: str) -> bool:
    return any(char in _GLOB_CHARS for char in path)


def with_places(model: type[Q], description: str) -> type[Q]:
    """``model`` whose ``path`` (described by ``description``) also takes a list of up to
    MAX_PLACES paths or globs of directories, with aggregationMode and responseFormat."""
    options = PlaceOptions.model_fields
    # A class of its own name, here: not a second class with the single-place model's name.
    created: type[Q] = create_model(
        model.__name__.removesuffix("Query") + "PlacesQuery",
        __base__=model,
        __module__=__name__,
        __doc__=model.__doc__,
        path=(PathOrPaths, Field(description=description)),
        aggregationMode=(AggregationMode, options["aggregationMode"]),
        responseFormat=(ResponseFormat, options["responseFormat"]),
    )
    return created


def place_paths(query: ToolQuery) -> list[str] | None:
    """The paths a query names when they are several (a list or a glob); None for one path."""
    path: Any = getattr(query, "path", None)
    if isinstance(path, str):
        return [path] if is_glob(path) else None
    return list(path)


async def local_places(policy: PathPolicy, paths: list[str], tool: str) -> Places:
    """The places of ``paths``, globs expanded, labelled relative to their common directory
    (one thread hop: it all touches disk). A glob that matches nothing is a failed place.

    Raises VALIDATION_ERROR when more than MAX_PLACES places come out.
    """
    return await anyio.to_thread.run_sync(partial(_local_places, policy, paths, tool))


def _local_places(policy: PathPolicy, paths: list[str], tool: str) -> Places:
    found: list[tuple[str, Path | None]] = []
    failed: dict[str, OctoError] = {}
    for raw in paths:
        if not is_glob(raw):
            found.append((raw, _resolved(policy, raw)))
            continue
        try:
            matches = _expand(policy, raw)
        except OctoError as exc:
            failed[raw] = exc
            found.append((raw, None))
            continue
        found += [(str(match), match) for match in matches]
    # Two spellings of one directory are one place.
    unique = list({str(target or raw): (raw, target) for raw, target in found}.values())
    if len(unique) > MAX_PLACES:
        shown = [str(target or raw) for raw, target in unique]
        raise QueryValidationError(
            f"path names {len(unique)} places; a query takes at most {MAX_PLACES}",
            hints=[
                f"Narrow the glob, or split the places over several queries: {tool} "
                + compact_json({"path": shown[:MAX_PLACES]})
            ],
        )
    resolved = [target for _raw, target in unique if target is not None]
    root = Path(os.path.commonpath(resolved)) if resolved else policy.roots[0]
    places = [
        Place(label=_label(root, target) if target else raw, target=str(target or raw))
        for raw, target in unique
    ]
    return Places(places, str(root), failed)


def _resolved(policy: PathPolicy, raw: str) -> Path | None:
    """``raw`` resolved, or None when it cannot be (its own query then says why)."""
    try:
        return policy.resolve(raw)
    except OctoError:
        return None


def _label(root: Path, target: Path) -> str:
    relative = os.path.relpath(target, root)
    return relative if relative != "." else target.name or str(target)


def _expand(policy: PathPolicy, pattern: str) -> list[Path]:
    """The directories under the allowed roots that ``pattern`` matches, sorted.

    Each component after the last one without glob characters is matched against directory
    names (fnmatch, case-sensitive); names starting with a dot only match a component that
    does too. Directories that resolve outside the roots are left out.
    """
    parts = Path(pattern).parts
    fixed = next(i for i, part in enumerate(parts) if is_glob(part))
    start = policy.resolve(Path(*parts[:fixed]) if fixed else ".")
    current = [start]
    for part in parts[fixed:]:
        current = [child for directory in current for child in _matching_dirs(directory, part)]
    inside = sorted({real for real in (p.resolve() for p in current) if policy.root_of(real)})
    if not inside:
        raise NotFoundError(
            f"No directory under the allowed roots matches '{pattern}'",
            hints=[
                "See what exists: localViewStructure "
                + compact_json({"path": str(start), "directoriesOnly": True})
            ],
        )
    return inside


def _matching_dirs(directory: Path, part: str) -> list[Path]:
    if not is_glob(part):
        child = directory / part
        return [child] if child.is_dir() else []
    try:
        with os.scandir(directory) as entries:
            return sorted(
                directory / entry.name
                for entry in entries
                if fnmatch.fnmatchcase(entry.name, part)
                and (part.startswith(".") or not entry.name.startswith("."))
                and entry.is_dir()
            )
    except OSError:
        return []


_SEVERAL = "; up to 10, or a glob."

SearchCodePlaces = with_places(
    LocalSearchCodeQuery, "Directory or file (absolute or root-relative)" + _SEVERAL
)
FindFilesPlaces = with_places(FindFilesQuery, "Directory (absolute or root-relative)" + _SEVERAL)
ViewStructurePlaces = with_places(
    ViewStructureQuery, "Directory (absolute or root-relative)" + _SEVERAL
)
FindAndSearchPlaces = with_places(
    FindAndSearchQuery, "Directory (absolute or root-relative)" + _SEVERAL
)
