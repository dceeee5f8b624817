"""semanticListIndexes and semanticIndexStats show only the indexes of trees under the call's
roots (issue 19); semanticIndexStats without a name describes every one of them."""

from __future__ import annotations

from pathlib import Path

from octo import Config
from octo import Gateway
from tests.semantic.conftest import build_tree
from tests.semantic.conftest import one


async def test_indexes_outside_the_roots_are_not_shown(env: dict[str, str], tmp_path: Path) -> None:
    mine = build_tree(tmp_path / "mine").resolve()
    theirs = build_tree(tmp_path / "theirs").resolve()
    both = Gateway(Config.from_env(env), roots=[mine, theirs])  # keyword side only
    try:
        for tree, name in ((mine, "mine"), (theirs, "theirs")):
            built = await one(both, "semanticIndexCodebase", {"path": str(tree), "indexName": name})
            assert built["status"] == "success", built
        every = await one(both, "semanticIndexStats", {})
        assert {i["indexName"] for i in every["data"]["indexes"]} == {"mine", "theirs"}
    finally:
        await both.aclose()

    narrow = Gateway(Config.from_env(env), roots=[mine])
    try:
        listed = await one(narrow, "semanticListIndexes", {})
        assert [i["name"] for i in listed["data"]["indexes"]] == ["mine"]
        assert str(theirs) not in str(listed)
        stats = await one(narrow, "semanticIndexStats", {})
        [only] = stats["data"]["indexes"]
        assert only["indexName"] == "mine" and only["root"] == str(mine)
        assert only["chunks"] > 0 and only["embeddedChunks"] == 0
        assert only["embeddingRunning"] is False
        assert any("finish them" in hint for hint in stats["hints"])
        assert str(theirs) not in str(stats)
        refused = await one(narrow, "semanticIndexStats", {"indexName": "theirs"})
        assert refused["status"] == "error"
        assert refused["error"]["code"] == "PATH_NOT_ALLOWED"
        assert str(theirs) not in str(refused)
    finally:
        await narrow.aclose()
