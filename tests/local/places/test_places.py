"""Several places in one local query, on real trees with the real rg: lists and globs of
directories, global and perPlace pages, flat and grouped answers, failures per place."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config
from tests.local.conftest import Call
from tests.local.conftest import Tree

SERVICES = {
    f"services/{name}/src/f{n}.py": f"needle {name} {n}\nother\nneedle again {name}\n"
    for name in ("a", "b", "c")
    for n in range(1, 6)
}


@pytest.fixture
def services(tree: Tree) -> Path:
    root = tree({**SERVICES, "lib/x.py": "needle lib\n", "services/.hidden/h.py": "needle\n"})
    (root / "services" / "notes.txt").write_text("a file: a place of a search\n")
    return root


async def one(call: Call, tool: str, **query: Any) -> dict[str, Any]:
    return (await call(tool, query))[0]


async def test_a_glob_names_the_folders_and_files_under_it(call: Call, services: Path) -> None:
    row = await one(call, "localSearchCode", pattern="needle", path="services/*", filesPerPage=20)
    data = row["data"]
    assert row["status"] == "success"
    # A search may name a file, so its glob matches files too, as a shell's does.
    assert data["places"] == ["a", "b", "c", "notes.txt"]
    assert data["root"] == str(services / "services")
    assert {f["place"] for f in data["files"]} == {"a", "b", "c"}
    assert data["stats"]["filesWithMatches"] == 15
    assert data["stats"]["totalMatches"] == 30


@pytest.mark.slow
async def test_global_pages_run_through_the_places_in_order(call: Call, services: Path) -> None:
    pages = [
        (
            await one(
                call,
                "localSearchCode",
                pattern="needle",
                path="services/*",
                filesPerPage=4,
                filePageNumber=n,
            )
        )["data"]
        for n in range(1, 5)
    ]
    seen = [(f["place"], f["path"]) for page in pages for f in page["files"]]
    expected = [(name, f"src/f{n}.py") for name in ("a", "b", "c") for n in range(1, 6)]
    assert seen == expected
    assert pages[0]["pagination"] == {
        "currentPage": 1,
        "totalPages": 4,
        "hasMore": True,
    }
    assert pages[-1]["pagination"]["hasMore"] is False


async def test_per_place_splits_the_page_four_three_three(call: Call, services: Path) -> None:
    row = await one(
        call,
        "localSearchCode",
        pattern="needle",
        path=["services/a", "services/b", "services/c"],
        filesPerPage=10,
        aggregationMode="perPlace",
    )
    # Places are named relative to root, their common directory.
    assert row["data"]["root"] == str(services / "services")
    places = [f["place"] for f in row["data"]["files"]]
    assert [places.count(p) for p in ("a", "b", "c")] == [4, 3, 3]
    assert row["data"]["pagination"]["hasMore"] is True
    assert any(hint.startswith("a: ") for hint in row["hints"])


async def test_grouped_answers_carry_each_places_stats(call: Call, services: Path) -> None:
    row = await one(
        call,
        "localSearchCode",
        pattern="needle",
        path=["services/a", "lib"],
        responseFormat="grouped",
    )
    data = row["data"]
    assert data["files"] == []
    groups = {g["place"]: g for g in data["groups"]}
    assert list(groups) == ["services/a", "lib"]
    assert groups["lib"]["stats"]["filesWithMatches"] == 1
    assert groups["services/a"]["stats"]["filesWithMatches"] == 5
    assert all("place" not in f for g in data["groups"] for f in g["files"])


async def test_a_place_outside_the_roots_fails_alone(
    call: Call, services: Path, tmp_path: Path
) -> None:
    row = await one(call, "localSearchCode", pattern="needle", path=["lib", str(tmp_path)])
    assert row["status"] == "success" and row["partial"] is True
    [error] = row["data"]["errors"]
    assert error["code"] == "PATH_NOT_ALLOWED" and error["place"] == str(tmp_path)
    assert error["hints"]
    assert [f["place"] for f in row["data"]["files"]] == ["lib"]


async def test_when_every_place_fails_the_first_ones_code_is_the_query_error(
    call: Call, services: Path, tmp_path: Path
) -> None:
    row = await one(call, "localSearchCode", pattern="needle", path=[str(tmp_path), "nowhere"])
    assert row["status"] == "error"
    assert row["error"]["code"] == "PATH_NOT_ALLOWED"
    assert any("nowhere: NOT_FOUND" in hint for hint in row["hints"])


async def test_nothing_found_anywhere_is_empty(call: Call, services: Path) -> None:
    row = await one(call, "localSearchCode", pattern="absent", path="services/*")
    assert row["status"] == "empty"
    assert row["hints"]


async def test_more_than_ten_places_is_a_validation_error_with_the_first_ten(
    call: Call, tree: Tree
) -> None:
    tree({f"many/d{n:02}/x.py": "x\n" for n in range(12)})
    row = await one(call, "localSearchCode", pattern="x", path="many/*")
    assert row["error"]["code"] == "VALIDATION_ERROR"
    [hint] = row["hints"]
    listed = json.loads(hint.split(": ", 1)[1].split(" ", 1)[1])["path"]
    assert len(listed) == 10 and listed[0].endswith("many/d00")


async def test_a_glob_follows_no_link_out_of_the_roots(
    call: Call, services: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("needle outside\n")
    (services / "services" / "escape").symlink_to(outside, target_is_directory=True)
    row = await one(call, "localSearchCode", pattern="needle", path="services/*")
    assert row["data"]["places"] == ["a", "b", "c", "notes.txt"]
    assert "outside" not in json.dumps(row)


async def test_find_files_ranks_the_newest_first_over_every_place(
    call: Call, services: Path
) -> None:
    for n, rel in enumerate(sorted(SERVICES)):
        os.utime(services / rel, (1_700_000_000 + n * 60, 1_700_000_000 + n * 60))
    row = await one(call, "localFindFiles", path="services/*", name="*.py", filesPerPage=3)
    files = [(f["place"], f["path"]) for f in row["data"]["files"]]
    assert files == [("c", "src/f5.py"), ("c", "src/f4.py"), ("c", "src/f3.py")]
    assert row["data"]["totalCount"] == 15


async def test_view_structure_ranks_by_name_without_details_asked(
    call: Call, services: Path
) -> None:
    row = await one(
        call,
        "localViewStructure",
        path=["services/b", "services/a"],
        depth=2,
        sortBy="time",
        entriesPerPage=4,
    )
    entries = row["data"]["entries"]
    assert len(entries) == 4
    assert all("modified" not in e and "size" not in e for e in entries)
    assert row["data"]["summary"]["totalFiles"] == 10


async def test_large_items_become_previews_with_a_handle(tree: Tree, root: Path) -> None:
    long_lines = "".join(f"needle {'y' * 150} {n}\n" for n in range(20))
    tree({"one/big.py": long_lines, "two/small.py": "needle\n"})
    async with octo.Gateway(Config(), roots=[root]) as gateway:
        query = {"pattern": "needle", "path": ["one", "two"], "matchesPerPage": 20}
        row = (await gateway.call("localSearchCode", [query])).to_wire()["results"][0]
        big = next(f for f in row["data"]["files"] if f["place"] == "one")
        assert len(json.dumps(big, separators=(",", ":"))) <= 2100
        assert 1 <= len(big["matches"]) < 20
        page = (
            await gateway.call("getCachedContent", [{"handle": big["contentHandle"]}])
        ).to_wire()
        whole = page["results"][0]["data"]["content"]
        assert len(json.loads(whole)["matches"]) == 20


async def test_a_global_page_fits_the_token_budget(tree: Tree, root: Path) -> None:
    tree({f"p{n}/f.py": "".join(f"needle {n} {'z' * 60}\n" for _ in range(8)) for n in range(3)})
    async with octo.Gateway(Config(max_tokens=450), roots=[root]) as gateway:
        query = {"pattern": "needle", "path": "p*"}
        data = (await gateway.call("localSearchCode", [query])).to_wire()["results"][0]["data"]
    assert data["tokens"]["truncated"] is True
    assert data["tokens"]["estimatedTokens"] <= 450
    first, *rest = data["files"]
    assert len(first["matches"]) == 8 and "contentHandle" not in first
    # Past the budget a file keeps its path and count, as one place's page does, and what
    # the whole answer has no room for is one handle away.
    assert all("matches" not in f and f["contentHandle"] for f in rest)
    assert "getCachedContent" in data["tokens"]["paginationHint"]


async def test_one_plain_path_answers_as_before(call: Call, services: Path) -> None:
    row = await one(call, "localSearchCode", pattern="needle", path="lib")
    assert "places" not in row["data"] and "errors" not in row["data"]
    assert "place" not in row["data"]["files"][0]


async def test_every_output_mode_works_per_place(call: Call, tree: Tree) -> None:
    tree({"p1/a.py": "hit\n" * 3, "p1/b.py": "hit\n", "p2/c.py": "hit\n" * 5, "p2/d.py": "no\n"})
    total = await one(call, "localSearchCode", pattern="hit", path="p*", outputMode="totalOnly")
    assert total["status"] == "success"
    assert "files" not in total["data"]
    assert (total["data"]["stats"]["filesWithMatches"], total["data"]["stats"]["totalMatches"]) == (
        3,
        9,
    )
    counts = await one(call, "localSearchCode", pattern="hit", path="p*", outputMode="countOnly")
    ranked = [(f["place"], f["path"], f["matchCount"]) for f in counts["data"]["files"]]
    assert ranked == [("p2", "c.py", 5), ("p1", "a.py", 3), ("p1", "b.py", 1)]
    summary = await one(call, "localSearchCode", pattern="hit", path="p*", outputMode="summary")
    assert [f["path"] for f in summary["data"]["files"]] == ["c.py", "a.py", "b.py"]
    assert summary["data"]["otherFiles"] == 0
    nothing = await one(call, "localSearchCode", pattern="zzz", path="p*", outputMode="countOnly")
    assert nothing["status"] == "empty"


async def test_find_and_search_over_several_places(call: Call, services: Path) -> None:
    row = await one(
        call,
        "localFindAndSearchCode",
        path="services/*",
        names=["f1.py", "f2.py"],
        pattern="needle",
        outputMode="countOnly",
    )
    data = row["data"]
    assert data["places"] == ["a", "b", "c"]
    assert data["find"]["searchedFileCount"] == 6
    assert {(f["place"], f["path"]) for f in data["files"]} == {
        (p, f"src/f{n}.py") for p in "abc" for n in (1, 2)
    }
