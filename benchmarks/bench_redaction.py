"""Redaction cost: octo's RE2 pattern against the same shapes in Python's ``re``.

Prints, per text, the median time of ``redact`` (RE2) and of the same combined pattern run by
Python's backtracking ``re`` (the baseline), and their ratio: on ordinary code (1 MB of this
Python's standard library), on an answer full of secrets, and on adversarial text at doubling
lengths, where the backtracking engine's time grows with the square of the length or worse
and RE2's stays linear.

Then the time per MB on normal code, on 10,000 secret lines and on ``password=`` repeated
10,000 times on one line, as ratios to normal code (target: each under 2x), and the floor
under dense secrets: the time only to find each secret's span, one call of RE2's binding per
match, with nothing replaced.

Run: .venv/bin/python benchmarks/bench_redaction.py
"""

from __future__ import annotations

import re
import statistics
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

from octo.core.secrets.redaction import _ANY
from octo.core.secrets.redaction import _SEARCH
from octo.core.secrets.redaction import _spans
from octo.core.secrets.redaction import redact
from octo.core.secrets.shapes import SHAPES

ROUNDS = 7
_GROUP_NAME = re.compile(r"\(\?P<(secret\w*)>")


def _python_re() -> re.Pattern[str]:
    parts = []
    for number, shape in enumerate(SHAPES):
        body = _GROUP_NAME.sub(rf"(?P<v{number}_\1>", shape.pattern)
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


if __name__ == "__main__":
    main()
