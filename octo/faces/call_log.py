"""What each call leaves behind: its counts in the runtime's meters and, at INFO, one
structured log line.

The line (logger ``octo.calls``, JSON) names the tool, how many queries the call had,
their statuses and error codes, how long it took and how many answers came from the
cache: never a query's values, a token or a file's content.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import get_args

from octo.contract import ToolSpec
from octo.core.envelope import BulkResponse
from octo.core.formats import compact_json
from octo.core.meters import Meters

logger = logging.getLogger("octo.calls")


def record_call(
    meters: Meters,
    spec: ToolSpec,
    queries: Sequence[Any],
    response: BulkResponse[Any],
    seconds: float,
) -> None:
    """Count the ``queries`` of a call of ``spec``'s tool by status and output mode, its
    time, and log its line."""
    tool = spec.name
    statuses = [result.status.value for result in response.results]
    for status, mode in zip(statuses, output_modes(spec, queries), strict=False):
        meters.query(tool, status, mode)
    meters.call_seconds(tool, seconds)
    if logger.isEnabledFor(logging.INFO):
        errors = [result.error.code for result in response.results if result.error is not None]
        logger.info(
            compact_json(
                {
                    "tool": tool,
                    "queries": len(statuses),
                    "statuses": statuses,
                    "errors": errors,
                    "ms": round(seconds * 1000, 1),
                    "cached": sum(1 for result in response.results if result.cached),
                }
            )
        )


def output_modes(spec: ToolSpec, queries: Sequence[Any]) -> list[str]:
    """Each query's outputMode as a metrics label: one of the tool's own choices (its
    default when not given), ``other`` for anything else, empty for a tool without one; so
    the label takes a handful of values whatever a client sends."""
    field = spec.query_model.model_fields.get("outputMode")
    if field is None:
        return [""] * len(queries)
    choices = {str(choice) for choice in get_args(field.annotation)}

    def label(query: Any) -> str:
        if isinstance(query, Mapping):
            asked = query.get("outputMode", field.default)
        else:
            asked = getattr(query, "outputMode", field.default)
        return asked if isinstance(asked, str) and asked in choices else "other"

    return [label(query) for query in queries]


def record_rejected(meters: Meters, tool: str, seconds: float) -> None:
    """Count a call of ``tool`` refused whole (not a list, too many queries)."""
    meters.query(tool, "rejected")
    meters.call_seconds(tool, seconds)
    logger.info(compact_json({"tool": tool, "rejected": True, "ms": round(seconds * 1000, 1)}))
