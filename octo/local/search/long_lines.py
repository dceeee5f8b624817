"""rg's JSON events for lines too long to read whole (a minified bundle, a data file of one
200 MB line): what their first and last bytes still tell.

A match or context event keeps its line's text first and the line number after it, so the
reader keeps the event's head (the path and the start of the line) and its tail (the line
number and, when few, the submatches). The line is shown by a preview of its start, marked
as cut; an event whose tail no longer holds its line number (a line with thousands of
submatches) cannot be placed and is left out.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from octo.core.secrets.redaction import secret_spans
from octo.local.matched_lines import kept_whole
from octo.transports.capped_lines import LongLine

#: The longest JSON event read whole; a longer one is kept as a LongLine.
LONGEST_EVENT = 1024 * 1024
#: Characters of a long line shown (a search answer shows 300 of any line).
_PREVIEW_CHARS = 240

_TEXT_START = re.compile(rb'"lines":\{"(text|bytes)":"')
# Quotes inside a JSON string are escaped, so this unescaped sequence is the event's own field.
_LINE_NUMBER = re.compile(rb'"line_number":(\d+),"absolute_offset":\d+,"submatches":\[')
_FIRST_START = re.compile(rb'^\{"match":\{"(?:text|bytes)":"(?:[^"\\]|\\.)*"\},"start":(\d+)')
# Characters a secret token is made of: a preview never ends inside a run of them, so no
# token is shown cut short where the redaction would no longer recognise it.
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_.+/=~-]+\Z")


def long_event(line: LongLine) -> dict[str, Any] | None:
    """The ``data`` of a long match or context event, as rg's own JSON would hold it, with
    the line's text cut to a short preview (around the first match when it is in what was
    kept) and ``cut_note`` saying so; None when the event cannot be placed (no line number in
    what was kept)."""
    numbers = list(_LINE_NUMBER.finditer(line.tail))
    if not numbers:
        return None
    number = numbers[-1]
    first = _FIRST_START.match(line.tail, number.end())
    preview = _preview(line.head)
    focus = 0
    if first is not None and int(first[1]) < len(preview.encode()):
        focus = len(preview.encode()[: int(first[1])].decode("utf-8", errors="ignore"))
    begin = max(0, focus - _PREVIEW_CHARS // 4)
    # No cut inside a secret: the dispatcher's redaction finds it whole in the preview.
    begin, end = kept_whole(begin, begin + _PREVIEW_CHARS, secret_spans(preview))
    shown = preview[begin:end]
    return {
        "lines": {"text": (f"[...{begin} chars] " if begin else "") + shown},
        "line_number": int(number[1]),
        "submatches": [],
        "cut_note": f" [... a line of about {line.length} bytes, cut]",
    }


def _preview(head: bytes) -> str:
    """The start of the line's text in an event's ``head``, up to a safe end."""
    found = _TEXT_START.search(head)
    if found is None:
        return ""
    fragment = head[found.end() :]
    if found[1] == b"bytes":
        usable = fragment[: len(fragment) // 4 * 4]
        try:
            text = base64.b64decode(usable).decode("utf-8", errors="replace")
        except (binascii.Error, ValueError):
            text = ""
    else:
        text = _json_fragment(fragment)
    return _TOKEN_RUN.sub("", text)


def _json_fragment(fragment: bytes) -> str:
    """A JSON string's escaped content cut anywhere, decoded up to its last whole character
    (an escape sequence or a UTF-8 sequence cut in half is dropped)."""
    for trim in range(8):
        piece = fragment[: len(fragment) - trim] if trim else fragment
        try:
            decoded: str = json.loads(b'"' + piece + b'"')
        except ValueError:
            continue
        # A surrogate pair cut in half leaves a lone surrogate no JSON answer can hold.
        return decoded.encode("utf-8", "replace").decode("utf-8")
    return ""
