"""A CI log reduced to what explains its failure: the recorded logs of pytest, jest, go test
and cargo test (recordings/), and the hostile parts of a log (escapes, endless lines)."""

from __future__ import annotations

import pytest

from octo.codehosts.ci.failures import failed_test
from octo.codehosts.ci.failures import reports_error
from octo.codehosts.ci.reduce import MAX_KEPT_LINES
from octo.codehosts.ci.reduce import MAX_LINE_BYTES
from octo.codehosts.ci.reduce import SHOWN_CHARS
from octo.codehosts.ci.reduce import TAIL_LINES
from octo.codehosts.ci.reduce import LinePager
from octo.codehosts.ci.reduce import LineSplitter
from octo.codehosts.ci.reduce import LogReducer
from octo.codehosts.ci.reduce import ReducedStep
from octo.codehosts.ci.reduce import clean
from tests.codehosts.ci.conftest import GITHUB_TOKEN_PLANTED
from tests.codehosts.ci.conftest import log


def reduced(name: str, context: int = 2, chunk: int = 97) -> list[ReducedStep]:
    """The log's failed steps, its bytes read ``chunk`` at a time (cutting lines anywhere,
    as a network read does)."""
    reducer = LogReducer(context)
    splitter = LineSplitter()
    data = log(name)
    for start in range(0, len(data), chunk):
        reducer.add_lines(splitter.feed(data[start : start + chunk]))
    reducer.add_lines(splitter.finish())
    return reducer.failed_steps()


@pytest.mark.parametrize(
    "name", ["github_pytest_job", "github_jest_job", "gitlab_go_trace", "gitlab_cargo_trace"]
)
def test_runs_of_quiet_lines_reduce_as_lines_one_by_one(name: str) -> None:
    padded = b"".join(b"ok quiet line %d\n" % n for n in range(500))
    one_by_one = LogReducer(3)
    batched = LogReducer(3)
    data = padded + log(name) + padded
    lines = data.decode().splitlines()
    for line in lines:
        one_by_one.add(line)
    for start in range(0, len(lines), 50):
        batched.add_lines(lines[start : start + 50])
    assert batched.failed_steps() == one_by_one.failed_steps()
    assert batched.total == one_by_one.total == len(lines)


def test_pytest_keeps_the_failure_report_and_names_the_test() -> None:
    [step] = reduced("github_pytest_job")
    assert step.name == "Run pytest -q"
    assert step.failed_tests == ("test_discount_rounding",)
    assert "E       AssertionError: assert Decimal('8.5000') == Decimal('8.50')" in step.text
    assert "##[error]Process completed with exit code 1." in step.text
    assert "collected 48 items" not in step.text  # nothing that explains the failure
    assert "2026-11-20T" not in step.text and "\x1b" not in step.text


def test_jest_keeps_the_expectation_and_names_the_test() -> None:
    [step] = reduced("github_jest_job")
    assert step.failed_tests == ("applies the coupon once",)
    assert "Expected: 85" in step.text and "Received: 70" in step.text
    assert "Setup" not in step.name and "checkout" not in step.text


def test_gitlab_sections_are_steps_go_test() -> None:
    steps = reduced("gitlab_go_trace")
    assert [s.name for s in steps] == ["step_script", "after the last section"]
    assert steps[0].failed_tests == ("TestMatchWildcard",)
    assert 'router_test.go:57: Match("/api/*", "/api/v1/users") = false, want true' in steps[0].text
    assert "section_start" not in steps[0].text and "get_sources" not in steps[0].text
    assert "ERROR: Job failed: exit code 1" in steps[1].text


def test_cargo_test_keeps_the_panic() -> None:
    steps = reduced("gitlab_cargo_trace")
    assert steps[0].failed_tests == ("rounds_half_even",)
    assert "panicked at src/balance.rs:88:9" in steps[0].text
    assert "  left: 1.25" in steps[0].text


def test_line_numbers_match_the_whole_log_pages() -> None:
    [step] = reduced("github_pytest_job", context=0)
    number = next(line for line in step.text.splitlines() if "FAILED tests/" in line)
    pager = LinePager(1, 1000)
    pager.add_lines(log("github_pytest_job").decode().splitlines())
    assert dict(pager.kept)[int(number.split(":")[0])].startswith("FAILED tests/")


@pytest.mark.parametrize(
    ("line", "test"),
    [
        ("FAILED tests/test_a.py::TestX::test_y[param-1] - boom", "test_y"),
        ("    --- FAIL: TestParse/empty (0.00s)", "TestParse"),
        ("test net::tests::retries ... FAILED", "retries"),
        ("[ERROR] com.acme.CartTest.totals:31 expected:<3> but was:<4> <<< FAILURE!", "totals"),
    ],
)
def test_failed_test_names_of_other_runners(line: str, test: str) -> None:
    assert reports_error(line) or line.startswith("    ---")
    assert failed_test(line) == test


@pytest.mark.parametrize(
    "line",
    [
        "src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        "  12:5  error  'x' is assigned a value but never used  no-unused-vars",
        "> Task :app:test FAILED",
        "[ERROR] BUILD FAILURE",
        "::error file=app.js,line=1::Missing semicolon",
    ],
)
def test_compiler_and_build_errors_are_reported(line: str) -> None:
    assert reports_error(line)


def test_escapes_and_timestamps_are_stripped() -> None:
    assert clean("2026-11-20T10:15:01.1234567Z \x1b[31;1mred\x1b[0m\r") == "red"


def test_an_endless_line_is_held_to_its_cap() -> None:
    splitter = LineSplitter()
    lines: list[str] = []
    for _ in range(200):
        lines += splitter.feed(b"x" * 65536)
    lines += splitter.feed(b"\nnext\n")
    assert lines[0].endswith(" …") and len(lines[0]) <= MAX_LINE_BYTES + 2
    assert lines[1] == "next"


def test_a_step_keeps_a_bounded_number_of_lines() -> None:
    reducer = LogReducer(3)
    for number in range(100_000):
        reducer.add(f"Error: failure {number}")
    [step] = reducer.failed_steps()
    assert len(step.text.splitlines()) <= MAX_KEPT_LINES + TAIL_LINES + 3
    assert "Error: failure 99999" in step.text and "more matching lines left out" in step.text


TOKEN = GITHUB_TOKEN_PLANTED


@pytest.mark.parametrize("at", [SHOWN_CHARS - 20, SHOWN_CHARS - 4, SHOWN_CHARS + 5])
def test_a_secret_cut_with_its_line_leaves_no_part_behind(at: int) -> None:
    reducer = LogReducer(0)
    reducer.add("x" * at + " " + TOKEN + " Error: after the token")
    [step] = reducer.failed_steps()
    assert "R2d2" not in step.text and "ghp_" not in step.text


def test_a_secret_at_an_endless_line_s_cut_leaves_no_part_behind() -> None:
    splitter = LineSplitter()
    line = b"x" * (MAX_LINE_BYTES - 10) + b" " + TOKEN.encode() + b" tail" * 10 + b"\n"
    [held] = splitter.feed(line)
    assert "ghp_" not in held and "R2d2" not in held
