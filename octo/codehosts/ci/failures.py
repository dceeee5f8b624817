"""What in a CI log explains a failure: the lines that report one, the blocks that follow
them (a traceback, a test runner's failure report), and the names of the tests that failed.

The patterns cover GitHub's workflow commands (``##[error]``, ``::error``), Python
tracebacks and the common runners: pytest, jest and vitest, go test, cargo test, Maven and
Gradle, tsc and eslint. They are octo's own, run on lines already cut to
:data:`MATCHED_CHARS`, so no line costs more than a bounded match.
"""

from __future__ import annotations

import re

#: The characters of a line the patterns look at.
MATCHED_CHARS = 1000

# A line that reports an error; the block after it is the query's context lines.
_ERROR = re.compile(
    "|".join(
        (
            r"##\[error\]",
            r"^::error",
            r"^E {2,}\S",  # pytest's explanation lines
            r"^(?:FAILED|ERROR)[ :]",
            r"^={3,} .*\b\d+ (?:failed|errors?)\b",
            r"^\s*FAIL\b",  # jest, vitest, go test
            "^\\s*[\u2715\u00d7] ",  # jest, vitest: a failed test
            r"^Tests?:? .*\b\d+ failed\b",
            r"_test\.go:\d+: ",
            r" \.\.\. FAILED$",
            r"panicked at",
            r"^error(?:\[E\d+\])?: ",
            r"^test result: FAILED",
            r"^\[ERROR\] ",
            r"BUILD FAILURE",
            r"^FAILURE: Build failed",
            r"^> Task \S+ FAILED",
            r"Tests run: .*Failures: [1-9]",
            r"\berror TS\d+:",
            r"^\s+\d+:\d+\s+error\s",
            r"^✖ \d+ problems?",
            r"^(?:Error|\w+Error): ",
            r"Process completed with exit code [1-9]",
            r"^ERROR: Job failed",
        )
    )
)

# A line that starts a block (a traceback, one test's failure report): kept this many lines.
_BLOCK = re.compile(
    "|".join(
        (
            r"^Traceback \(most recent call last\):",
            r"^_{3,} .+ _{3,}$",
            r"^\s*● ",
            r"^\s*--- FAIL: ",
            r"^panic: ",
            r"^---- .+ stdout ----$",
            r"^\[ERROR\] Tests run:.*<<< FAIL",
        )
    )
)
#: Lines kept after the start of a block.
BLOCK_LINES = 25

# The name of a failed test, by runner.
_TEST_NAMES = (
    re.compile(r"^FAILED \S*::([\w.]+)"),  # pytest summary
    re.compile(r"^_{3,} (?:\w+\.)?(test\w*) _{3,}$"),  # pytest report header
    re.compile("^\\s*\u25cf (?:.+ \u203a )?(.+?)\\s*$"),  # jest, vitest
    re.compile(r"^\s*--- FAIL: (\w+)"),  # go test
    re.compile(r"^test (?:\S+::)?(\w+) \.\.\. FAILED$"),  # cargo test
    re.compile(r"^\[ERROR\]\s+(?:\w+\.)*(\w+)[(:].*(?:FAILURE|ERROR|<<<)"),  # surefire
)


def reports_error(line: str) -> bool:
    """True when ``line`` reports an error or a failure."""
    return _ERROR.search(line[:MATCHED_CHARS]) is not None


def starts_block(line: str) -> bool:
    """True when ``line`` starts a block worth keeping whole (up to BLOCK_LINES lines)."""
    return _BLOCK.search(line[:MATCHED_CHARS]) is not None


def failed_test(line: str) -> str | None:
    """The name of the test ``line`` reports failed, if it reports one."""
    head = line[:MATCHED_CHARS]
    for pattern in _TEST_NAMES:
        found = pattern.search(head)
        if found:
            name = found.group(1).split("[", 1)[0].strip()
            return name[:120] or None
    return None
