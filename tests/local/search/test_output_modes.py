"""localSearchCode's outputMode on the real rg: totalOnly, countOnly and summary answer the
cheap questions; groupByFile is today's answer; nonsense combinations are refused, mended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config
from tests.local.conftest import Call
from tests.local.conftest import CallOne
from tests.local.conftest import Tree
from tests.local.conftest import hinted_query


def without_timing(envelope: dict[str, Any]) -> dict[str, Any]:
    """The envelope without its position in the call, the search's own timing and the size
    the timing's digits change."""
    data = dict(envelope["data"])
    data["stats"] = {k: v for k, v in data["stats"].items() if k != "searchTimeMs"}
    data["tokens"] = {
        k: v for k, v in data["tokens"].items() if k not in ("chars", "estimatedTokens")
    }
    return {**{k: v for k, v in envelope.items() if k != "queryIndex"}, "data": data}


@pytest.fixture
def counted(tree: Tree) -> Path:
    """Files with 3, 1, 5, 2 and 5 matching lines, and one without."""
    return tree(
        {
            "a.py": "hit\nhit\nhit\n",
            "b.py": "hit\n",
            "c.py": "hit one\nmiss\nhit two\nhit three\nhit four\nhit five\n",
            "d.py": "hit\nhit\n",
            "e.py": "hit\nhit\nhit\nhit\nhit\n",
            "f.py": "nothing\n",
        }
    )


async def test_group_by_file_is_the_answer_without_output_mode(counted: Path, call: Call) -> None:
    for query in (
        {"pattern": "hit", "path": "."},
        {"pattern": "hit", "path": ".", "mode": "detailed", "filesPerPage": 2},
        {"pattern": "hit", "path": ".", "filesOnly": True},
    ):
        plain, grouped = await call(
            "localSearchCode", query, {**query, "outputMode": "groupByFile"}
        )
        assert without_timing(plain) == without_timing(grouped)
        assert "otherFiles" not in plain["data"] and plain["data"]["stats"]["complete"] is True


async def test_total_only_is_the_stats_alone(counted: Path, search: CallOne) -> None:
    found = await search(pattern="hit", path=".", outputMode="totalOnly")
    assert found["status"] == "success"
    assert found["hints"] == []
    stats = found["data"].pop("stats")
    assert found["data"] == {}
    assert set(stats) == {"filesSearched", "filesWithMatches", "totalMatches", "searchTimeMs"}
    assert (stats["filesSearched"], stats["filesWithMatches"], stats["totalMatches"]) == (6, 5, 16)


@pytest.mark.parametrize(
    ("pattern", "extra"),
    [
        ("hit", {}),
        ("hit", {"include": ["*.none"], "mainResearchGoal": None}),
    ],
    ids=["matches", "no file passes the filters"],
)
async def test_a_total_only_answer_is_at_most_400_bytes_on_the_wire(
    counted: Path, pattern: str, extra: dict[str, Any]
) -> None:
    # A long absolute path: the answer carries no path at all.
    deep = counted / ("very-long-directory-name-" * 8)
    deep.mkdir()
    (deep / "x.py").write_text("hit\n" * 1000)
    query = {"pattern": pattern, "path": str(deep), "outputMode": "totalOnly", **extra}
    query = {k: v for k, v in query.items() if v is not None}
    async with octo.Gateway(Config(), roots=[counted]) as gw:
        response = await gw.local_search_code([query])
    assert len(response.to_compact_json().encode()) <= 400
    [envelope] = response.to_wire()["results"]
    if extra:
        assert envelope["status"] == "empty"
        assert envelope["hints"] == [
            "No file passed the filters: check path, type, include and exclude."
        ]
    else:
        assert envelope["data"]["stats"]["totalMatches"] == 1000


