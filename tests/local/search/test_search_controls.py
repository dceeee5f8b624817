"""localSearchCode's ripgrep controls on the real rg: whole words, forced case, multiline,
one-sided context, per-query size and time limits, match columns, and the token count."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config
from tests.local.conftest import Call
from tests.local.conftest import CallOne
from tests.local.conftest import Tree
from tests.local.conftest import hinted_query
from tests.local.conftest import paths


def lines_of(envelope: dict[str, Any]) -> list[tuple[int, str]]:
    return [
        (match["lineNumber"], match["content"])
        for file in envelope["data"]["files"]
        for match in file["matches"]
    ]


async def test_word_matches_whole_words_only(tree: Tree, search: CallOne) -> None:
    tree({"a.txt": "load\nloader\nunload it\nload()\n"})
    found = await search(pattern="load", path=".", word=True)
    assert lines_of(found) == [(1, "load"), (4, "load()")]
    assert found["data"]["stats"]["totalMatches"] == 2


async def test_case_insensitive_ignores_case_whatever_the_pattern(tree: Tree, call: Call) -> None:
    tree({"a.txt": "Config\nconfig\nCONFIG\n"})
    smart, forced = await call(
        "localSearchCode",
        {"pattern": "Config", "path": "."},
        {"pattern": "Config", "path": ".", "caseInsensitive": True},
    )
    assert lines_of(smart) == [(1, "Config")]
    assert lines_of(forced) == [(1, "Config"), (2, "config"), (3, "CONFIG")]
    # Reading around a hit keeps the case rule: localGetFileContent ignores case by default.
    assert "matchStringCaseSensitive" not in hinted_query(forced, "Read around a hit")


async def test_multiline_matches_are_reported_at_their_first_line(
    tree: Tree, search: CallOne
) -> None:
    tree({"a.py": "x = 1\ndef f(\n    a,\n):\n    pass\nafter\n"})
    found = await search(pattern=r"def f\(\n\s+a", path=".", multiline=True, contextAfter=2)
    [match] = found["data"]["files"][0]["matches"]
    # The match spans lines 2-3; its after-context starts past its end.
    assert match == {"lineNumber": 2, "content": "def f(", "afterContext": ["):", "    pass"]}
    single = await search(pattern=r"def f\(\n\s+a", path=".")
    assert single["error"]["code"] == "INVALID_QUERY"
    assert any("multiline: true" in hint for hint in single["hints"])


async def test_context_before_and_after_are_independent(tree: Tree, search: CallOne) -> None:
    tree({"a.txt": "l1\nl2\nl3\nHIT4\nl5\nl6\nl7\nl8\nHIT9\nl10\n"})
    found = await search(pattern="HIT", path=".", contextBefore=2, contextAfter=1)
    assert found["data"]["files"][0]["matches"] == [
        {"lineNumber": 4, "content": "HIT4", "beforeContext": ["l2", "l3"], "afterContext": ["l5"]},
        {
            "lineNumber": 9,
            "content": "HIT9",
            "beforeContext": ["l7", "l8"],
            "afterContext": ["l10"],
        },
    ]
    before_only = await search(pattern="HIT", path=".", contextBefore=1)
    assert [m.get("afterContext") for m in before_only["data"]["files"][0]["matches"]] == [
        None,
        None,
    ]


async def test_columns_are_character_offsets_of_each_submatch(tree: Tree, search: CallOne) -> None:
    tree({"a.txt": "naïve ab ab\nplain\n", "b.txt": "ab\n"})
    found = await search(pattern="ab", path=".", columns=True)
    first = found["data"]["files"][0]["matches"][0]
    # "naïve " is 6 characters (7 bytes): offsets count characters.
    assert first["columns"] == [{"start": 6, "end": 8}, {"start": 9, "end": 11}]
    assert "naïve ab ab"[6:8] == "ab"
    assert found["data"]["files"][1]["matches"][0]["columns"] == [{"start": 0, "end": 2}]
    plain = await search(pattern="ab", path=".")
    assert "columns" not in plain["data"]["files"][0]["matches"][0]


@pytest.mark.parametrize("tool", ["localSearchCode", "localFindAndSearchCode"])
async def test_max_filesize_per_query(root: Path, tool: str) -> None:
    """Both ways to rg, walking itself or handed files (which it would read whatever
    their size), skip what is too large."""
    (root / "big.txt").write_text("needle\n" + "x" * 4096)
    (root / "small.txt").write_text("needle\n")
    async with octo.Gateway(Config(rg_max_filesize="1K"), roots=[root]) as gw:
        response = await gw.call(
            tool,
            [
                {"pattern": "needle", "path": "."},
                {"pattern": "needle", "path": ".", "maxFilesize": "1M"},
                {"pattern": "needle", "path": ".", "maxFilesize": "300M"},
                {"pattern": "needle", "path": ".", "maxFilesize": "huge"},
            ],
        )
    server, raised, above, bad = response.to_wire()["results"]
    assert paths(server) == ["small.txt"]
    assert paths(raised) == ["big.txt", "small.txt"]
    assert above["error"]["code"] == "VALIDATION_ERROR"
    assert "cap of 200M" in above["error"]["message"]
    assert hinted_query(above, "Valid form of this query")["maxFilesize"] == "200M"
    assert bad["error"]["code"] == "VALIDATION_ERROR" and "maxFilesize" in bad["error"]["message"]


async def test_timeout_per_query_is_capped_at_30_s(tree: Tree, call: Call) -> None:
    tree({"a.txt": "x\n"})
    ok, above, below = await call(
        "localSearchCode",
        {"pattern": "x", "path": ".", "timeoutMs": 30000},
        {"pattern": "x", "path": ".", "timeoutMs": 60000},
        {"pattern": "x", "path": ".", "timeoutMs": 5},
    )
    assert ok["status"] == "success"
    assert above["error"]["code"] == "VALIDATION_ERROR" and "timeoutMs" in above["error"]["message"]
    assert hinted_query(above, "Valid form of this query")["timeoutMs"] == 30000
    assert hinted_query(below, "Valid form of this query")["timeoutMs"] == 100


async def test_the_token_estimate_counts_the_whole_answer(tree: Tree, search: CallOne) -> None:
    """A detailed page is mostly JSON around the lines: the estimate counts all of it."""
    body = "".join(f"value_{j} = {j}\n" if j % 4 else f"hit_{j} = {j}\n" for j in range(80))
    tree({f"src/module_{i}.py": body for i in range(10)})
    found = await search(pattern="hit_", path="src", mode="detailed")
    data = found["data"]
    sent = len(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    lines = sum(
        len(line)
        for file in data["files"]
        for match in file.get("matches", ())
        for line in (
            *match.get("beforeContext", ()),
            match["content"],
            *match.get("afterContext", ()),
        )
    )
    assert sent > 15_000 and lines < sent * 0.7
    assert data["tokens"]["chars"] == sent
    assert data["tokens"]["estimatedTokens"] == -(-sent // 4)


@pytest.mark.parametrize("mode", ["countOnly", "summary"])
async def test_count_answers_report_their_tokens_too(
    tree: Tree, search: CallOne, mode: str
) -> None:
    tree({"a.txt": "hit\n", "b.txt": "hit\nhit\n"})
    data = (await search(pattern="hit", path=".", outputMode=mode))["data"]
    assert data["tokens"]["chars"] == len(json.dumps(data, separators=(",", ":")))


async def test_types_and_include_globs_never_bring_in_hidden_files(tree: Tree, call: Call) -> None:
    """rg shows a hidden file that a file type or an include glob matches; octo's rule is that
    dot-files need hidden: true, whatever else the query says."""
    tree(
        {"a.py": "needle\n", ".x.py": "needle\n", "src/.y.py": "needle\n", ".cfg/z.py": "needle\n"}
    )
    typed, globbed, asked = await call(
        "localSearchCode",
        {"pattern": "needle", "path": ".", "type": "py"},
        {"pattern": "needle", "path": ".", "include": ["*.py"], "outputMode": "countOnly"},
        {"pattern": "needle", "path": ".", "type": "py", "hidden": True},
    )
    assert [f["path"] for f in typed["data"]["files"]] == ["a.py"]
    assert [f["path"] for f in globbed["data"]["files"]] == ["a.py"]
    assert typed["data"]["stats"]["totalMatches"] == 1
    assert [f["path"] for f in asked["data"]["files"]] == [
        ".cfg/z.py",
        ".x.py",
        "a.py",
        "src/.y.py",
    ]


async def test_encoding_reads_other_encodings_and_answers_utf8(tree: Tree, search: CallOne) -> None:
    tree({"latin.txt": "café crème\nplain\n".encode("latin-1")})
    found = await search(pattern="crème", path=".", encoding="latin1")
    assert lines_of(found) == [(1, "café crème")]
    assert (await search(pattern="crème", path=".", encoding="auto"))["status"] == "empty"
    tree({"wide.txt": "first\nneedle here\n".encode("utf-16-le")})
    wide = await search(pattern="needle", path="wide.txt", encoding="utf-16le")
    assert lines_of(wide) == [(2, "needle here")]
    unknown = await search(pattern="x", path=".", encoding="klingon")
    assert unknown["error"]["code"] == "INVALID_QUERY"
    assert "encoding" in unknown["error"]["message"]
    bad = await search(pattern="x", path=".", encoding="--no-ignore")
    assert bad["error"]["code"] == "VALIDATION_ERROR"


async def test_max_count_caps_each_file_before_paging(tree: Tree, call: Call) -> None:
    tree({"a.txt": "hit\n" * 9, "b.txt": "hit\n"})
    lines, counts, total = await call(
        "localSearchCode",
        {"pattern": "hit", "path": ".", "maxCount": 3, "matchesPerPage": 2},
        {"pattern": "hit", "path": ".", "maxCount": 3, "outputMode": "countOnly"},
        {"pattern": "hit", "path": ".", "maxCount": 3, "outputMode": "totalOnly"},
    )
    a = lines["data"]["files"][0]
    assert a["matchCount"] == 3 and len(a["matches"]) == 2 and a["pagination"]["hasMore"]
    assert {f["path"]: f["matchCount"] for f in counts["data"]["files"]} == {"a.txt": 3, "b.txt": 1}
    for answer in (lines, counts, total):
        assert answer["data"]["stats"]["totalMatches"] == 4
        assert answer["data"]["stats"]["cappedAt"] == 3
    uncapped = (await call("localSearchCode", {"pattern": "hit", "path": ".", "maxCount": 20}))[0]
    assert "cappedAt" not in uncapped["data"]["stats"]
    assert uncapped["data"]["stats"]["totalMatches"] == 10


async def test_over_budget_offers_the_count_modes_first(root: Path) -> None:
    for name in ("a.txt", "b.txt"):
        (root / name).write_text("".join(f"needle {n}\nother\n" for n in range(6)))
    async with octo.Gateway(Config(max_tokens=300), roots=[root]) as gw:
        query = {"pattern": "needle", "path": ".", "contextLines": 1}
        found = (await gw.call("localSearchCode", [query])).to_wire()["results"][0]
    assert found["data"]["tokens"]["truncated"] is True
    first = found["hints"][0]
    assert first.startswith("Over the token budget") and '"summary"' in first
    assert hinted_query(found, "Over the token budget") == {
        "pattern": "needle",
        "path": ".",
        "outputMode": "countOnly",
    }
