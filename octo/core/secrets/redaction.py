"""What octo must never echo: secrets in any text it returns become ``[REDACTED:kind]``.

:func:`redact` is the one output redaction. The dispatcher's finishing stage applies it to
every string of every answer, hint and error of a call (:func:`redacted`), before it cuts an
answer to its budget, so nothing leaves octo unredacted and no cut splits a secret from the
detector that finds it; no handler calls it (the semantic store redacts what it writes).
:func:`as_shown` is the same text for another use: what a tool matches and counts over.
A handler that cuts a text itself makes the text's values known first (:func:`learn`), so a
piece of one left at the cut is hidden too; one that cuts lines keeps each secret whole
(:func:`secret_spans`), and makes a private key's body lines it shows apart from their BEGIN
line known as key lines, hidden whole (:func:`learn_key_lines`).

A secret's value is secret wherever it travels: each value a redaction finds during a call
(:class:`CallSecrets`, bound by :func:`call_secrets`), and each value of a file a family
reads for its answer (:func:`learn`), is hidden in every text of that call's answers, quoted,
escaped or cut at a text's edge (a language server's ``Literal["..."]``, a structural
capture, a context line without the name). Many files' values (a workspace's) are known as
one :class:`ValueIndex` (:func:`learn_index`): each text learns those it holds first.

The detectors (``detectors.py``) run as one RE2 pattern without groups that finds each
match's span; only that span is read again, to tell its detector and its secret. RE2 never
backtracks, so redaction takes time linear in the text whatever the text holds. Private-key blocks span
lines: their body lines are followed line by line after a BEGIN line, and a line of key
material seen without its BEGIN line (a search hit in a key body) is caught by its detector.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from contextvars import ContextVar
from enum import Enum
from typing import Any
from typing import TypeVar

import re2
from cachetools import LRUCache
from pydantic import BaseModel

from octo.core.secrets.detectors import DETECTORS
from octo.core.secrets.detectors import Detector

T = TypeVar("T")


def _plain(pattern: str) -> str:
    """``pattern`` without its named groups."""
    return re.sub(r"\(\?P<\w+>", "(?:", pattern)


def _options() -> Any:
    options = re2.Options()
    options.max_mem = 64 << 20  # room for the DFA of every detector at once
    return options


def _compiled(pattern: str) -> Any:
    return re2.compile(pattern, options=_options())


# Every detector in one pattern without groups: RE2's DFA alone finds each match's span.
_ANY = _compiled("|".join(f"(?:{_plain(detector.pattern)})" for detector in DETECTORS))
# Which detectors match a whole span (the span alone: a superset of those that match it in its
# text, whose ``\b`` and ``^`` around it may fail), in one pass over the span.
_WHICH = re2.Set.FullMatchSet(_options())
for _detector in DETECTORS:
    _WHICH.Add(_plain(_detector.pattern))
_WHICH.Compile()
# Per detector: its pattern without groups, with groups, and the numbers of its secret groups.
_OWN = [
    (
        _compiled(_plain(detector.pattern)),
        grouped := _compiled(detector.pattern),
        sorted(i for name, i in grouped.groupindex.items() if name.startswith("secret")),
    )
    for detector in DETECTORS
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


def _detector_at(data: bytes, start: int, end: int) -> int | None:
    """The number of the detector that found ``data[start:end]``: the first detector matching the
    whole span in its text, as in the alternation :data:`_ANY` ran."""
    candidates: list[int] = sorted(_WHICH.Match(data[start:end]))
    if len(candidates) == 1:
        return candidates[0]
    for number in candidates:
        if _spans(_OWN[number][0], _WHOLE, data, start, end)[0][0] >= 0:
            return number
    return None


def _replace(data: bytes, start: int, end: int, found: list[tuple[str, str]]) -> str:
    """What the match ``data[start:end]`` of :data:`_ANY` becomes; only that span is read
    again (by its own detector's pattern), never the rest of the text. The secret found is
    added to ``found`` (value, kind)."""
    number = _detector_at(data, start, end)
    if number is None:
        return "[REDACTED:secret]"
    detector = DETECTORS[number]
    if detector.value_spans is not None:
        spans = detector.value_spans(data, start, end)
        return _replace_each(data, (start, end), detector, spans, found)
    _, grouped, secrets = _OWN[number]
    lo, hi = start, end
    if detector.value_span is not None:
        lo, hi = detector.value_span(data, start, end)
    elif secrets:
        spans = _spans(grouped, _WHOLE, data, start, end)
        for secret in secrets:
            if spans[secret][0] >= 0:
                lo, hi = spans[secret]
                break
    value, head = _text(data[lo:hi]), _text(data[start:lo])
    if detector.is_secret is not None and not detector.is_secret(value, head):
        return _text(data[start:end])
    if value.startswith(_MARKED):
        return _text(data[start:end])  # redacted before (a page cut from a redacted file)
    kind = _specific_kind(value) if detector.by_context else detector.kind
    found.append((value, kind))
    return f"{head}[REDACTED:{kind}]{_text(data[hi:end])}"


def _replace_each(
    data: bytes,
    match: tuple[int, int],
    detector: Detector,
    spans: list[tuple[int, int]],
    found: list[tuple[str, str]],
) -> str:
    """What a match of a detector with several secrets (at ``spans``, its ``value_spans``)
    becomes: each secret told and replaced on its own."""
    start, end = match
    parts, done = [], start
    for lo, hi in spans:
        value = _text(data[lo:hi])
        if value.startswith(_MARKED):
            continue
        if detector.is_secret is not None and not detector.is_secret(value, _text(data[start:lo])):
            continue
        kind = _specific_kind(value) if detector.by_context else detector.kind
        found.append((value, kind))
        parts += [_text(data[done:lo]), f"[REDACTED:{kind}]"]
        done = hi
    parts.append(_text(data[done:end]))
    return "".join(parts)


# The detectors that know a secret by its own form: a value found by its name that holds one
# of them is named by that kind. One search of the value, never a redaction of it again
# (a value holding ``password=`` again must not start another pass: one pass, linear).
_SPECIFIC = _compiled(
    _plain("|".join(f"(?:{detector.pattern})" for detector in DETECTORS if not detector.by_context))
)


def _specific_kind(value: str) -> str:
    data = value.encode("utf-8", "surrogatepass")
    first, last = _spans(_SPECIFIC, _SEARCH, data, 0, len(data))[0]
    detector = None if first < 0 else _detector_of(_text(data[first:last]), context=False)
    return "secret" if detector is None else detector.kind


# A private-key block over several lines: its BEGIN and END lines, and what its body holds
# (base64, PEM headers, PGP armor headers and checksum), with an optional diff prefix.
_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_BODY = re.compile(
    r"-?[ \t+]*(?:[A-Za-z0-9+/]+={0,2}|=[A-Za-z0-9+/]{4}"
    r"|(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset):[^\n]*)?[ \t]*\r?"
)
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
#: What each body line of a private key becomes (its BEGIN and END lines stay).
KEY_MARKER = "[REDACTED:private-key]"


class KeyBodies:
    """Tells the body lines of private keys among a text's lines seen one at a time, in
    order, possibly with gaps: the lines after a BEGIN line until its END line (or the first
    line that cannot be part of a key). A body line's base64 goes to ``found``, else to the
    call's :class:`CallSecrets`."""

    def __init__(self, found: list[tuple[str, str]] | None = None) -> None:
        self._in_key = False
        self._found = found

    def __call__(self, line: str) -> bool:
        """Whether ``line`` is a body line of a private key."""
        if self._in_key:
            if _END.search(line):
                self._in_key = False
                return False
            if _BODY.fullmatch(line):
                body = line.strip(" \t\r+-")
                if _BASE64.fullmatch(body):
                    _note([(body, "private-key")], self._found)
                return True
            self._in_key = False
        if "PRIVATE KEY" in line and _BEGIN.search(line) and not _END.search(line):
            self._in_key = True
        return False


class LineRedactor:
    """Redacts a text's lines seen one at a time, in order, possibly with gaps: each body
    line of a private key (:class:`KeyBodies`) becomes :data:`KEY_MARKER`."""

    def __init__(self, found: list[tuple[str, str]] | None = None) -> None:
        self._keys = KeyBodies(found)
        self._found = found

    def __call__(self, line: str) -> str:
        if self._keys(line):
            return KEY_MARKER
        return redact_line(line, self._found)


def _note(found: list[tuple[str, str]], into: list[tuple[str, str]] | None) -> None:
    """Keep the secrets ``found`` in ``into`` (a whole text's), else in the call's."""
    if into is not None:
        into.extend(found)
    elif (known := _CALL.get()) is not None:
        known.add_all(found)


def redact_line(line: str, found: list[tuple[str, str]] | None = None) -> str:
    """``line`` with the secrets of every one-line detector replaced (``line`` itself when it
    holds none); the values found go to ``found``, else to the call's
    :class:`CallSecrets`.

    One pass from left to right: each match is replaced once and the search goes on after
    it, never into what it replaced.
    """
    # Bytes: RE2 then searches on from a position without encoding the text again.
    data = line.encode("utf-8", "surrogatepass")
    first = _spans(_ANY, _SEARCH, data, 0, len(data))[0]
    if first[0] < 0:
        return line  # most lines: no generator made
    parts = []
    done = 0
    here: list[tuple[str, str]] = []
    for start, end, hidden in _hidden_matches(data, first, here):
        parts += [_text(data[done:start]), hidden]
        done = end
    parts.append(_text(data[done:]))
    _note(here, found)
    return "".join(parts)


def secret_spans(line: str) -> list[tuple[int, int]]:
    """Where the secrets a detector finds in ``line`` lie (character offsets, in order), their
    values made known to the call: the spans a cut of the line keeps whole, so the output
    redaction of what it shows finds each again (or none of it is shown)."""
    data = line.encode("utf-8", "surrogatepass")
    spans = []
    here: list[tuple[str, str]] = []
    first = _spans(_ANY, _SEARCH, data, 0, len(data))[0]
    for start, end, hidden in _hidden_matches(data, first, here):
        if hidden != _text(data[start:end]):
            first = len(_text(data[:start]))
            spans.append((first, first + len(_text(data[start:end]))))
    _note(here, None)
    return spans


def _hidden_matches(
    data: bytes, first: tuple[int, int], found: list[tuple[str, str]]
) -> Iterator[tuple[int, int, str]]:
    """Each match of :data:`_ANY` in ``data`` (byte offsets) from the ``first`` one on
    (``(-1, -1)``: none), with what it becomes, from left to right: each match is replaced
    once and the search goes on after it, never into what it replaced. The secrets found go
    to ``found``."""
    size = len(data)
    start, end = first
    while start >= 0:
        if end - start > _LONG_MATCH:
            yield start, end, _replace_long(data, start, end, found)
        else:
            yield start, end, _replace(data, start, end, found)
        if end >= size:
            break
        start, end = _spans(_ANY, _SEARCH, data, end, size)[0]


#: Above this length a match's groups are not asked of RE2 (its group search costs ten
#: times its plain search per byte): the name and separator before a value are told by
#: :data:`_HEAD`, and the rest is hidden.
_LONG_MATCH = 2048
_HEAD = re.compile(r"[^:=\n]{0,256}?(?::=|=>|[:=])[ \t]*[\"']?")


def _detector_of(span: str, context: bool | None = None) -> Detector | None:
    for detector, (plain, _, _) in zip(DETECTORS, _OWN, strict=True):
        if context in (None, detector.by_context) and plain.fullmatch(span):
            return detector
    return None


def _replace_long(data: bytes, start: int, end: int, found: list[tuple[str, str]]) -> str:
    number = _detector_at(data, start, end)
    if number is None:
        return "[REDACTED:secret]"
    detector = DETECTORS[number]
    span = _text(data[start:end])
    head = ""
    if detector.by_context and (named := _HEAD.match(span)) is not None:
        head = named.group()
    value = span[len(head) :]
    if detector.is_secret is not None and not detector.is_secret(value, head):
        return span
    kind = _specific_kind(value) if detector.by_context else detector.kind
    found.append((value, kind))
    return f"{head}[REDACTED:{kind}]"


#: Short texts :func:`redact` found nothing in: an answer holds many again (authors, file
#: names, a commit's parents), and they are not searched twice. Emptied when full.
_CLEAN: dict[str, None] = {}
_CLEAN_LONGEST = 128
_CLEAN_MOST = 1 << 14


def redact(text: str) -> str:
    """Replace secrets in ``text`` with ``[REDACTED:kind]``; everything else is untouched.

    The output redaction: the dispatcher's finishing stage applies it to every answer
    (:func:`redacted`), and the semantic store to what it writes; no handler calls it.
    A value found is hidden wherever else it occurs in ``text`` too (a password assigned
    once and passed bare further down), and is known to the call for its other texts.
    Line breaks are kept (each body line of a private key becomes :data:`KEY_MARKER`), so
    line numbers stay right.
    """
    return _with_secrets_hidden(text)


def as_shown(text: str) -> str:
    """The text octo would show of ``text``: what a tool matches, counts or selects over
    (a structural rule, ``matchString``, a search's second pass, a hit's spans), so that
    nothing it answers depends on a hidden value (the no-oracle rule). The same text every
    answer shows, its values known to the call like :func:`redact`'s."""
    return _with_secrets_hidden(text)


def holds_secret(text: str) -> bool:
    """Whether a detector finds a secret in ``text`` (a variable of a child's environment);
    the call learns nothing of it."""
    found: list[tuple[str, str]] = []
    if "PRIVATE KEY" not in text:
        return redact_line(text, found) != text
    redactor = LineRedactor(found)
    return any(redactor(line) != line for line in text.split("\n"))


def _with_secrets_hidden(text: str) -> str:
    short = len(text) <= _CLEAN_LONGEST
    if short and text in _CLEAN:
        return text
    found: list[tuple[str, str]] = []
    if "PRIVATE KEY" not in text:
        out = redact_line(text, found)
    else:
        redactor = LineRedactor(found)
        out = "\n".join(redactor(line) for line in text.split("\n"))
    if not found:
        if out != text:
            return out
        if short:
            if len(_CLEAN) >= _CLEAN_MOST:
                _CLEAN.clear()
            _CLEAN[text] = None
        return text
    values = CallSecrets()
    values.add_all(found)
    if (known := _CALL.get()) is not None:
        known.add_all(found)
    hidden = values.hide(out, edges=False)  # a whole text, not a cut one
    if len(found) < _FOUND_BEHIND.maxsize:
        with _SEEN_LOCK:
            _FOUND_BEHIND[len(hidden), hash(hidden)] = found
    return hidden


#: The secrets behind the texts :func:`redact` returned last, by length and hash (up to
#: 100,000 values): a cached redacted file makes them known to a later call (:func:`relearn`).
_FOUND_BEHIND: LRUCache[tuple[int, int], list[tuple[str, str]]] = LRUCache(
    maxsize=100_000, getsizeof=len
)


def relearn(hidden: str) -> None:
    """Make the secret values :func:`redact` hid to make ``hidden`` known to the call again:
    a redacted text taken from a cache, whose values the call's other texts may hold."""
    if (known := _CALL.get()) is None:
        return
    with _SEEN_LOCK:
        found = _FOUND_BEHIND.get((len(hidden), hash(hidden)))
    if found:
        known.add_all(found)


def secret_values(text: str) -> list[tuple[str, str]]:
    """The secrets of ``text`` as (value, kind), remembered for the texts seen last (a
    language server's file asked about query after query)."""
    key = (len(text), hash(text))
    with _SEEN_LOCK:
        seen = _SEEN.get(key)
    if seen is None:
        seen = []
        if "PRIVATE KEY" not in text:
            redact_line(text, seen)
        else:
            redactor = LineRedactor(seen)
            for line in text.split("\n"):
                redactor(line)
        if len(seen) < _SEEN.maxsize:
            with _SEEN_LOCK:
                _SEEN[key] = seen
    return seen


#: The secrets of the texts :func:`learn` saw last, by length and hash (up to 100,000).
_SEEN: LRUCache[tuple[int, int], list[tuple[str, str]]] = LRUCache(
    maxsize=100_000, getsizeof=lambda found: len(found) + 1
)
_SEEN_LOCK = threading.Lock()


def learn(text: str) -> None:
    """Make the secret values of ``text`` (a file an answer speaks of) known to the call, so
    every text of its answers hides them: a language server's hover or diagnostic quoting a
    password of the file, a structural capture of one."""
    learn_values(secret_values(text))


def learn_key_lines(lines: Iterable[str]) -> None:
    """Make the texts ``lines`` (body lines of a private key an answer shows without their
    BEGIN line, as it shows them) known to the call as hidden whole: each becomes
    :data:`KEY_MARKER` wherever a text of its answers is exactly one."""
    if (known := _CALL.get()) is not None:
        known.add_key_lines(lines)


def learn_values(found: list[tuple[str, str]]) -> None:
    """Make the secret values ``found`` (:func:`secret_values` of a text kept for later)
    known to the call."""
    if (known := _CALL.get()) is not None:
        known.add_all(found)


def learn_index(index: ValueIndex) -> None:
    """Make the secret values of ``index`` (many files') known to the call: each text of
    its answers hides those it holds (:meth:`CallSecrets.add_index`)."""
    if (known := _CALL.get()) is not None:
        known.add_index(index)


#: A value hidden wherever it occurs: shorter ones, and words of letters alone under
#: _LONG_VALUE (``changeme``, ``Bearer``: a word a detector took for a secret would otherwise
#: vanish from every answer of the call), are hidden only beside the name that marks them.
MIN_VALUE = 6
_LONG_VALUE = 16
#: A cut piece of a value at a text's edge is hidden from this many characters on.
MIN_PIECE = 8
#: A cut piece is looked for within this many characters of a value's start and end.
_PIECES_OF = 256
#: What a cut leaves after a text's end or before its start (a search line's clip marks,
#: ``[...40 chars]`` and ``[... a line of about 2000000 bytes, cut]``, too).
_CUT_MARKS = re.compile(
    r"(?:\.\.\.|\u2026|```|\[\.\.\.\]|\[\.\.\.\d+ chars\]"
    r"|\[\.\.\. a line of about \d+ bytes, cut\]|\s)*"
)
_CUT_END = re.compile(_CUT_MARKS.pattern + r"\Z")


def worth_hiding(value: str) -> bool:
    """Whether the secret ``value`` is hidden wherever it occurs (else only beside its name:
    MIN_VALUE and _LONG_VALUE)."""
    if len(value) < MIN_VALUE or value.startswith(_MARKED):
        return False
    return len(value) >= _LONG_VALUE or not value.isalpha()


#: A value every string literal writes as it is (no escape in JSON or Python).
_WRITTEN_AS_IS = re.compile(r"[A-Za-z0-9 _.+=:@#$%^&*()\[\]{}<>,;!?~|`-]*")


def _written(value: str) -> set[str]:
    """``value`` as answers may carry it: as found, unescaped when it was written escaped,
    and escaped as JSON and Python string literals write it."""
    if _WRITTEN_AS_IS.fullmatch(value):
        return {value}
    forms = {value}
    if "\\" in value:
        with contextlib.suppress(ValueError):
            forms.add(json.loads(f'"{value}"'))
    for plain in list(forms):
        forms.add(json.dumps(plain)[1:-1])
        forms.add(json.dumps(plain, ensure_ascii=False)[1:-1])
        forms.add(repr(plain)[1:-1])
        forms.add(plain.replace("\\", "\\\\").replace("'", "\\'"))
        forms.add(plain.replace("/", "\\/"))
    return {form for form in forms if len(form) >= MIN_VALUE}


def _values_options() -> Any:
    options = _options()
    options.longest_match = True  # "abc123" before its prefix "abc12"
    return options


#: A :class:`ValueIndex` reads a text's runs of _GRAM characters every _STRIDE characters:
#: each anchor (MIN_VALUE characters or more) holds one of them at an offset below _STRIDE.
_GRAM = 4
_STRIDE = MIN_VALUE - _GRAM + 1


class ValueIndex:
    """The secret values of many texts (a workspace's files), built once for the calls that
    know them all (:func:`learn_index`) and pay only for those their answers hold.

    A value's written form is held by a text that holds its first or its last MIN_PIECE
    characters (the form whole when shorter): the form whole, or a piece of it cut at the
    text's edge, as :meth:`CallSecrets.hide` hides them. One pass over the text finds them:
    dictionary lookups of runs of _GRAM characters, no pattern of every value.
    """

    def __init__(self, found: Iterable[tuple[str, str]]) -> None:
        kinds: dict[str, str] = {}
        for value, kind in found:
            if value not in kinds and worth_hiding(value):
                for form in _written(value):
                    kinds.setdefault(form, kind)
        #: Each anchor (a form's first or last MIN_PIECE characters) -> its forms and kinds.
        self._anchors: dict[str, list[tuple[str, str]]] = {}
        for form, kind in kinds.items():
            for anchor in {form[:MIN_PIECE], form[-MIN_PIECE:]}:
                self._anchors.setdefault(anchor, []).append((form, kind))
        #: Each run of an anchor at an offset below _STRIDE -> (the offset, the anchor).
        self._runs: dict[str, list[tuple[int, str]]] = {}
        for anchor in self._anchors:
            for at in range(_STRIDE):
                self._runs.setdefault(anchor[at : at + _GRAM], []).append((at, anchor))

    def held_by(self, text: str) -> dict[str, str]:
        """The form and kind of each value whose form ``text`` may hold, whole or cut."""
        held: dict[str, str] = {}
        runs, anchors = self._runs, self._anchors
        for start in range(0, len(text) - _GRAM + 1, _STRIDE):
            for at, anchor in runs.get(text[start : start + _GRAM], ()):
                if start >= at and text.startswith(anchor, start - at):
                    held.update(anchors[anchor])
        return held


class CallSecrets:
    """The secret values one call has met, each with its kind, and their hiding in text.

    Filled from worker threads and tasks alike (a lock guards it); the pattern that finds
    them (one RE2 alternation of every written form) is built again only when a value was
    added since, also by a text holding a value of a :class:`ValueIndex` the call knows.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kinds: dict[str, str] = {}
        self._finder: Any = None
        #: Each run of MIN_PIECE characters of a form -> (form, where it starts in it).
        self._pieces: dict[str, list[tuple[str, int]]] | None = None
        #: Texts hidden whole (:data:`KEY_MARKER`) when a text is exactly one of them.
        self.key_lines: set[str] = set()
        #: Values known in bulk: each text hidden learns those it holds (:meth:`add_index`).
        self._indexes: list[ValueIndex] = []

    def __bool__(self) -> bool:
        return bool(self._kinds or self.key_lines or self._indexes)

    def add_key_lines(self, lines: Iterable[str]) -> None:
        """Know each of ``lines`` (a private key's body lines as an answer shows them, apart
        from the BEGIN line that tells) as a text hidden whole; blank ones hold nothing."""
        with self._lock:
            self.key_lines.update(line for line in lines if line.strip())

    def add_all(self, found: list[tuple[str, str]]) -> None:
        """Know each (value, kind) of ``found`` worth hiding wherever it occurs."""
        for value, kind in found:
            if value in self._kinds or not worth_hiding(value):
                continue
            with self._lock:
                for form in _written(value):
                    self._kinds.setdefault(form, kind)
                self._finder = None

    def add_index(self, index: ValueIndex) -> None:
        """Know the values of ``index`` (a workspace's, built once for many calls): each
        text :meth:`hide` sees makes those it holds known, whole or cut, so the pattern of
        the call holds only the values its texts hold."""
        with self._lock:
            if all(known is not index for known in self._indexes):
                self._indexes.append(index)

    def _add_held(self, text: str) -> None:
        for index in self._indexes:
            held = index.held_by(text)
            if any(form not in self._kinds for form in held):
                with self._lock:
                    for form, kind in held.items():
                        self._kinds.setdefault(form, kind)
                    self._finder = None

    def _built(self) -> Any:
        with self._lock:
            if self._finder is None:
                forms = sorted(self._kinds, key=len, reverse=True)
                self._finder = re2.compile(
                    "|".join(re2.escape(form) for form in forms), options=_values_options()
                )
                self._pieces = None
            return self._finder

    def _built_pieces(self) -> dict[str, list[tuple[str, int]]]:
        """Built on the first text that asks (a call's answers; never a whole file's)."""
        with self._lock:
            if self._pieces is None:
                self._pieces = {}
                for form in self._kinds:
                    for at in range(min(len(form), _PIECES_OF) - MIN_PIECE + 1):
                        self._pieces.setdefault(form[at : at + MIN_PIECE], []).append((form, at))
                    for at in range(max(0, len(form) - _PIECES_OF), len(form) - MIN_PIECE + 1):
                        self._pieces.setdefault(form[at : at + MIN_PIECE], []).append((form, at))
            return self._pieces

    def hide(self, text: str, *, edges: bool = True) -> str:
        """``text`` with every known value replaced by ``[REDACTED:kind]``, and (``edges``)
        a piece of one (MIN_PIECE characters or more) cut at the text's start or end; a known
        key line (:meth:`add_key_lines`) whole."""
        if text in self.key_lines:
            return KEY_MARKER
        if len(text) < MIN_PIECE:
            return text
        if self._indexes:
            self._add_held(text)
        if not self._kinds:
            return text
        kinds = self._kinds
        out = self._built().sub(lambda m: f"[REDACTED:{kinds[m.group()]}]", text)
        return self._edges(out, self._built_pieces()) if edges else out

    def _edges(self, text: str, pieces: dict[str, list[tuple[str, int]]]) -> str:
        head = _CUT_MARKS.match(text)
        first = head.end() if head else 0
        for form, at in pieces.get(text[first : first + MIN_PIECE], ()):
            tail = form[at:]
            # Not a cut piece when a marker follows it (``password=[REDACTED:secret]``).
            if text.startswith(tail, first) and not text.startswith(_MARKED, first + len(tail)):
                text = f"{text[:first]}[REDACTED:{self._kinds[form]}]{text[first + len(tail) :]}"
                break
        trail = _CUT_END.search(text)
        last = trail.start() if trail else len(text)
        if last < MIN_PIECE:
            return text
        for form, at in pieces.get(text[last - MIN_PIECE : last], ()):
            cut = form[: at + MIN_PIECE]
            if (
                last >= len(cut)
                and text.endswith(cut, 0, last)
                and not text.endswith("]", 0, last - len(cut))
            ):
                return f"{text[: last - len(cut)]}[REDACTED:{self._kinds[form]}]{text[last:]}"
        return text


#: The secrets of the call running (None outside one); see :func:`call_secrets`.
_CALL: ContextVar[CallSecrets | None] = ContextVar("octo_call_secrets", default=None)


@contextlib.contextmanager
def call_secrets() -> Iterator[CallSecrets]:
    """Bind a new :class:`CallSecrets` to the call that runs inside: every redaction and
    :func:`learn` in its tasks and worker threads adds to it, and :func:`redacted` hides
    its values in every text."""
    known = CallSecrets()
    token = _CALL.set(known)
    try:
        yield known
    finally:
        _CALL.reset(token)


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


def known_hidden(value: T) -> T:
    """``value`` (redacted already) with every secret value the call has met hidden in each
    of its strings: the values other queries of the call found after it was redacted."""
    known = _CALL.get()
    return _walk(value, known.hide) if known else value


def redacted(value: T) -> T:
    """``value`` with every string in it redacted: models, lists, tuples and dicts are
    walked; an unchanged part is returned as is, a changed one as a copy.

    Inside a call (:func:`call_secrets`), every secret value the call has met (in ``value``
    itself too) is then hidden in every string of ``value``.
    """
    known = _CALL.get()
    lines = known.key_lines if known is not None else None
    # A key line is hidden whole before a detector could change a part of it.
    out = _walk(
        value, (lambda text: KEY_MARKER if text in lines else redact(text)) if lines else redact
    )
    if known:
        out = _walk(out, known.hide)
    return out  # type: ignore[no-any-return]


#: Leaves that hold no text: most of an answer's leaves, so tested first, by exact type.
_TEXTLESS = frozenset({type(None), int, float, bool})


def _walk(value: Any, change: Callable[[str], str]) -> Any:
    kind = type(value)
    if kind in _TEXTLESS:
        return value
    if kind is str:
        return change(value)
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return change(value)
    if isinstance(value, BaseModel):
        changes = {}
        for name, item in value.__dict__.items():  # a model's fields, without a getattr each
            new = _walk(item, change)
            if new is not item:
                changes[name] = new
        return value.model_copy(update=changes) if changes else value
    if isinstance(value, list | tuple):
        items = [_walk(item, change) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        if hasattr(value, "_fields"):  # a NamedTuple takes its fields one by one
            return type(value)(*items)
        return type(value)(items)
    if isinstance(value, Mapping):
        pairs = [(_walk(key, change), _walk(item, change)) for key, item in value.items()]
        if all(
            k is old_k and v is old_v
            for (k, v), (old_k, old_v) in zip(pairs, value.items(), strict=True)
        ):
            return value
        return dict(pairs)
    return value