async def test_count_only_lists_files_most_matches_first(counted: Path, search: CallOne) -> None:
    found = await search(pattern="hit", path=".", outputMode="countOnly")
    assert found["status"] == "success"
    data = found["data"]
    assert data["files"] == [
        {"path": "c.py", "matchCount": 5},
        {"path": "e.py", "matchCount": 5},
        {"path": "a.py", "matchCount": 3},
        {"path": "d.py", "matchCount": 2},
        {"path": "b.py", "matchCount": 1},
    ]
    assert data["stats"]["totalMatches"] == 16 and "complete" not in data["stats"]
    assert data["pagination"] == {"currentPage": 1, "totalPages": 1, "hasMore": False}
    sample = hinted_query(found, "Sample matches of the top files: localSearchCode")
    assert sample == {"pattern": "hit", "path": ".", "outputMode": "summary"}


async def test_count_only_pages_hold_200_files(tree: Tree, search: CallOne) -> None:
    tree({f"f{i:03d}.txt": "hit\n" * (1 + i % 3) for i in range(205)})
    first = await search(pattern="hit", path=".", outputMode="countOnly")
    assert len(first["data"]["files"]) == 200
    assert first["data"]["pagination"] == {"currentPage": 1, "totalPages": 2, "hasMore": True}
    following = hinted_query(first, "Next page: localSearchCode")
    assert following == {
        "pattern": "hit",
        "path": ".",
        "outputMode": "countOnly",
        "countPageNumber": 2,
    }
    second = await search(**following)
    assert len(second["data"]["files"]) == 5
    assert [f["matchCount"] for f in second["data"]["files"]] == [1] * 5
    past = await search(**{**following, "countPageNumber": 7})
    # A page past the last one is empty, as in every tool, with the call for the last page.
    assert past["status"] == "empty" and past["data"]["files"] == []
    assert past["hints"] == [
        "Page 7 is past the last page (2): localSearchCode "
        '{"pattern":"hit","path":".","outputMode":"countOnly","countPageNumber":2}'
    ]


async def test_summary_shows_the_top_files_with_two_samples(counted: Path, search: CallOne) -> None:
    found = await search(pattern="hit", path=".", outputMode="summary")
    data = found["data"]
    assert [(f["path"], f["matchCount"]) for f in data["files"]] == [
        ("c.py", 5),
        ("e.py", 5),
        ("a.py", 3),
    ]
    assert data["files"][0]["matches"] == [
        {"lineNumber": 1, "content": "hit one"},
        {"lineNumber": 3, "content": "hit two"},
    ]
    assert all(len(f["matches"]) == 2 and "pagination" not in f for f in data["files"])
    assert data["otherFiles"] == 2
    assert data["stats"]["filesWithMatches"] == 5
    assert "pagination" not in data
    assert hinted_query(found, "Every matching file with its count")["outputMode"] == "countOnly"
    assert hinted_query(found, "Matching lines, file by file") == {"pattern": "hit", "path": "."}


async def test_output_mode_is_independent_of_mode(counted: Path, call: Call) -> None:
    summary, counts = await call(
        "localSearchCode",
        {"pattern": "hit two", "path": ".", "mode": "detailed", "outputMode": "summary"},
        {"pattern": "hit", "path": ".", "mode": "discovery", "outputMode": "countOnly"},
    )
    # detailed's three context lines come with the samples; discovery's filesOnly is moot.
    assert summary["data"]["files"][0]["matches"][0]["beforeContext"] == ["hit one", "miss"]
    assert len(counts["data"]["files"]) == 5


async def test_count_answers_without_matches_are_empty_with_ways_out(
    counted: Path, call: Call
) -> None:
    answers = await call(
        "localSearchCode",
        *({"pattern": "Absent", "path": ".", "outputMode": m} for m in ("countOnly", "summary")),
    )
    for answer in answers:
        assert answer["status"] == "empty"
        assert any(h.startswith("Ignore case: localSearchCode") for h in answer["hints"])


