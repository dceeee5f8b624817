"""The places a local query names: its ``path`` is one path, a list of up to 10, or globs
(``services/*``) expanded under the allowed roots by the walk's rules (:mod:`.globs`).

:func:`with_places` derives a tool's query model whose ``path`` takes all three (and the
options of :class:`~octo.contract.places.PlaceOptions`) from the single-place model, so
the single-place code keeps its ``path: str`` and never sees a list; the local tools' models
derived so are below.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated
from typing import Any
from typing import TypeVar

import anyio
from pydantic import AfterValidator
from pydantic import Field
from pydantic import WithJsonSchema
from pydantic import create_model

from octo.contract import QueryContext
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
from octo.local.places.globs import GlobRules
from octo.local.places.globs import expand_glob
from octo.local.places.globs import is_glob
from octo.local.search.models import LocalSearchCodeQuery

Q = TypeVar("Q", bound=ToolQuery)


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


async def local_places(ctx: QueryContext, paths: list[str], rules: GlobRules) -> Places:
    """The places of ``paths``, globs expanded by the walk's rules (:mod:`.globs`), labelled
    relative to their common directory. A glob that matches nothing is a failed place.

    Raises VALIDATION_ERROR when more than MAX_PLACES places come out.
    """
    policy = ctx.paths
    found: list[tuple[str, Path | None]] = []
    failed: dict[str, OctoError] = {}
    for raw in paths:
        if not is_glob(raw):
            found.append((raw, await anyio.to_thread.run_sync(_resolved, policy, raw)))
            continue
        try:
            start = await anyio.to_thread.run_sync(_glob_start, policy, raw)
            matches = await expand_glob(ctx, start, raw, rules)
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
                f"Narrow the glob, or split the places over several queries: {ctx.tool} "
                + compact_json({"path": shown[:MAX_PLACES]})
            ],
        )
    resolved = [target for _raw, target in unique if target is not None]
    root = await anyio.to_thread.run_sync(_common_folder, resolved) if resolved else None
    root = root or policy.roots[0]
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


def _glob_start(policy: PathPolicy, pattern: str) -> Path:
    """The folder a glob's fixed part names (its components before the first glob)."""
    parts = Path(pattern).parts
    fixed = next(i for i, part in enumerate(parts) if is_glob(part))
    start = policy.resolve(Path(*parts[:fixed]) if fixed else ".")
    if not start.is_dir():
        raise NotFoundError(
            f"'{pattern}' starts from '{start}', which is not a folder",
            hints=["Check the spelling; paths are absolute or relative to the first allowed root."],
        )
    return start


def _common_folder(targets: list[Path]) -> Path:
    """The folder that holds every target (a file's, its folder): the root of the labels."""
    return Path(os.path.commonpath([t if t.is_dir() else t.parent for t in targets]))


def _label(root: Path, target: Path) -> str:
    relative = os.path.relpath(target, root)
    return relative if relative != "." else target.name or str(target)


_SEVERAL = "; up to 10, or a glob."

SearchCodePlaces = with_places(
    LocalSearchCodeQuery,
    "Directory or file (absolute or root-relative); up to 10, or a glob of both.",
)
FindFilesPlaces = with_places(FindFilesQuery, "Directory (absolute or root-relative)" + _SEVERAL)
ViewStructurePlaces = with_places(
    ViewStructureQuery, "Directory (absolute or root-relative)" + _SEVERAL
)
FindAndSearchPlaces = with_places(
    FindAndSearchQuery, "Directory (absolute or root-relative)" + _SEVERAL
)
