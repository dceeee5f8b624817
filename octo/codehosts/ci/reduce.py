"""A job's log read line by line, in bounded memory, into what explains its failure.

A log is hostile input: it may be gigabytes long, hold lines of megabytes, carry ANSI
escapes and carriage returns. :class:`LineSplitter` cuts the bytes into lines, keeping at
most :data:`MAX_LINE_BYTES` of each; :func:`clean` drops the runner's timestamps and the
escapes; :class:`LogReducer` splits the lines into steps (GitHub's ``##[group]Run`` lines,
GitLab's ``section_start``/``section_end`` markers) and keeps, per step, the lines that
report an error with ``context`` lines around them, the blocks they start (a traceback,
a test's failure report) and the step's last lines: never more than a fixed number of
lines per step, whatever the log's size. :class:`LinePager` keeps one page of the whole
log instead. Every answer is redacted by the dispatcher; a line cut here has its secret
values known to the call first, so a piece of one the cut leaves is hidden too.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from dataclasses import field

from octo.codehosts.ci.failures import BLOCK_LINES
from octo.codehosts.ci.failures import failed_test
from octo.codehosts.ci.failures import reports_error
from octo.codehosts.ci.failures import starts_block
from octo.core.secrets.redaction import learn

#: The bytes of one line held; the rest of a longer line is dropped as it arrives.
MAX_LINE_BYTES = 16 * 1024
#: The characters of a line an answer shows.
SHOWN_CHARS = 400
#: The characters of a line a page of the whole log shows.
PAGE_LINE_CHARS = 2000
#: The last lines of a step always shown.
TAIL_LINES = 8
#: Lines kept per step besides its last ones, and steps kept per job.
MAX_KEPT_LINES = 120
MAX_STEPS = 60
#: Failed tests named per step.
MAX_TESTS = 20

_TIMESTAMP = re.compile(r"^\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?")
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b|\r")
_SECTION = re.compile(r"section_(start|end):\d+:([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?")
_GITHUB_STEP = "##[group]Run "


#: Words one of which every line the reducer keeps for itself holds (a prefilter: a run of
#: lines without any of them is counted, not matched line by line).
_SIGNS = (
    "error", "fail", "panic", "traceback", "___", "exit code", "section_", "##[group]run ",
    "\u25cf", "\u2715", "\u00d7", "\u2716", "---- ",
)  # fmt: skip


def _may_matter(text: str) -> bool:
    lowered = text.lower()
    return any(sign in lowered for sign in _SIGNS)


#: The end of a cut line that may be the start of a secret (a token's characters).
_CUT_WORD = re.compile(r"[\w+/=.-]{1,200}$")


def cut_line(text: str, limit: int) -> str:
    """``text`` up to ``limit`` characters; a longer one ends with " …" before the word the
    cut falls in (it may be a secret's start: the line joins a step's text, where no piece
    of a value is told at its end), its secret values known to the call first."""
    if len(text) <= limit:
        return text
    learn(text)
    return f"{_CUT_WORD.sub('', text[:limit])} …"


def clean(line: str) -> str:
    """``line`` without its timestamp, section markers, ANSI escapes and carriage returns."""
    return _SECTION.sub("", _ESCAPES.sub("", _TIMESTAMP.sub("", line, count=1)))


class LineSplitter:
    """Bytes in, decoded lines out; a line is held up to MAX_LINE_BYTES, the rest dropped."""

    def __init__(self) -> None:
        self._held = bytearray()
        self._overlong = False

    def feed(self, chunk: bytes) -> list[str]:
        """The lines ``chunk`` completes."""
        lines: list[str] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            room = MAX_LINE_BYTES - len(self._held)
            if len(piece) > room:
                self._overlong = True
            self._held += piece[: max(room, 0)]
            if end < 0:
                return lines
            lines.append(self._take())
            start = end + 1

    def finish(self) -> list[str]:
        """The last line, when the log does not end with a line break."""
        return [self._take()] if self._held or self._overlong else []

    def _take(self) -> str:
        text = self._held.decode("utf-8", errors="replace")
        if self._overlong:
            # The rest of the line is dropped unseen: a secret it starts must not stay half.
            text = _CUT_WORD.sub("", text) + " …"
        self._held.clear()
        self._overlong = False
        return text


@dataclass
class _Step:
    name: str
    context: int
    lines: int = 0
    errors: int = 0
    kept: dict[int, str] = field(default_factory=dict)
    left_out: int = 0
    before: deque[tuple[int, str]] = field(default_factory=deque)
    after: int = 0
    tail: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))
    tests: list[str] = field(default_factory=list)

    def keep(self, number: int, text: str) -> None:
        if len(self.kept) < MAX_KEPT_LINES:
            self.kept[number] = text
        else:
            self.left_out += 1

    def add(self, number: int, text: str) -> None:
        self.lines += 1
        shown = cut_line(text, SHOWN_CHARS)
        if reports_error(text) or starts_block(text):
            self.errors += reports_error(text)
            for held in self.before:
                self.keep(*held)
            self.before.clear()
            self.keep(number, shown)
            self.after = max(self.after, BLOCK_LINES if starts_block(text) else self.context)
            test = failed_test(text)
            if test and test not in self.tests and len(self.tests) < MAX_TESTS:
                self.tests.append(test)
        elif self.after > 0:
            self.keep(number, shown)
            self.after -= 1
        elif self.context:
            self.before.append((number, shown))
            if len(self.before) > self.context:
                self.before.popleft()
        self.tail.append((number, shown))


@dataclass(frozen=True)
class ReducedStep:
    """One step as an answer shows it: numbered lines, "…" where lines were left out."""

    name: str
    lines: int
    errors: int
    text: str
    failed_tests: tuple[str, ...]


def numbered(lines: list[tuple[int, str]]) -> str:
    """``lines`` as "N: text", a "…" line where numbers skip."""
    out: list[str] = []
    previous: int | None = None
    for number, text in lines:
        if previous is not None and number != previous + 1:
            out.append("…")
        out.append(f"{number}: {text}")
        previous = number
    return "\n".join(out)


class LogReducer:
    """Lines in (:meth:`add`), the failed steps out (:meth:`failed_steps`).

    ``first_step`` names the lines before any step marker; :meth:`start_step` opens a step
    explicitly (a run log's archive holds a file per step).
    """

    def __init__(self, context: int, first_step: str = "Set up job") -> None:
        self.context = context
        self.first_step = first_step
        self.reset()

    def reset(self) -> None:
        """Forget every line (the log is read again from its start)."""
        self.total = 0
        self.steps: list[_Step] = [_Step(self.first_step, self.context)]
        self.dropped_steps = 0
        self._in_section = True

    def start_step(self, name: str) -> None:
        """Lines from now on belong to step ``name``."""
        if len(self.steps) >= MAX_STEPS:
            # Keep the first steps and the latest: a failure is usually near the end.
            self.steps.pop(1)
            self.dropped_steps += 1
        self.steps.append(_Step(name[:120], self.context))
        self._in_section = True

    def add(self, raw: str) -> None:
        """One line of the log as the host sent it."""
        # Numbered as fullLog numbers them: every line the host sent counts.
        self.total += 1
        markers = False
        for marker in _SECTION.finditer(raw):
            markers = True
            kind, name = marker.groups()
            if kind == "start":
                self.start_step(name)
            else:
                self._in_section = False
        text = clean(raw)
        if text.startswith(_GITHUB_STEP):
            self.start_step(text.removeprefix("##[group]"))
        if markers and not text:
            return  # a line of section markers only
        if not self._in_section:
            self.start_step("after the last section")
        self.steps[-1].add(self.total, text)

    def add_lines(self, raws: list[str]) -> None:
        """Lines of the log as the host sent them; a run of lines none of which can matter
        (no error word, no step marker, no block being kept) is only counted, its last lines
        remembered as context and tail."""
        step = self.steps[-1]
        if step.after > 0 or self.context > len(raws) or _may_matter("\n".join(raws)):
            for raw in raws:
                self.add(raw)
            return
        quiet = len(raws) - max(TAIL_LINES, self.context)
        if quiet > 0 and self._in_section:
            self.total += quiet
            step.lines += quiet
            step.before.clear()
            raws = raws[quiet:]
        for raw in raws:
            self.add(raw)

    def failed_steps(self) -> list[ReducedStep]:
        """The steps with errors, each reduced; with none, the last step that logged
        anything (a failure that printed no recognised error ends there)."""
        chosen = [step for step in self.steps if step.errors]
        if not chosen:
            logged = [step for step in self.steps if step.lines]
            chosen = logged[-1:]
        return [self._reduced(step) for step in chosen]

    def _reduced(self, step: _Step) -> ReducedStep:
        lines = dict(step.kept)
        lines.update(step.tail)
        text = numbered(sorted(lines.items()))
        if step.left_out:
            text += f"\n({step.left_out} more matching lines left out: fullLog reads them)"
        return ReducedStep(step.name, step.lines, step.errors, text, tuple(step.tests))


class LinePager:
    """One page of the whole log: lines ``first`` to ``first + count - 1`` (from 1), and
    the total number of lines."""

    def __init__(self, first: int, count: int) -> None:
        self.first = first
        self.count = count
        self.reset()

    def reset(self) -> None:
        """Forget every line (the log is read again from its start)."""
        self.total = 0
        self.kept: list[tuple[int, str]] = []

    def add_lines(self, raws: list[str]) -> None:
        """Lines of the log as the host sent them; those outside the page only counted."""
        start = self.total + 1
        if start + len(raws) <= self.first or start >= self.first + self.count:
            self.total += len(raws)
            return
        for raw in raws:
            self.add(raw)

    def add(self, raw: str) -> None:
        """One line of the log as the host sent it."""
        self.total += 1
        if self.first <= self.total < self.first + self.count:
            text = clean(raw)
            self.kept.append((self.total, cut_line(text, PAGE_LINE_CHARS)))
