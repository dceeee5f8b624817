"""Redaction cost: octo's RE2 pattern against the same detectors in Python's ``re``.

Prints, per text, the median time of ``redact`` (RE2) and of the same combined pattern run by
Python's backtracking ``re`` (the baseline), and their ratio: on ordinary code (1 MB of this
Python's standard library), on an answer full of secrets, and on adversarial text at doubling
lengths, where the backtracking engine's time grows with the square of the length or worse
and RE2's stays linear.

Then the time per MB on normal code, on 10,000 secret lines and on ``password=`` repeated
10,000 times on one line, as ratios to normal code (target: each under 2x), and the floor
under dense secrets: the time only to find each secret's span, one call of RE2's binding per
match, with nothing replaced.

Then the cost of hiding a call's known secret values in its answers (:func:`redacted` in a
call that met 100 values) as a ratio to redacting the same text; and of an LSP answer in a
call that knows a workspace's values (the standard library's: thousands), learned as one
:class:`ValueIndex` (each text learns those it holds) against learned value by value (one
pattern of them all per call).

Last, the false positives, on this interpreter's standard library (without site-packages) and
on a TypeScript project's node_modules (``.ci/lsp/node_modules``, or ``--node-modules``), two
lines each: the raw rate of markers per 10,000 lines (also outside test folders), and the same
markers split by the reviewed list ``redaction_review.json`` (each marked line, keyed by its
path and a hash of its text, is a credential, fake ones included: the standard library's tests
plant ``.netrc`` lines, test passwords and ``http://user:pass@`` URLs; or not, with a one-line
reason; a line the list does not know is counted unreviewed): the rate of markers that are not
credentials, target under 1. ``--markers`` lists every marked line (path:line, kinds, verdict,
the line as redacted, values masked); ``--only-markers`` skips the timings.

Run: .venv/bin/python benchmarks/bench_redaction.py [--node-modules DIR] [--markers] [--only-markers]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import sysconfig
import time
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from octo.core.secrets.detectors import DETECTORS
from octo.core.secrets.redaction import _ANY
from octo.core.secrets.redaction import _SEARCH
from octo.core.secrets.redaction import ValueIndex
from octo.core.secrets.redaction import _spans
from octo.core.secrets.redaction import call_secrets
from octo.core.secrets.redaction import known_hidden
from octo.core.secrets.redaction import learn
from octo.core.secrets.redaction import learn_index
from octo.core.secrets.redaction import learn_values
from octo.core.secrets.redaction import redact
from octo.core.secrets.redaction import redacted
from octo.core.secrets.redaction import secret_values

ROUNDS = 7
_GROUP_NAME = re.compile(r"\(\?P<(secret\w*)>")


def _python_re() -> re.Pattern[str]:
    parts = []
    for number, detector in enumerate(DETECTORS):
        body = _GROUP_NAME.sub(rf"(?P<v{number}_\1>", detector.pattern)
        parts.append(f"(?P<r{number}>{body})")
    return re.compile("|".join(parts))


def _median(run: Callable[[], object]) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _per_megabyte(code: str) -> None:
    """Time per MB of ``redact`` on normal code, on 10,000 secret lines and on one line of
    ``password=`` 10,000 times, each as a ratio to normal code (target: under 2x)."""
    secret_lines = "".join(f"JWT_SECRET = 'q8Xv{n}.R7tY.n3Bc'\n" for n in range(10_000))
    texts = (
        ("normal code", code),
        ("10000 secret lines", secret_lines),
        ("'password=' x 10000 on one line", "password=" * 10_000),
    )
    normal = 0.0
    for name, text in texts:
        per_mb = _median(lambda text=text: redact(text)) / (len(text) / 1_000_000)
        normal = normal or per_mb
        print(
            f"redact {name}: {per_mb * 1000:.1f} ms per MB; / normal code: {per_mb / normal:.2f}x"
        )
    # The floor under dense secrets: only finding each match's span (one call of the RE2
    # binding per match), with nothing replaced.
    data = secret_lines.encode()
    per_mb = _median(lambda: _spans_only(data)) / (len(data) / 1_000_000)
    print(
        f"find the spans of 10000 secret lines, nothing replaced: {per_mb * 1000:.1f} ms per MB;"
        f" / normal code: {per_mb / normal:.2f}x"
    )


def _spans_only(data: bytes) -> int:
    found = 0
    start, end = _spans(_ANY, _SEARCH, data, 0, len(data))[0]
    while start >= 0:
        found += 1
        start, end = _spans(_ANY, _SEARCH, data, end, len(data))[0]
    return found


_TEXT_FILES = (".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".json", ".md",
               ".txt", ".cfg", ".toml", ".yml", ".yaml", ".ini", ".sh")  # fmt: skip
_MARKER = re.compile(r"\[REDACTED:([a-z\-]+)\]")
#: The reviewed markers: corpus -> "path:line hash" -> [verdict, reason] (verdict "credential"
#: or "not"), path relative to the corpus folder, hash of the line's original text.
REVIEW = Path(__file__).with_name("redaction_review.json")


def _texts(root: Path) -> Iterator[tuple[str, str]]:
    """(path, text) of the text files below ``root``, site-packages left out."""
    for top, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if f != "site-packages")
        for name in sorted(files):
            if name.endswith(_TEXT_FILES):
                path = Path(top, name)
                yield str(path), path.read_text(errors="replace")


@dataclass(frozen=True)
class Marked:
    """One line that redaction marked: where, its review key, the kinds and count of the
    markers it gained, and the line as redacted (the values masked)."""

    where: str
    key: str
    kinds: tuple[str, ...]
    shown: str

    @property
    def count(self) -> int:
        return len(self.kinds)


def line_key(rel: str, line: str) -> str:
    """A marked line's review key: its path and a hash of its original text."""
    return f"{rel}:{hashlib.sha256(line.encode('utf-8', 'replace')).hexdigest()[:16]}"


