"""The few text formats octo reads and writes everywhere: sizes, durations, times, compact JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC
from datetime import datetime
from typing import Any

_DURATION = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$")
_DURATION_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([bkmgt]?)(?:i?b)?\s*$", re.IGNORECASE)
_SIZE_FACTOR = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_duration(text: str) -> int:
    """Seconds in a duration such as "30m", "2h", "7d", "1w"; raises ValueError otherwise."""
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(
            f"'{text}' is not a duration: use a number and a unit s, m, h, d or w, e.g. \"7d\""
        )
    return int(match.group(1)) * _DURATION_SECONDS[match.group(2)]


def parse_size(text: str) -> int:
    """Bytes in a size such as "500k", "10M", "1G" or "2048" (units of 1024)."""
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(
            f"'{text}' is not a size: use bytes or a number with k, M, G or T, e.g. \"10M\""
        )
    return int(float(match.group(1)) * _SIZE_FACTOR[match.group(2).lower()])


def iso_utc(timestamp: float) -> str:
    """A Unix time as ISO 8601 in UTC to the second: ``2024-05-01T12:00:00Z``."""
    return datetime.fromtimestamp(int(timestamp), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def compact_json(value: Any) -> str:
    """``value`` as JSON without spaces (hints quote whole queries: every character counts)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def next_call(tool: str, params: Mapping[str, Any]) -> str:
    """The one form of a next-call hint: ``toolName {"field":"value"}``, the query as the
    tool takes it (the tool's name alone when the query names nothing)."""
    return f"{tool} {compact_json(dict(params))}" if params else tool


def region_marker(first: int, last: int) -> str:
    """The line that heads lines ``first``-``last`` of a file inside a text answer (matched
    regions of a file read with matchString, on every code host and locally)."""
    return f"--- lines {first}-{last} ---\n"
