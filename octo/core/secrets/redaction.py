"""What octo must never echo: secrets in any text it returns become ``[REDACTED:kind]``.

:func:`redact` is the one redaction function. The dispatcher applies it to every string of
every answer, hint and error (:func:`redacted`), so nothing leaves octo unredacted; code
that cuts text (pages, clipped lines) redacts before cutting, so a cut never splits a secret
from the shape that finds it.

The shapes (``secret_shapes.py``) run as one RE2 pattern: RE2 never backtracks, so
redaction takes time linear in the text whatever the text holds. Private-key blocks span
lines: their body lines are followed line by line after a BEGIN line, and a line of key
material seen without its BEGIN line (a search hit in a key body) is caught by its shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Mapping
from enum import Enum
from typing import Any
from typing import TypeVar

import re2
from pydantic import BaseModel

from octo.core.secrets.shapes import SHAPES
from octo.core.secrets.shapes import Shape

T = TypeVar("T")

_GROUP_NAME = re.compile(r"\(\?P<(secret\w*)>")


def _plain(pattern: str) -> str:
    """``pattern`` without its named groups."""
    return re.sub(r"\(\?P<\w+>", "(?:", pattern)


def _combined(shapes: Iterable[Shape]) -> tuple[Any, list[tuple[Shape, int, list[int]]]]:
    """One RE2 pattern for every shape; per shape its group and its secret groups."""
    parts = []
    for number, shape in enumerate(shapes):
        # RE2 wants group names unique across the whole pattern: number them per shape.
        body = _GROUP_NAME.sub(rf"(?P<v{number}_\1>", shape.pattern)
        parts.append(f"(?P<r{number}>{body})")
    options = re2.Options()
    options.max_mem = 64 << 20
    pattern = re2.compile("|".join(parts), options=options)
    index = pattern.groupindex
    table = []
    for number, shape in enumerate(shapes):
        secrets = [i for name, i in index.items() if name.startswith(f"v{number}_")]
        table.append((shape, index[f"r{number}"], secrets))
    return pattern, table


_PATTERN, _TABLE = _combined(SHAPES)
# The same pattern without its groups: whether a text holds any shape is then answered by
# RE2's DFA alone, ten times faster than a search that also reports groups.
_ANY = re2.compile(_plain(_PATTERN.pattern))


_MARKED = "[REDACTED:"


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def _replace(match: Any) -> str:
    """What a match of :data:`_PATTERN` (over UTF-8 bytes) becomes."""
    data: bytes = match.string
    # Every group's span in one read: the wrapper's span() checks its argument each call,
    # which cost more than the search itself on a text of many secrets.
    spans = match._spans
    for shape, group, secrets in _TABLE:
        start, end = spans[group]
        if start < 0:
            continue
        lo, hi = start, end
        for secret in secrets:
            if spans[secret][0] >= 0:
                lo, hi = spans[secret]
                break
        value = _text(data[lo:hi])
        if shape.is_secret is not None and not shape.is_secret(value, _text(data[start:lo])):
            break
        if value.startswith(_MARKED):
            break  # redacted before (a page cut from a redacted file): left as it is
        kind = _specific_kind(value) if shape.by_context else shape.kind
        first, last = spans[0]
        return f"{_text(data[first:lo])}[REDACTED:{kind}]{_text(data[hi:last])}"
    return _text(data[spans[0][0] : spans[0][1]])


# The shapes that know a secret by its own form: a value found by its name that holds one
# of them is named by that kind. One search of the value, never a redaction of it again
# (a value holding ``password=`` again must not start another pass: one pass, linear).
_SPECIFIC = re2.compile(
    _plain("|".join(f"(?:{shape.pattern})" for shape in SHAPES if not shape.by_context))
)


def _specific_kind(value: str) -> str:
    match = _SPECIFIC.search(value)
    shape = None if match is None else _shape_of(match.group(), context=False)
    return "secret" if shape is None else shape.kind


# A private-key block over several lines: its BEGIN and END lines, and what its body holds
# (base64, PEM headers, PGP armor headers and checksum), with an optional diff prefix.
_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_BODY = re.compile(
    r"[ \t+]*(?:[A-Za-z0-9+/]+={0,2}|=[A-Za-z0-9+/]{4}"
    r"|(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset):[^\n]*)?[ \t]*\r?"
)
#: What each body line of a private key becomes (its BEGIN and END lines stay).
KEY_MARKER = "[REDACTED:private-key]"


class LineRedactor:
    """Redacts a text's lines seen one at a time, in order, possibly with gaps.

    The body lines after a BEGIN line of a private key are hidden until its END line (or
    the first line that cannot be part of a key).
    """

    def __init__(self) -> None:
        self._in_key = False

    def __call__(self, line: str) -> str:
        if self._in_key:
            if _END.search(line):
                self._in_key = False
                return line
            if _BODY.fullmatch(line):
                return KEY_MARKER
            self._in_key = False
        if _BEGIN.search(line) and not _END.search(line):
            self._in_key = True
        return redact_line(line)


def redact_line(line: str) -> str:
    """``line`` with the secrets of every one-line shape replaced (``line`` itself when it
    holds none).

    One pass from left to right: each match is replaced once and the search goes on after
    it, never into what it replaced.
    """
    # Bytes: RE2 then searches on from a position without encoding the text again.
    data = line.encode("utf-8", "surrogatepass")
    found = _ANY.search(data)
    if found is None:
        return line
    parts = []
    done = 0
    while found is not None:
        start, end = found.span()
        if end - start > _LONG_MATCH:
            hidden = _replace_long(_text(data[start:end]))
        else:
            hidden = _replace(_PATTERN.search(data, start))
        parts += [_text(data[done:start]), hidden]
        done = end
        found = _ANY.search(data, end) if end < len(data) else None
    parts.append(_text(data[done:]))
    return "".join(parts)


#: Above this length a match's groups are not asked of RE2 (its group search costs ten
#: times its plain search per byte): the shape is told by its plain pattern, the name and
#: separator before a value by :data:`_HEAD`, and the rest is hidden.
_LONG_MATCH = 2048
_HEAD = re.compile(r"[^:=\n]{0,256}?(?::=|=>|[:=])[ \t]*[\"']?")
_PLAIN = [(shape, re2.compile(_plain(shape.pattern))) for shape in SHAPES]


def _shape_of(span: str, context: bool | None = None) -> Shape | None:
    for shape, plain in _PLAIN:
        if context in (None, shape.by_context) and plain.fullmatch(span):
            return shape
    return None


def _replace_long(span: str) -> str:
    shape = _shape_of(span)
    if shape is None:
        return "[REDACTED:secret]"
    head = ""
    if shape.by_context and (named := _HEAD.match(span)) is not None:
        head = named.group()
    value = span[len(head) :]
    if shape.is_secret is not None and not shape.is_secret(value, head):
        return span
    kind = _specific_kind(value) if shape.by_context else shape.kind
    return f"{head}[REDACTED:{kind}]"


def redact(text: str) -> str:
    """Replace secrets in ``text`` with ``[REDACTED:kind]``; everything else is untouched.

    Line breaks are kept (each body line of a private key becomes :data:`KEY_MARKER`), so
    line numbers stay right.
    """
    if "PRIVATE KEY" not in text:
        return redact_line(text)
    redactor = LineRedactor()
    out = "\n".join(redactor(line) for line in text.split("\n"))
    return text if out == text else out


def key_body_lines(text: str) -> list[int]:
    """The 1-based numbers of the lines of ``text`` inside private-key blocks (their body)."""
    if "PRIVATE KEY" not in text:
        return []
    inside = False
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        if inside:
            if _END.search(line) or not _BODY.fullmatch(line):
                inside = False
            else:
                found.append(number)
                continue
        if _BEGIN.search(line) and not _END.search(line):
            inside = True
    return found


def redacted(value: T) -> T:
    """``value`` with every string in it redacted: models, lists, tuples and dicts are
    walked; an unchanged part is returned as is, a changed one as a copy."""
    return _walk(value)  # type: ignore[no-any-return]


def _walk(value: Any) -> Any:
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, BaseModel):
        changes = {}
        for name in type(value).model_fields:
            item = getattr(value, name)
            new = _walk(item)
            if new is not item:
                changes[name] = new
        return value.model_copy(update=changes) if changes else value
    if isinstance(value, list | tuple):
        items = [_walk(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        if hasattr(value, "_fields"):  # a NamedTuple takes its fields one by one
            return type(value)(*items)
        return type(value)(items)
    if isinstance(value, Mapping):
        pairs = [(_walk(key), _walk(item)) for key, item in value.items()]
        if all(
            k is old_k and v is old_v
            for (k, v), (old_k, old_v) in zip(pairs, value.items(), strict=True)
        ):
            return value
        return dict(pairs)
    return value