def _marked(rel: str, text: str) -> list[Marked]:
    """The lines of ``text`` that redaction adds markers to."""
    redacted_text = redact(text)
    if _MARKER.search(redacted_text) is None:
        return []
    before, after = text.split("\n"), redacted_text.split("\n")
    if len(before) != len(after):
        kinds = _MARKER.findall(redacted_text)[len(_MARKER.findall(text)) :]
        return [Marked(f"{rel}:?", line_key(rel, text), tuple(kinds), "(the whole file)")]
    found = []
    for number, (line, shown) in enumerate(zip(before, after, strict=True), 1):
        kinds = _MARKER.findall(shown)
        gained = len(kinds) - len(_MARKER.findall(line))
        if gained > 0:
            first = _MARKER.search(shown)
            at = first.start() if first is not None else 0
            clipped = (
                shown.strip()
                if len(shown) <= 160
                else "..." + shown[max(0, at - 60) : at + 100] + "..."
            )
            found.append(
                Marked(f"{rel}:{number}", line_key(rel, line), tuple(kinds[-gained:]), clipped)
            )
    return found


def _false_positives(
    corpus: str, name: str, root: Path, review: dict[str, list[str]], listing: bool
) -> None:
    """The raw marker rate, then the rate of markers the review says are not credentials."""
    lines = markers = outside_tests = lines_outside = 0
    verdicts = {"credential": 0, "not": 0, "unreviewed": 0}
    for path, text in _texts(root):
        rel = os.path.relpath(path, root)
        count = text.count("\n") + 1
        lines += count
        in_tests = re.search(r"(?:^|/)tests?/", rel) is not None
        if not in_tests:
            lines_outside += count
        for marked in _marked(rel, text):
            markers += marked.count
            if not in_tests:
                outside_tests += marked.count
            verdict, reason = review.get(marked.key, ["unreviewed", ""])
            verdicts[verdict] += marked.count
            if listing:
                print(
                    f"  {marked.where} [{','.join(marked.kinds)}] {verdict}: {reason} | {marked.shown}"
                )
    print(
        f"false positives, {name}: {markers} markers in {lines} lines ="
        f" {markers * 10_000 / max(1, lines):.2f} per 10,000 lines; outside test folders"
        f" {outside_tests} in {lines_outside} = {outside_tests * 10_000 / max(1, lines_outside):.2f}"
    )
    unreviewed = f"; unreviewed: {verdicts['unreviewed']}" if verdicts["unreviewed"] else ""
    print(
        f"reviewed, {name}: markers: {markers}; reviewed credentials: {verdicts['credential']};"
        f" not credentials: {verdicts['not']} ="
        f" {verdicts['not'] * 10_000 / max(1, lines):.2f} per 10,000 lines{unreviewed}"
    )


