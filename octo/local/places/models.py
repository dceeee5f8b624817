"""The query models of the local tools whose ``path`` may name several places."""

from __future__ import annotations

from octo.local.find_search_models import FindAndSearchQuery
from octo.local.listing.models import FindFilesQuery
from octo.local.listing.models import ViewStructureQuery
from octo.local.places.paths import with_places
from octo.local.search.models import LocalSearchCodeQuery

_SEVERAL = "; or a list of up to 10 (globs of directories too: services/*)."

SearchCodePlaces = with_places(
    LocalSearchCodeQuery, "Directory (or file) to search: absolute or root-relative" + _SEVERAL
)
FindFilesPlaces = with_places(
    FindFilesQuery, "Directory to start from: absolute or root-relative" + _SEVERAL
)
ViewStructurePlaces = with_places(
    ViewStructureQuery, "Directory to list: absolute or root-relative" + _SEVERAL
)
FindAndSearchPlaces = with_places(
    FindAndSearchQuery, "Directory to find files under: absolute or root-relative" + _SEVERAL
)
