"""What octo must never echo: secrets in any text it returns become ``[REDACTED:kind]``.

:func:`redact` is the one redaction function. The dispatcher applies it to every string of
every answer, hint and error (:func:`redacted`), so nothing leaves octo unredacted; code
that cuts text (pages, clipped lines) redacts before cutting, so a cut never splits a secret
from the shape that finds it.

The shapes (``shapes.py``) run as one RE2 pattern without groups that finds each
match's span; only that span is read again, to tell its shape and its secret. RE2 never
backtracks, so redaction takes time linear in the text whatever the text holds. Private-key blocks span
lines: their body lines are followed line by line after a BEGIN line, and a line of key
material seen without its BEGIN line (a search hit in a key body) is caught by its shape.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import Enum
from typing import Any
from typing import TypeVar

import re2
from pydantic import BaseModel

from octo.core.secrets.shapes import SHAPES
from octo.core.secrets.shapes import Shape

T = TypeVar("T")


def _plain(pattern: str) -> str:
    """``pattern`` without its named groups."""
    return re.sub(r"\(\?P<\w+>", "(?:", pattern)


def _options() -> Any:
    options = re2.Options()
    options.max_mem = 64 << 20  # room for the DFA of every shape at once
    return options


def _compiled(pattern: str) -> Any:
    return re2.compile(pattern, options=_options())


# Every shape in one pattern without groups: RE2's DFA alone finds each match's span.
_ANY = _compiled("|".join(f"(?:{_plain(shape.pattern)})" for shape in SHAPES))
# Which shapes match a whole span (the span alone: a superset of those that match it in its
# text, whose ``\b`` and ``^`` around it may fail), in one pass over the span.
_WHICH = re2.Set.FullMatchSet(_options())
for _shape in SHAPES:
    _WHICH.Add(_plain(_shape.pattern))
_WHICH.Compile()
# Per shape: its pattern without groups, with groups, and the numbers of its secret groups.
_OWN = [
    (
        _compiled(_plain(shape.pattern)),
        grouped := _compiled(shape.pattern),
        sorted(i for name, i in grouped.groupindex.items() if name.startswith("secret")),
    )
    for shape in SHAPES
]
_SEARCH = re2._Anchor.UNANCHORED
_WHOLE = re2._Anchor.ANCHOR_BOTH


def _spans(pattern: Any, anchor: Any, data: bytes, start: int, end: int) -> Any:
    """The group spans of ``pattern``'s match in ``data[start:end]`` (``\b`` and ``^`` see
    the text around it), ``(-1, -1)`` first when none: google-re2's compiled regexp asked
    directly, since its Python wrapper costs several times the search on short spans."""
    return pattern._regexp.Match(anchor, data, start, end)


_MARKED = "[REDACTED:"


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def _shape_at(data: bytes, start: int, end: int) -> int | None:
    """The number of the shape that found ``data[start:end]``: the first shape matching the
    whole span in its text, as in the alternation :data:`_ANY` ran."""
    candidates: list[int] = sorted(_WHICH.Match(data[start:end]))
    if len(candidates) == 1:
        return candidates[0]
    for number in candidates:
        if _spans(_OWN[number][0], _WHOLE, data, start, end)[0][0] >= 0:
            return number
    return None


def _replace(data: bytes, start: int, end: int) -> str:
    """What the match ``data[start:end]`` of :data:`_ANY` becomes; only that span is read
    again (by its own shape's pattern), never the rest of the text."""
    number = _shape_at(data, start, end)
    if number is None:
        return "[REDACTED:secret]"
    shape = SHAPES[number]
    _, grouped, secrets = _OWN[number]
    lo, hi = start, end
    if shape.value_span is not None:
        lo, hi = shape.value_span(data, start, end)
    elif secrets:
        spans = _spans(grouped, _WHOLE, data, start, end)
        for secret in secrets:
            if spans[secret][0] >= 0:
                lo, hi = spans[secret]
                break
    value, head = _text(data[lo:hi]), _text(data[start:lo])
    if shape.is_secret is not None and not shape.is_secret(value, head):
        return _text(data[start:end])
    if value.startswith(_MARKED):
        return _text(data[start:end])  # redacted before (a page cut from a redacted file)
    kind = _specific_kind(value) if shape.by_context else shape.kind
    return f"{head}[REDACTED:{kind}]{_text(data[hi:end])}"


# The shapes that know a secret by its own form: a value found by its name that holds one
# of them is named by that kind. One search of the value, never a redaction of it again
# (a value holding ``password=`` again must not start another pass: one pass, linear).
_SPECIFIC = _compiled(
    _plain("|".join(f"(?:{shape.pattern})" for shape in SHAPES if not shape.by_context))
)


def _specific_kind(value: str) -> str:
    data = value.encode("utf-8", "surrogatepass")
    first, last = _spans(_SPECIFIC, _SEARCH, data, 0, len(data))[0]
    shape = None if first < 0 else _shape_of(_text(data[first:last]), context=False)
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
    size = len(data)
    start, end = _spans(_ANY, _SEARCH, data, 0, size)[0]
    if start < 0:
        return line
    parts = []
    done = 0
    while start >= 0:
        if end - start > _LONG_MATCH:
            hidden = _replace_long(data, start, end)
        else:
            hidden = _replace(data, start, end)
        parts += [_text(data[done:start]), hidden]
        done = end
        if end >= size:
            break
        start, end = _spans(_ANY, _SEARCH, data, end, size)[0]
    parts.append(_text(data[done:]))
    return "".join(parts)


#: Above this length a match's groups are not asked of RE2 (its group search costs ten
#: times its plain search per byte): the name and separator before a value are told by
#: :data:`_HEAD`, and the rest is hidden.
_LONG_MATCH = 2048
_HEAD = re.compile(r"[^:=\n]{0,256}?(?::=|=>|[:=])[ \t]*[\"']?")


def _shape_of(span: str, context: bool | None = None) -> Shape | None:
    for shape, (plain, _, _) in zip(SHAPES, _OWN, strict=True):
        if context in (None, shape.by_context) and plain.fullmatch(span):
            return shape
    return None


def _replace_long(data: bytes, start: int, end: int) -> str:
    number = _shape_at(data, start, end)
    if number is None:
        return "[REDACTED:secret]"
    shape = SHAPES[number]
    span = _text(data[start:end])
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


#: Leaves that hold no text: most of an answer's leaves, so tested first, by exact type.
_TEXTLESS = frozenset({type(None), int, float, bool})


def _walk(value: Any) -> Any:
    kind = type(value)
    if kind in _TEXTLESS:
        return value
    if kind is str:
        return redact(value)
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, BaseModel):
        changes = {}
        for name, item in value.__dict__.items():  # a model's fields, without a getattr each
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
