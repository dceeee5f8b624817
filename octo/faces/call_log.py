"""What each call leaves behind: its counts in the runtime's meters and, at INFO, one
structured log line.

The line (logger ``octo.calls``, JSON) names the tool, how many queries the call had,
their statuses and error codes, how long it took and how many answers came from the
cache: never a query's values, a token or a file's content.
"""

from __future__ import annotations

import logging
from typing import Any

from octo.core.envelope import BulkResponse
from octo.core.formats import compact_json
from octo.core.meters import Meters

logger = logging.getLogger("octo.calls")


def record_call(meters: Meters, tool: str, response: BulkResponse[Any], seconds: float) -> None:
    """Count the queries of a call of ``tool`` by status, its time, and log its line."""
    statuses = [result.status.value for result in response.results]
    for status in statuses:
        meters.query(tool, status)
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


def record_rejected(meters: Meters, tool: str, seconds: float) -> None:
    """Count a call of ``tool`` refused whole (not a list, too many queries)."""
    meters.query(tool, "rejected")
    meters.call_seconds(tool, seconds)
    logger.info(compact_json({"tool": tool, "rejected": True, "ms": round(seconds * 1000, 1)}))
