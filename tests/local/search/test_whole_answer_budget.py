"""The whole answer within maxTokensPerRequest, in every output mode of a search, over several
places and in localSearchStructure, on real trees with the real rg: estimatedTokens never
exceeds the budget, and a cut answer says so and names the handle that holds the rest."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config
from tests.local.conftest import Tree

#: A folder name long enough that 200 counted paths overflow the default budget.
LONG = "a_rather_long_folder_name_for_generated_code_" * 2


def _within_and_cut(data: dict[str, Any]) -> str:
    """Asserts the answer fits its budget and says it was cut; its handle to the rest."""
    tokens = data["tokens"]
    assert tokens["estimatedTokens"] <= tokens["maxTokensPerRequest"]
    assert len(json.dumps(data, separators=(",", ":"))) <= tokens["chars"]
    assert tokens["truncated"] is True
    assert tokens["paginationHint"].startswith("More content: continue with getCachedContent")
    hint = tokens["paginationHint"]
    handle: str = json.loads(hint[hint.index("{") : hint.index("}") + 1])["handle"]
    return handle


async def _rest(gateway: octo.Gateway, handle: str) -> list[dict[str, Any]]:
    """What the handle holds, read page after page."""
    content, page = "", 1
    while True:
        read = {"handle": handle, "page": page}
        data = (await gateway.call("getCachedContent", [read])).to_wire()["results"][0]["data"]
        content += data["content"]
        # Its pages fit the budget too, JSON escapes and all.
        assert data["tokens"]["estimatedTokens"] <= data["tokens"]["maxTokensPerRequest"]
        if not data["tokens"]["requiresPagination"]:
            break
        page += 1
    rest: list[dict[str, Any]] = json.loads(content)
    return rest


async def _one(gateway: octo.Gateway, tool: str, **query: Any) -> dict[str, Any]:
    row: dict[str, Any] = (await gateway.call(tool, [query])).to_wire()["results"][0]
    assert row["status"] == "success", row
    return row


@pytest.fixture
def many(tree: Tree) -> Path:
    """250 matching files under long paths, in five places."""
    return tree(
        {f"p{n % 5}/{LONG}{n:03}/module_{n:03}.py": "needle\n" * (1 + n % 7) for n in range(250)}
    )


@pytest.fixture
async def default_budget(many: Path) -> AsyncIterator[octo.Gateway]:
    async with octo.Gateway(Config(), roots=[many]) as gateway:
        yield gateway


async def test_a_count_page_is_cut_to_the_budget_and_the_rest_is_a_handle_away(
    default_budget: octo.Gateway,
) -> None:
    row = await _one(
        default_budget, "localSearchCode", pattern="needle", path=".", outputMode="countOnly"
    )
    data = row["data"]
    handle = _within_and_cut(data)
    assert data["tokens"]["paginationHint"].endswith("then countPageNumber=2")
    assert row["hints"][0].startswith("The token budget (5000 tokens) left the last")
    rest = await _rest(default_budget, handle)
    # The page's 200 files, most matches first: those shown, then those left out.
    counts = [f["matchCount"] for f in data["files"] + rest]
    assert len(counts) == 200 and counts == sorted(counts, reverse=True)


async def test_a_count_page_of_several_places_is_cut_to_the_budget(
    default_budget: octo.Gateway,
) -> None:
    answers = {
        mode: await _one(
            default_budget,
            "localSearchCode",
            pattern="needle",
            path="p*",
            outputMode="countOnly",
            aggregationMode=mode,
        )
        for mode in ("global", "perPlace")
    }
    for row in answers.values():
        tokens = row["data"]["tokens"]
        assert tokens["estimatedTokens"] <= tokens["maxTokensPerRequest"]
        assert tokens["truncated"] is True
        assert any("left the last" in hint and "getCachedContent" in hint for hint in row["hints"])
    # One ranking: the whole answer cut once, the rest in one handle.
    handle = _within_and_cut(answers["global"]["data"])
    assert await _rest(default_budget, handle)


async def test_a_page_of_several_places_fits_flat_and_grouped(tree: Tree, root: Path) -> None:
    long_line = "needle " + "w" * 280 + "\n"
    tree({f"q{n}/{LONG}{m}.py": long_line * 12 for n in range(10) for m in range(2)})
    async with octo.Gateway(Config(), roots=[root]) as gateway:
        for layout in ("flat", "grouped"):
            row = await _one(
                gateway,
                "localSearchCode",
                pattern="needle",
                path="q*",
                matchesPerPage=10,
                filesPerPage=20,
                responseFormat=layout,
            )
            data = row["data"]
            handle = _within_and_cut(data)
            assert await _rest(gateway, handle)


async def test_summary_and_files_only_fit_a_small_budget(many: Path) -> None:
    async with octo.Gateway(Config(max_tokens=200), roots=[many]) as gateway:
        summary = await _one(
            gateway, "localSearchCode", pattern="needle", path=".", outputMode="summary"
        )
        _within_and_cut(summary["data"])
        assert len(summary["data"]["files"]) >= 1
        listed = await _one(gateway, "localSearchCode", pattern="needle", path=".", filesOnly=True)
        handle = _within_and_cut(listed["data"])
        assert listed["data"]["tokens"]["paginationHint"].endswith("then filePageNumber=2")
        shown = [f["path"] for f in listed["data"]["files"]]
        left_out = [f["path"] for f in await _rest(gateway, handle)]
        assert len(shown + left_out) == 10 and shown + left_out == sorted(shown + left_out)


async def test_a_structure_page_fits_the_budget(tree: Tree, root: Path) -> None:
    tree({f"s/m{n}.py": f"def {LONG}{n}(a, b):\n    return a\n" * 4 for n in range(10)})
    async with octo.Gateway(Config(max_tokens=300), roots=[root]) as gateway:
        row = await _one(
            gateway,
            "localSearchStructure",
            path="s",
            language="python",
            pattern="def $F($$$A): $$$B",
        )
        _within_and_cut(row["data"])
