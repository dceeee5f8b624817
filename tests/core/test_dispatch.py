"""The dispatcher: per-query validation, concurrency, order, timeouts and the error mapping."""

from __future__ import annotations

import gc
import weakref
from dataclasses import replace
from typing import Any

import anyio
import pytest

from octo.contract import Answer
from octo.contract import QueryContext
from octo.contract.runtime import Runtime
from octo.core.config import Config
from octo.core.envelope import BulkResponse
from octo.core.envelope import QueryStatus
from octo.core.envelope import ResultEnvelope
from octo.core.errors import CallError
from octo.core.errors import ErrorCode
from octo.dispatch import dispatch
from octo.faces.tool_schemas import input_schema
from octo.faces.tool_schemas import output_schema
from tests.conftest import ECHO_SPEC
from tests.conftest import EchoQuery
from tests.conftest import EchoResult


@pytest.fixture
async def runtime() -> Any:
    rt = Runtime(Config())
    yield rt
    await rt.aclose()


async def test_results_keep_query_order_and_isolate_failures(runtime: Runtime) -> None:
    queries: list[dict[str, Any]] = [
        {"value": 3, "researchGoal": "goal"},
        {"value": 500},
        {"value": 1, "behaviour": "missing"},
        {"value": 0},
        {"value": 2, "behaviour": "bug"},
    ]
    bulk = await dispatch(ECHO_SPEC, runtime, queries)
    assert [r.queryIndex for r in bulk.results] == [0, 1, 2, 3, 4]
    ok, invalid, missing, empty, bug = bulk.results
    assert ok.status is QueryStatus.SUCCESS and ok.data is not None
    assert ok.hints == ["next value: 4"] and ok.researchGoal == "goal"
    assert invalid.status is QueryStatus.ERROR and invalid.error is not None
    assert invalid.error.code is ErrorCode.VALIDATION_ERROR
    assert "value" in invalid.error.message and "500" in invalid.error.message
    # The hint is the caller's own query mended: the out-of-range value takes its bound.
    assert invalid.hints == ['Valid form of this query: echoTool {"value":100}']
    assert missing.error is not None and missing.error.code is ErrorCode.NOT_FOUND
    assert missing.hints == ["try another"]
    assert empty.status is QueryStatus.EMPTY
    assert bug.error is not None and bug.error.code is ErrorCode.INTERNAL_ERROR
    assert not bulk.all_failed


async def test_unknown_fields_and_wrong_shapes_are_validation_errors(runtime: Runtime) -> None:
    bulk = await dispatch(ECHO_SPEC, runtime, [{"value": 1, "valeu": 2}, ["not", "an", "object"]])  # type: ignore[list-item]
    typo, shape = bulk.results
    assert typo.error is not None and typo.error.code is ErrorCode.VALIDATION_ERROR
    assert "valeu" in typo.error.message and "did you mean value?" in typo.error.message
    # value is already given, so the misspelt field is dropped rather than renamed.
    assert typo.hints == ['Valid form of this query: echoTool {"value":1}']
    assert shape.error is not None and "object" in shape.error.message
    assert bulk.all_failed


async def test_queries_run_concurrently_and_time_out_alone(runtime: Runtime) -> None:
    with anyio.fail_after(5):
        bulk = await dispatch(
            ECHO_SPEC, runtime, [{"value": 1, "behaviour": "sleep"}, {"value": 2}]
        )
    slow, fast = bulk.results
    assert slow.error is not None and slow.error.code is ErrorCode.TIMEOUT
    assert fast.status is QueryStatus.SUCCESS


async def test_config_timeout_applies_when_the_tool_sets_none(runtime: Runtime) -> None:
    spec = replace(ECHO_SPEC, timeout=None)
    runtime.config = replace(runtime.config, query_timeout=0.1)
    bulk = await dispatch(spec, runtime, [{"value": 1, "behaviour": "sleep"}])
    assert bulk.results[0].error is not None
    assert bulk.results[0].error.code is ErrorCode.TIMEOUT


async def test_rate_limit_errors_carry_the_reset_time(runtime: Runtime) -> None:
    bulk = await dispatch(ECHO_SPEC, runtime, [{"value": 1, "behaviour": "ratelimit"}])
    error = bulk.results[0].error
    assert error is not None and error.code is ErrorCode.RATE_LIMIT_EXCEEDED
    assert error.resetAt == "1970-01-01T00:00:00Z"


async def test_cached_answers_say_so(runtime: Runtime) -> None:
    bulk = await dispatch(ECHO_SPEC, runtime, [{"value": 1, "behaviour": "cached"}, {"value": 1}])
    assert bulk.results[0].cached is True
    assert bulk.results[1].cached is None
    wire = bulk.to_wire()
    assert "cached" not in wire["results"][1]


@pytest.mark.parametrize("count", [0, 6])
async def test_query_count_outside_the_limit_is_a_call_error(runtime: Runtime, count: int) -> None:
    with pytest.raises(CallError) as info:
        await dispatch(ECHO_SPEC, runtime, [{"value": 1}] * count)
    assert "1-5" in info.value.message


async def test_queries_must_be_a_list(runtime: Runtime) -> None:
    with pytest.raises(CallError):
        await dispatch(ECHO_SPEC, runtime, {"value": 1})  # type: ignore[arg-type]


async def test_typed_query_models_are_accepted(runtime: Runtime) -> None:
    bulk = await dispatch(ECHO_SPEC, runtime, [EchoQuery(value=7)])
    assert bulk.results[0].data is not None
    assert bulk.results[0].data.model_dump() == {"value": 7}


def test_specs_derive_schemas_and_names() -> None:
    schema = input_schema(ECHO_SPEC)
    queries = schema["properties"]["queries"]
    assert queries["maxItems"] == 5 and queries["minItems"] == 1
    assert queries["items"]["properties"]["value"]["maximum"] == 100
    assert ECHO_SPEC.python_name == "echo_tool"
    assert not ECHO_SPEC.open_world
    assert "results" in output_schema(ECHO_SPEC)["properties"]


async def test_a_queries_context_carries_its_calls_arrival(runtime: Runtime) -> None:
    # The rank of the call's work in the runtime's queues (rg's): set once it is admitted.
    seen: list[float | None] = []

    async def arrival(ctx: QueryContext, query: EchoQuery) -> Answer[EchoResult]:
        seen.append(ctx.arrived)
        return Answer(EchoResult(value=query.value))

    spec = replace(ECHO_SPEC, handler=arrival)
    await dispatch(spec, runtime, [{"value": 1}, {"value": 2}])
    await dispatch(spec, runtime, [{"value": 3}])
    first, same, later = seen
    assert first is not None and later is not None
    assert same == first and later > first


def test_the_envelope_classes_every_call_uses_stay_built() -> None:
    # pydantic keeps a generic's parametrised class weakly: unheld, the garbage collector
    # takes it and the next call builds it again (about a millisecond each).
    envelope, bulk = weakref.ref(ResultEnvelope[Any]), weakref.ref(BulkResponse[Any])
    gc.collect()
    assert envelope() is not None
    assert bulk() is not None
