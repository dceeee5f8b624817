"""The command line's reading of a bulk response: per query its status, error, data fields
(YAML-like lines) and hints, for people rather than programs (``octo call`` without
``--json``)."""

from __future__ import annotations

import json
from typing import Any


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _is_flat(value: Any) -> bool:
    """Scalars and lists of scalars fit on one line."""
    if isinstance(value, dict):
        return not value
    if isinstance(value, list):
        return not any(isinstance(item, (dict, list)) for item in value)
    return not (isinstance(value, str) and "\n" in value)


def _render_tree(value: Any, indent: int) -> list[str]:
    """YAML-like lines: one field per line, list items as "- ", multi-line text as a block."""
    pad = " " * indent
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if _is_flat(item):
                lines.append(f"{pad}{key}: {_scalar(item)}")
            elif isinstance(item, str):
                lines.append(f"{pad}{key}: |")
                lines.extend(f"{pad}  {line}" for line in item.splitlines())
            else:
                lines.append(f"{pad}{key}:")
                lines.extend(_render_tree(item, indent + 2))
        return lines
    if isinstance(value, list):
        lines = []
        for item in value:
            nested = _render_tree(item, indent + 2) if not _is_flat(item) else []
            if nested:
                lines.append(f"{pad}- {nested[0].lstrip()}")
                lines.extend(nested[1:])
            else:
                lines.append(f"{pad}- {_scalar(item)}")
        return lines
    return [f"{pad}{_scalar(value)}"]


def render_readable(wire: dict[str, Any]) -> str:
    """A bulk response for people: per query its status, error, data and hints."""
    lines: list[str] = []
    for result in wire["results"]:
        head = f"[{result['queryIndex']}] {result['status']}"
        if result.get("cached"):
            head += " (cached)"
        if result.get("partial"):
            head += " (partial)"
        if "error" in result:
            error = result["error"]
            head += f" {error['code']}: {error['message']}"
            if "resetAt" in error:
                head += f" (resets at {error['resetAt']})"
        lines.append(head)
        if "data" in result:
            lines.extend(_render_tree(result["data"], 2))
        lines.extend(f"  hint: {hint}" for hint in result.get("hints", []))
    return "\n".join(lines)
