"""Turn symbolName + lineHint (+ orderHint) into an LSP position.

Agents know a name and roughly where it is, not a column. The resolver finds
the whole-word occurrence outside comments and strings: the nth one on the
hinted line, else the nearest line within +-5 (nearer first, above before
below), else the only one in the file. Columns are UTF-16 code units, the
one position encoding every server accepts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from octo.core.errors import NotFoundError

#: How far from the hinted line the resolver looks, in lines.
LINE_TOLERANCE = 5

_HASH_COMMENT = frozenset({"python", "shell", "ruby"})


@dataclass(frozen=True)
class FoundSymbol:
    """Where a symbol was found. ``line`` is 0-based; ``character`` counts UTF-16 units."""

    line: int
    character: int
    line_offset: int
    text: str


def split_lines(text: str) -> list[str]:
    """Split like LSP does: ``\\n``, ``\\r\\n`` and ``\\r`` all end a line."""
    return re.split(r"\r\n|\r|\n", text)


def utf16_length(text: str) -> int:
    """Length of ``text`` in UTF-16 code units."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _interpolation(line: str, quote_at: int, quote: str, language: str) -> str | None:
    """What opens code inside this string: ``{`` for Python f-strings, ``${`` for JS templates."""
    if quote == "`":
        return "${"
    if language != "python":
        return None
    start = quote_at
    while start > 0 and line[start - 1].isalpha():
        start -= 1
    prefix = line[start:quote_at].lower()
    return "{" if "f" in prefix and len(prefix) <= 2 else None


def _code_mask(lines: list[str], language: str) -> list[list[bool]]:
    """Per character: True when it is code, False inside a comment or string.

    A small lexer: line comments (``#`` or ``//`` or ``--``), block comments
    (``/* */``), quotes with escapes, Python triple quotes across lines, and the
    code inside f-string / template-literal interpolations.
    """
    line_comment = "#" if language in _HASH_COMMENT else "--" if language == "lua" else "//"
    block = language not in _HASH_COMMENT
    triple = language == "python"
    state: str | None = None  # the closing delimiter we are inside of, if any
    opener: str | None = None  # what starts an interpolation in the current string
    depth = 0  # brace depth inside an interpolation (code)
    masks: list[list[bool]] = []
    for line in lines:
        mask = [True] * len(line)
        i = 0
        while i < len(line):
            if depth:
                depth += {"{": 1, "}": -1}.get(line[i], 0)
                mask[i] = depth > 0
                i += 1
                continue
            if state is not None:
                if opener and line.startswith(opener, i) and not line.startswith("{{", i):
                    mask[i : i + len(opener)] = [False] * len(opener)
                    i += len(opener)
                    depth = 1
                    continue
                if state not in ('"""', "'''", "*/") and line[i] == "\\":
                    mask[i : i + 2] = [False] * len(mask[i : i + 2])
                    i += 2
                    continue
                if line.startswith(state, i):
                    mask[i : i + len(state)] = [False] * len(state)
                    i += len(state)
                    state = opener = None
                    continue
                mask[i] = False
                i += 1
                continue
            if line.startswith(line_comment, i):
                mask[i:] = [False] * (len(line) - i)
                break
            if block and line.startswith("/*", i):
                state = "*/"
            elif triple and line.startswith(('"""', "'''"), i):
                state = line[i : i + 3]
            elif line[i] in "\"'`":
                state = line[i]
            if state is not None:
                if state != "*/":
                    opener = _interpolation(line, i, state[0], language)
                mask[i : i + len(state)] = [False] * len(state)
                i += len(state)
                continue
            i += 1
        if state in ('"', "'") and not depth:
            state = opener = None  # ordinary quotes never span lines
        masks.append(mask)
    return masks


def _matches(lines: list[str], symbol: str, language: str) -> list[list[int]]:
    """Per line, the str indexes of whole-word occurrences of ``symbol`` in code."""
    pattern = re.compile(rf"(?<![\w$]){re.escape(symbol)}(?![\w$])")
    masks = _code_mask(lines, language)
    found: list[list[int]] = []
    for line, mask in zip(lines, masks, strict=True):
        all_hits = [m.start() for m in pattern.finditer(line)]
        in_code = [i for i in all_hits if mask[i]]
        found.append(in_code)
    return found


def resolve_symbol(
    text: str, symbol: str, line_hint: int, order_hint: int = 0, *, language: str = ""
) -> FoundSymbol:
    """Find ``symbol`` near 1-based ``line_hint``; raises NotFoundError with candidates."""
    name = symbol.rsplit(".", 1)[-1] if "." in symbol else symbol
    lines = split_lines(text)
    per_line = _matches(lines, name, language)
    hinted = line_hint - 1

    def at(line_no: int, index: int) -> FoundSymbol:
        line = lines[line_no]
        return FoundSymbol(line_no, utf16_length(line[:index]), line_no - hinted, line)

    if 0 <= hinted < len(lines) and len(per_line[hinted]) > order_hint:
        return at(hinted, per_line[hinted][order_hint])
    for distance in range(1, LINE_TOLERANCE + 1):
        for line_no in (hinted - distance, hinted + distance):
            if 0 <= line_no < len(lines) and per_line[line_no]:
                return at(line_no, per_line[line_no][0])
    every = [(n, i) for n, hits in enumerate(per_line) for i in hits]
    if len(every) == 1:
        return at(*every[0])
    nearest = sorted(every, key=lambda hit: abs(hit[0] - hinted))[:3]
    # The file's values are known to the call (its one read), so a piece of one this cut
    # leaves at a hint's end is hidden by the dispatcher too.
    hints = [f"'{name}' occurs at line {n + 1}: {lines[n].strip()[:120]}" for n, _ in nearest]
    if nearest:
        hints.append("Retry with lineHint set to one of these lines.")
    else:
        hints.append(
            f"No whole-word '{name}' in code of this file; check the spelling or search with localSearchCode."
        )
    if order_hint and 0 <= hinted < len(lines) and per_line[hinted]:
        hints.insert(
            0,
            f"Line {line_hint} has {len(per_line[hinted])} occurrence(s); orderHint counts from 0.",
        )
    raise NotFoundError(
        f"Symbol '{name}' not found at line {line_hint} (+-{LINE_TOLERANCE} lines)", hints=hints
    )
