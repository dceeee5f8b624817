"""No answer depends on what redaction hides: counts (totalOnly, countOnly, summary), file
lists (filesOnly, filesWithMatches), matchString hits and find-and-search all come from the
redacted text of a file that holds a secret, so a pattern extended one character at a time
recovers at most the characters every answer already shows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import re2

import octo
from octo.core.config import Config
from octo.core.secrets.detectors import PREFILTER
from octo.core.secrets.redaction import redact
from tests.security.planted import PLANTED
from tests.security.planted import private_key
from tests.security.test_redaction_forms import CASES

#: Built at run time: no token-shaped literal in the tests.
TOKEN = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"
SHOWN = 'GITHUB_TOKEN = "[REDACTED:github-token]"'


@pytest.fixture
async def gateway(tmp_path: Path) -> AsyncIterator[octo.Gateway]:
    (tmp_path / "settings.py").write_text(f'import os\nGITHUB_TOKEN = "{TOKEN}"\nDEBUG = 1\n')
    (tmp_path / "plain.py").write_text("def main():\n    return 1\n")
    async with octo.Gateway(Config(), roots=[tmp_path]) as gw:
        yield gw


async def _rows(gateway: octo.Gateway, tool: str, *queries: dict[str, Any]) -> list[Any]:
    rows: list[Any] = (await gateway.call(tool, list(queries))).to_wire()["results"]
    assert all(row["status"] != "error" for row in rows), rows
    return rows


async def _total(gateway: octo.Gateway, *patterns: str) -> list[int]:
    queries = [
        {
            "pattern": p,
            "path": ".",
            "outputMode": "totalOnly",
            "smartCase": False,
            "fixedString": True,
        }
        for p in patterns
    ]
    rows = await _rows(gateway, "localSearchCode", *queries)
    return [row["data"]["stats"]["totalMatches"] for row in rows]


async def test_prefix_extension_recovers_only_what_is_shown(gateway: octo.Gateway) -> None:
    known = 'GITHUB_TOKEN = "'
    alphabet = sorted(set(TOKEN[:6]) | set("[RE"))
    for _step in range(4):
        counts = await _total(gateway, *(known + c for c in alphabet[:5]))
        counts += await _total(gateway, *(known + c for c in alphabet[5:]))
        found = [c for c, n in zip(alphabet, counts, strict=True) if n]
        if not found:
            break
        known += found[0]
    assert SHOWN.startswith(known), f"recovered {known!r}"
    assert "ghp" not in known


async def test_no_answer_confirms_a_hidden_prefix(gateway: octo.Gateway) -> None:
    probe = TOKEN[:8]
    search = await _rows(
        gateway,
        "localSearchCode",
        {"pattern": probe, "path": ".", "outputMode": "countOnly"},
        {"pattern": probe, "path": ".", "filesOnly": True},
        {"pattern": probe, "path": ".", "outputMode": "summary"},
        {"pattern": probe, "path": "."},
        {"pattern": f"TOKEN = .{probe[1:]}", "path": "."},
    )
    assert [row["status"] for row in search] == ["empty"] * 5
    found = await _rows(gateway, "localFindAndSearchCode", {"path": ".", "pattern": probe})
    assert found[0]["status"] == "empty"
    read = await _rows(
        gateway, "localGetFileContent", {"path": "settings.py", "matchString": probe}
    )
    assert read[0]["data"]["matchCount"] == 0


async def test_a_match_beside_a_secret_shows_the_marker(gateway: octo.Gateway) -> None:
    rows = await _rows(gateway, "localSearchCode", {"pattern": "GITHUB_TOKEN", "path": "."})
    assert rows[0]["data"]["stats"]["totalMatches"] == 1
    assert SHOWN in str(rows[0]) and TOKEN not in str(rows[0])
    assert await _total(gateway, "DEBUG", "def main") == [1, 1]


def test_the_prefilter_finds_every_text_redaction_changes() -> None:
    # A file the prefilter misses is searched raw: every shape must hold one of its words.
    prefilter = re2.compile(PREFILTER)
    texts = [planted.text for planted in PLANTED] + CASES + [private_key("RSA PRIVATE KEY")[0]]
    missed = [text for text in texts if redact(text) != text and not prefilter.search(text)]
    assert missed == []


async def test_a_file_changed_since_it_was_counted_is_counted_again(
    gateway: octo.Gateway, tmp_path: Path
) -> None:
    # Counts over redacted text are kept by content key and query: an edit makes a new key.
    assert await _total(gateway, "GITHUB_TOKEN") == [1]
    assert await _total(gateway, "GITHUB_TOKEN") == [1]
    settings = tmp_path / "settings.py"
    settings.write_text(settings.read_text() + f'OTHER_GITHUB_TOKEN = "{TOKEN}"\n')
    assert await _total(gateway, "GITHUB_TOKEN", TOKEN[:8]) == [2, 0]


async def test_an_alternative_matching_the_marker_probes_nothing(gateway: octo.Gateway) -> None:
    # One alternative matches the marker, the other the hidden value: whether the file is
    # listed, and its count, must not depend on which.
    answers = []
    for probe in (TOKEN[:6], "ghp_z", "nothing"):
        pattern = rf'TOKEN = "(\[|{probe})'
        rows = await _rows(
            gateway,
            "localSearchCode",
            {"pattern": pattern, "path": ".", "outputMode": "totalOnly", "smartCase": False},
            {"pattern": pattern, "path": ".", "filesOnly": True},
            {"pattern": pattern, "path": "settings.py", "outputMode": "countOnly"},
        )
        found = await _rows(gateway, "localFindAndSearchCode", {"path": ".", "pattern": pattern})
        answers.append(
            [
                rows[0]["data"]["stats"]["totalMatches"],
                rows[1]["data"]["files"],
                rows[2]["data"]["files"],
                found[0]["status"],
            ]
        )
    assert answers[0] == answers[1] == answers[2]
    assert answers[0][0] == 1 and answers[0][1] == [{"path": "settings.py"}]


async def test_a_word_of_a_marker_finds_the_files_that_hold_one(gateway: octo.Gateway) -> None:
    # "REDACTED" is in no file, but every answer shows it where a secret was.
    rows = await _rows(gateway, "localSearchCode", {"pattern": "REDACTED", "path": "."})
    assert rows[0]["data"]["stats"]["totalMatches"] == 1
    assert SHOWN in str(rows[0])
