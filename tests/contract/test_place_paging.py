"""An answer of several places is paged by the query fields its result model declares: every
tool that takes several places declares them, they are its query's page fields, and a
search pages by them only where the query pages its files (groupByFile)."""

from __future__ import annotations

from typing import get_args

import pytest

from octo.contract import ToolSpec
from octo.core.queries import PageFields
from octo.local.find_and_search import FindAndSearchQuery
from octo.local.find_and_search import FindAndSearchResult
from octo.local.search.models import LocalSearchCodeQuery
from octo.local.search.models import LocalSearchCodeResult
from octo.local.search.models import OutputMode
from octo.registry import all_tools

SEVERAL_PLACES = [spec for spec in all_tools() if spec.places_reference is not None]


def test_some_tools_take_several_places() -> None:
    assert len(SEVERAL_PLACES) >= 6


@pytest.mark.parametrize("spec", SEVERAL_PLACES, ids=lambda spec: spec.name)
def test_a_tool_of_several_places_declares_the_query_fields_that_page_it(spec: ToolSpec) -> None:
    paged = spec.result_model.page_fields
    assert paged is not None, f"{spec.result_model.__name__} declares no page_fields"
    fields = spec.query_model.model_fields
    assert fields[paged.page].annotation is int
    assert fields[paged.per_page].annotation is int
    assert spec.result_model.pagination_field in spec.result_model.model_fields


@pytest.mark.parametrize("mode", get_args(OutputMode))
@pytest.mark.parametrize(
    ("query_model", "result_model"),
    [(LocalSearchCodeQuery, LocalSearchCodeResult), (FindAndSearchQuery, FindAndSearchResult)],
)
def test_a_search_is_paged_by_its_file_pages_in_group_by_file_alone(
    mode: OutputMode,
    query_model: type[LocalSearchCodeQuery],
    result_model: type[LocalSearchCodeResult],
) -> None:
    query = query_model(pattern="x", path=".", outputMode=mode)
    expected = PageFields("filePageNumber", "filesPerPage") if mode == "groupByFile" else None
    assert result_model.paged_by(query) == expected
