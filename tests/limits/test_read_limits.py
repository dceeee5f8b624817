"""localGetFileContent cannot stall the server: matchString regexes run in RE2 (linear time,
off the event loop, localSearchCode's dialect) and a read of a huge file ends by the query's
deadline."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.limits.conftest import Run

# Python's re needs 2**69 steps for this on a line of 69 dashes (the freeze).
CATASTROPHIC = r"^#?(-+)+x$"


async def test_a_catastrophic_regex_answers_and_the_other_queries_too(root: Path, run: Run) -> None:
    (root / "dashes.txt").write_text("-" * 69 + "\n" + "-" * 28 + "\nend\n")
    with anyio.fail_after(30):  # with Python's re this call never ends
        slow, other = await run(
            "localGetFileContent",
            [
                {"path": "dashes.txt", "matchString": CATASTROPHIC, "matchStringIsRegex": True},
                {"path": "dashes.txt", "matchString": "end"},
            ],
        )
    assert slow["status"] == "empty"
    assert slow["data"]["matchCount"] == 0
    assert other["data"]["matchCount"] == 1


async def test_the_regex_dialect_is_re2s(root: Path, run: Run) -> None:
    (root / "a.txt").write_text("alpha\n\u0394\u03ad\u03bb\u03c4\u03b1\nomega\n")
    greek, lookbehind = await run(
        "localGetFileContent",
        [
            # \p{Greek} is RE2's (and rg's) syntax; Python's re rejects it.
            {"path": "a.txt", "matchString": r"\p{Greek}+", "matchStringIsRegex": True},
            {"path": "a.txt", "matchString": "(?<=al)pha", "matchStringIsRegex": True},
        ],
    )
    assert greek["data"]["matchCount"] == 1
    assert greek["data"]["matchedLines"][0] == 2
    assert lookbehind["error"]["code"] == "INVALID_QUERY"
    assert "matchString" in lookbehind["error"]["message"]
    assert any("RE2's syntax" in hint for hint in lookbehind["hints"])


async def test_a_bad_regex_is_an_invalid_query_and_literal_text_is_not_a_regex(
    root: Path, run: Run
) -> None:
    (root / "a.txt").write_text("call(x)\n")
    bad, literal = await run(
        "localGetFileContent",
        [
            {"path": "a.txt", "matchString": "a(", "matchStringIsRegex": True},
            {"path": "a.txt", "matchString": "call("},
        ],
    )
    assert bad["error"]["code"] == "INVALID_QUERY"
    assert any("matchStringIsRegex: false" in hint for hint in bad["hints"])
    assert literal["data"]["matchCount"] == 1


@pytest.mark.slow
async def test_match_count_covers_lines_beyond_what_is_kept(root: Path, run: Run) -> None:
    (root / "many.txt").write_text("hit\n" * 12_000)
    (found,) = await run("localGetFileContent", [{"path": "many.txt", "matchString": "hit"}])
    assert found["data"]["matchCount"] == 12_000
    assert any("more matching lines" in hint for hint in found["hints"])


@pytest.mark.slow  # the redaction the answer did not wait for goes on for seconds
async def test_a_read_of_a_huge_file_ends_by_its_deadline(root: Path, run: Run) -> None:
    # Reading, decoding, redacting and splitting 190 MB into lines takes seconds; the
    # deadline is a fifth of one.
    with (root / "big.txt").open("w") as out:
        for _ in range(190):
            out.write(("password " + "x" * 90 + "\n") * 10_486)
    with anyio.fail_after(6):  # before: the read ran to its end, well past this
        (answer,) = await run(
            "localGetFileContent",
            [{"path": "big.txt"}],
            query_timeout=0.2,
            rg_max_filesize="200M",
        )
    assert answer["error"]["code"] == "TIMEOUT"