@pytest.mark.parametrize(
    ("query", "dropped"),
    [
        ({"outputMode": "totalOnly", "filesOnly": True}, "filesOnly"),
        ({"outputMode": "countOnly", "matchesPerPage": 5}, "matchesPerPage"),
        ({"outputMode": "totalOnly", "contextLines": 2}, "contextLines"),
        ({"outputMode": "countOnly", "columns": True}, "columns"),
        ({"outputMode": "summary", "filesPerPage": 5}, "filesPerPage"),
        ({"outputMode": "summary", "filePageNumber": 2}, "filePageNumber"),
        ({"outputMode": "groupByFile", "countPageNumber": 2}, "countPageNumber"),
        ({"countPageNumber": 2}, "countPageNumber"),
        ({"caseInsensitive": True, "smartCase": False}, "smartCase"),
        ({"contextLines": 2, "contextAfter": 1}, "contextLines"),
    ],
)
async def test_combinations_that_make_no_sense_are_refused_with_the_query_mended(
    counted: Path, call: Call, query: dict[str, Any], dropped: str
) -> None:
    bad, sibling = await call(
        "localSearchCode", {"pattern": "hit", "path": ".", **query}, {"pattern": "hit", "path": "."}
    )
    assert bad["error"]["code"] == "VALIDATION_ERROR"
    # The message names both sides of the conflict: the fields, and the outputMode in force.
    message = bad["error"]["message"]
    assert all(field in message for field in query)
    assert "countPageNumber" not in query or "outputMode groupByFile" in message
    mended = hinted_query(bad, "Valid form of this query: localSearchCode")
    assert dropped not in mended
    assert sibling["status"] == "success"
    (again,) = await call("localSearchCode", mended)
    assert again["status"] == "success"


async def test_context_lines_with_one_side_mends_to_both_sides(
    counted: Path, search: CallOne
) -> None:
    bad = await search(pattern="hit", path=".", contextLines=2, contextBefore=1)
    mended = hinted_query(bad, "Valid form of this query: localSearchCode")
    assert mended == {"pattern": "hit", "path": ".", "contextBefore": 1, "contextAfter": 2}


@pytest.mark.parametrize(
    ("seed", "value", "meant", "mended"),
    [
        ("total_only", True, 'outputMode: "totalOnly"', {"outputMode": "totalOnly"}),
        ("count_only_matches", True, 'outputMode: "countOnly"', {"outputMode": "countOnly"}),
        ("summary_only", True, 'outputMode: "summary"', {"outputMode": "summary"}),
        ("group_by_file", True, 'outputMode: "groupByFile"', {"outputMode": "groupByFile"}),
        ("fixed_strings", True, "fixedString", {"fixedString": True}),
        ("context_before", 2, "contextBefore", {"contextBefore": 2}),
        ("max_filesize", "1M", "maxFilesize", {"maxFilesize": "1M"}),
        ("total_only", False, 'outputMode: "totalOnly"', {}),
    ],
)
async def test_spec_003_names_are_steered_to_octo_fields(
    counted: Path,
    call: Call,
    seed: str,
    value: Any,
    meant: str,
    mended: dict[str, Any],
) -> None:
    bad, sibling = await call(
        "localSearchCode",
        {"pattern": "hit", "path": ".", seed: value},
        {"pattern": "x", "path": "."},
    )
    assert bad["error"]["code"] == "VALIDATION_ERROR"
    assert f"{seed}: Extra inputs are not permitted" in bad["error"]["message"]
    assert f"did you mean {meant}?" in bad["error"]["message"]
    assert hinted_query(bad, "Valid form of this query") == {
        "pattern": "hit",
        "path": ".",
        **mended,
    }
    assert sibling["status"] == "empty"


async def test_a_seed_name_and_its_conflict_are_mended_together(
    counted: Path, search: CallOne
) -> None:
    """total_only with filesOnly: renamed, the query conflicts; the hint mends both, so a count
    stays a count."""
    bad = await search(pattern="hit", path=".", total_only=True, filesOnly=True)
    mended = hinted_query(bad, "Valid form of this query: localSearchCode")
    assert mended == {"pattern": "hit", "path": ".", "outputMode": "totalOnly"}
