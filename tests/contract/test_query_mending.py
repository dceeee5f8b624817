"""Query mending: a query that fails its model is that query's VALIDATION_ERROR, naming each
fault, with the caller's query mended as its hint (else the tool's example)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from typing import ClassVar
from typing import Literal

import pytest
from pydantic import Field
from pydantic import model_validator

from octo.contract import ToolSpec
from octo.contract.query_mending import validate_query
from octo.core.errors import QueryValidationError
from octo.core.formats import compact_json
from octo.core.queries import FieldAlias
from octo.core.queries import ToolQuery
from octo.core.queries import mendable
from tests.conftest import ECHO_SPEC
from tests.conftest import EchoQuery


def _refusal(spec: ToolSpec, raw: Any) -> QueryValidationError:
    with pytest.raises(QueryValidationError) as info:
        validate_query(spec, raw)
    return info.value


def test_valid_queries_and_typed_models_pass() -> None:
    assert validate_query(ECHO_SPEC, {"value": 3, "researchGoal": "g"}) == EchoQuery(
        value=3, researchGoal="g"
    )
    typed = EchoQuery(value=7)
    assert validate_query(ECHO_SPEC, typed) is typed


def test_a_query_that_is_no_object_shows_the_example() -> None:
    refusal = _refusal(ECHO_SPEC, ["not", "an", "object"])
    assert "object" in refusal.message
    assert refusal.hints == ['Valid example: {"value":1}']


def test_the_hint_mends_what_it_can_and_else_shows_the_example() -> None:
    out_of_range = _refusal(ECHO_SPEC, {"value": 500})
    assert "value" in out_of_range.message and "500" in out_of_range.message
    assert out_of_range.hints == ['Valid form of this query: echoTool {"value":100}']
    assert _refusal(ECHO_SPEC, {"valeu": 7, "researchGoal": "g"}).hints == [
        'Valid form of this query: echoTool {"value":7}'
    ]
    assert _refusal(ECHO_SPEC, {"value": -3, "behaviour": 5}).hints == [
        'Valid form of this query: echoTool {"value":0}'
    ]
    # value is already given, so the misspelt field is dropped rather than renamed.
    typo = _refusal(ECHO_SPEC, {"value": 1, "valeu": 2})
    assert "valeu" in typo.message and "did you mean value?" in typo.message
    assert typo.hints == ['Valid form of this query: echoTool {"value":1}']
    # A missing required field has no value to mend with: the tool's example instead.
    assert _refusal(ECHO_SPEC, {"behaviour": "ok"}).hints == ['Valid example: {"value":1}']


class RenamedQuery(ToolQuery):
    """A query whose fields other tools name differently, with a rule across two fields."""

    value: int = Field(default=1, ge=0, le=100)
    shape: Literal["full", "brief"] = "full"
    detail: bool = False

    field_aliases: ClassVar[Mapping[str, FieldAlias]] = {
        "the_value": FieldAlias("value"),
        "brief_only": FieldAlias("shape", "brief"),
    }

    @model_validator(mode="after")
    def _brief_has_no_detail(self) -> RenamedQuery:
        if self.shape == "brief" and "detail" in self.model_fields_set:
            raise mendable("shape brief and detail do not go together; drop detail", detail=None)
        return self


RENAMED = replace(
    ECHO_SPEC,
    name="renamedTool",
    title="Renamed",
    description="Echoes a value named otherwise.",
    query_model=RenamedQuery,
)


@pytest.mark.parametrize(
    ("query", "meant", "mended"),
    [
        ({"the_value": 7}, "did you mean value?", {"value": 7}),
        ({"brief_only": True}, 'did you mean shape: "brief"?', {"shape": "brief"}),
        ({"brief_only": False, "value": 2}, 'did you mean shape: "brief"?', {"value": 2}),
        # Renamed, then out of range: mended over two rounds.
        ({"the_value": 500}, "did you mean value?", {"value": 100}),
        # Renamed, then in conflict with another field: the model names the fix.
        ({"brief_only": True, "detail": True}, 'did you mean shape: "brief"?', {"shape": "brief"}),
        ({"shape": "brief", "detail": False}, "shape brief and detail", {"shape": "brief"}),
    ],
)
def test_other_names_and_conflicts_are_mended_generically(
    query: dict[str, Any], meant: str, mended: dict[str, Any]
) -> None:
    refusal = _refusal(RENAMED, query)
    assert meant in refusal.message
    assert refusal.hints == [f"Valid form of this query: renamedTool {compact_json(mended)}"]
    validate_query(RENAMED, mended)
