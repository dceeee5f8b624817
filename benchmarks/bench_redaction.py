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

Then the false positives: markers per 10,000 lines of code that holds no credential, on the
Python standard library (without site-packages) and on a TypeScript project's
node_modules (``.ci/lsp/node_modules``, or the folder given as the first argument); target:
under 1. The standard library's own tests plant fake credentials (``.netrc`` lines, test
passwords, ``http://user:pass@``), which are credentials by form: the rate is printed with
them and without those test folders.

Last, the cost of hiding a call's known secret values in its answers (:func:`redacted` in a
call that met 100 values) as a ratio to redacting the same text.

Run: .venv/bin/python benchmarks/bench_redaction.py [NODE_MODULES]
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
import sysconfig
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

from octo.core.secrets.detectors import DETECTORS
from octo.core.secrets.redaction import _ANY
from octo.core.secrets.redaction import _SEARCH
from octo.core.secrets.redaction import _spans
from octo.core.secrets.redaction import call_secrets
from octo.core.secrets.redaction import learn
from octo.core.secrets.redaction import redact
from octo.core.secrets.redaction import redacted

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
_MARKER = re.compile(r"\[REDACTED:[a-z\-]+\]")


def _texts(root: Path) -> Iterator[tuple[str, str]]:
    """(path, text) of the text files below ``root``, site-packages left out."""
    for top, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if f != "site-packages")
        for name in sorted(files):
            if name.endswith(_TEXT_FILES):
                path = Path(top, name)
                yield str(path), path.read_text(errors="replace")


def _false_positives(name: str, root: Path) -> None:
    lines = markers = outside_tests = lines_outside = 0
    for path, text in _texts(root):
        count = text.count("\n") + 1
        found = len(_MARKER.findall(redact(text))) - len(_MARKER.findall(text))
        lines += count
        markers += found
        if not re.search(r"/tests?/", path):
            lines_outside += count
            outside_tests += found
    print(
        f"false positives, {name}: {markers} markers in {lines} lines ="
        f" {markers * 10_000 / max(1, lines):.2f} per 10,000 lines; outside test folders"
        f" {outside_tests} in {lines_outside} = {outside_tests * 10_000 / max(1, lines_outside):.2f}"
    )


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


def main() -> None:
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
    node_modules = Path(__file__).resolve().parent.parent / ".ci" / "lsp" / "node_modules"
    if len(sys.argv) > 1:
        node_modules = Path(sys.argv[1])
    _false_positives("the Python standard library", Path(os.path.dirname(json.__file__)).parent)
    if node_modules.is_dir():
        _false_positives(f"node_modules ({node_modules})", node_modules)
    else:
        print(f"no node_modules at {node_modules}: give one as the first argument")


if __name__ == "__main__":
    main()