def false_positive_report(node_modules: Path, listing: bool) -> None:
    """Both corpora's lines: this interpreter's standard library, and ``node_modules``."""
    review = json.loads(REVIEW.read_text()) if REVIEW.is_file() else {}
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    _false_positives(
        "stdlib",
        f"the Python standard library ({stdlib})",
        stdlib,
        review.get("stdlib", {}),
        listing,
    )
    if node_modules.is_dir():
        _false_positives(
            "node_modules",
            f"node_modules ({node_modules})",
            node_modules,
            review.get("node_modules", {}),
            listing,
        )
    else:
        print(f"no node_modules at {node_modules}: give one with --node-modules")


def _known_values_cost(code: str) -> None:
    values = [f"Zq8vR3kT{n:04d}wLm2xYp" for n in range(100)]
    learned = "".join(f'SECRET_{n} = "{value}"\n' for n, value in enumerate(values))
    answer = {"lines": code.splitlines()}
    plain = _median(lambda: redacted(answer))

    def in_call() -> object:
        with call_secrets():
            learn(learned)
            return redacted(answer)

    known = _median(in_call)
    print(
        f"redacted() of 1 MB of code as lines: {plain * 1000:.1f} ms; in a call that knows"
        f" 100 secret values: {known * 1000:.1f} ms; ratio {known / plain:.2f}x"
    )


def _workspace_values_cost(stdlib: Path, code: str) -> None:
    found: list[tuple[str, str]] = []
    for path in sorted(stdlib.rglob("*")):
        if len(found) >= 10_000:
            break
        if path.is_file() and path.stat().st_size < 1 << 20:
            found += secret_values(path.read_text(errors="replace"))
    started = time.perf_counter()
    index = ValueIndex(found)
    built = time.perf_counter() - started
    # A hover's text and its hints, as the dispatcher hides them: redacted, then sealed.
    answer = {"markdown": code[:3000], "hints": [code[n : n + 120] for n in range(0, 2400, 120)]}

    def in_call(learned: Callable[[], None]) -> Callable[[], object]:
        def run() -> object:
            with call_secrets():
                learned()
                return known_hidden(redacted(answer))

        return run

    by_value = _median(in_call(lambda: learn_values(found)))
    by_index = _median(in_call(lambda: learn_index(index)))
    print(
        f"an LSP answer in a call that knows {len(found)} workspace values: one pattern of"
        f" them all {by_value * 1000:.1f} ms; the index {by_index * 1000:.2f} ms (built once"
        f" in {built * 1000:.0f} ms); index / pattern {by_index / by_value:.3f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--node-modules",
        type=Path,
        default=Path(__file__).resolve().parent.parent / ".ci" / "lsp" / "node_modules",
    )
    parser.add_argument("--markers", action="store_true", help="list every marked line")
    parser.add_argument("--only-markers", action="store_true", help="the false positives only")
    args = parser.parse_args()
    if not args.only_markers:
        timings()
    false_positive_report(args.node_modules, args.markers)


def timings() -> None:
    """Every line but the false positives."""
    baseline = _python_re()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    code = ""
    for path in sorted(stdlib.glob("*.py")):
        code += path.read_text(errors="replace")
        if len(code) > 1_000_000:
            break
    secrets = "".join(
        f'API_TOKEN_{n} = "ghp_{n:036d}"\nDB_PASSWORD=s3cret{n}x\n' for n in range(5000)
    )
    for name, text in (("1 MB of stdlib code", code[:1_000_000]), ("10000 secret lines", secrets)):
        ours = _median(lambda text=text: redact(text))
        theirs = _median(lambda text=text: baseline.sub("", text))
        print(
            f"redact {name}: RE2 {ours * 1000:.1f} ms, Python re {theirs * 1000:.1f} ms;"
            f" RE2 / re: {ours / theirs:.2f}x"
        )
    _per_megabyte(code[:1_000_000])
    for size in (500, 1000, 2000):
        text = "x" + "a." * size
        ours = _median(lambda text=text: redact(text))
        started = time.perf_counter()
        baseline.sub("", text)
        theirs = time.perf_counter() - started
        print(
            f"redact adversarial 'a.' x {size}: RE2 {ours * 1000:.2f} ms, Python re"
            f" {theirs * 1000:.0f} ms; RE2 / re: {ours / theirs:.4f}x"
        )
    _known_values_cost(code[:1_000_000])
    _workspace_values_cost(stdlib, code)


if __name__ == "__main__":
    main()
