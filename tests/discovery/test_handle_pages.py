"""getCachedContent: what an answer cut, read whole in pages; handles expire, and are bound to
the roots they were given out under."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import octo
from octo.core.budget import text_pages
from tests.discovery.conftest import Clock


async def one(
    gateway: octo.Gateway, tool: str, query: dict[str, Any], **kwargs: Any
) -> dict[str, Any]:
    response = await gateway.call(tool, [query], **kwargs)
    row: dict[str, Any] = response.to_wire()["results"][0]
    return row


async def pages_of(gateway: octo.Gateway, handle: str) -> list[dict[str, Any]]:
    first = await one(gateway, "getCachedContent", {"handle": handle})
    pages = [first]
    for page in range(2, first["data"]["totalPages"] + 1):
        pages.append(await one(gateway, "getCachedContent", {"handle": handle, "page": page}))
    return pages


async def test_a_read_cut_to_the_budget_is_whole_through_its_handle(
    gateway: octo.Gateway, root: Path
) -> None:
    read = await one(gateway, "localGetFileContent", {"path": "src/big.py"})
    data = read["data"]
    assert data["tokens"]["truncated"] is True
    pages = await pages_of(gateway, data["contentHandle"])
    text = "".join(page["data"]["content"] for page in pages)
    assert text == (root / "src" / "big.py").read_text()
    budget = 1000 * 4
    for number, page in enumerate(pages, 1):
        content = page["data"]["content"]
        assert len(content) <= budget and content.endswith("\n")
        assert page["data"]["page"] == number
        assert page["data"]["hasMore"] is (number < len(pages))
        tokens = page["data"]["tokens"]
        assert tokens["chars"] > len(content)  # the whole answer, content and all
        assert tokens["requiresPagination"] is (number < len(pages))
    assert pages[0]["data"]["tokens"]["truncatedAtLine"] == pages[0]["data"]["content"].count("\n")
    assert any('"page":2' in hint for hint in pages[0]["hints"])


async def test_a_clipped_search_line_is_whole_through_its_handle(
    gateway: octo.Gateway, root: Path
) -> None:
    found = await one(gateway, "localSearchCode", {"pattern": "needle", "path": "src"})
    [file] = found["data"]["files"]
    [match] = file["matches"]
    assert len(match["content"]) < len((root / "src" / "min.js").read_text())
    page = await one(gateway, "getCachedContent", {"handle": match["contentHandle"]})
    assert page["data"]["content"] == (root / "src" / "min.js").read_text().rstrip("\n")
    assert any("getCachedContent" in hint for hint in found["hints"])


async def test_an_expired_handle_is_not_found_and_the_hint_repeats_the_call(
    gateway: octo.Gateway, clock: Clock
) -> None:
    read = await one(gateway, "localGetFileContent", {"path": "src/big.py"})
    handle = read["data"]["contentHandle"]
    clock.now += 899
    assert (await one(gateway, "getCachedContent", {"handle": handle}))["status"] == "success"
    clock.now += 1
    gone = await one(gateway, "getCachedContent", {"handle": handle})
    assert gone["status"] == "error" and gone["error"]["code"] == "NOT_FOUND"
    assert 'localGetFileContent {"path":"src/big.py"}' in gone["hints"][0]


async def test_a_handle_from_other_roots_is_not_found(gateway: octo.Gateway, root: Path) -> None:
    read = await one(gateway, "localGetFileContent", {"path": "src/big.py"})
    handle = read["data"]["contentHandle"]
    # A client's roots only narrow the gateway's: other roots are narrower ones.
    elsewhere = await one(gateway, "getCachedContent", {"handle": handle}, roots=[root / "src"])
    assert elsewhere["error"]["code"] == "NOT_FOUND"
    # Other roots are another caller: its query is not repeated to them.
    assert "big.py" not in str(elsewhere)
    same = await one(gateway, "getCachedContent", {"handle": handle}, roots=[root])
    assert same["status"] == "success"


async def test_an_unknown_handle_is_not_found_with_a_hint(gateway: octo.Gateway) -> None:
    unknown = await one(gateway, "getCachedContent", {"handle": "never-given-out"})
    assert unknown["error"]["code"] == "NOT_FOUND"
    assert "OCTO_HANDLE_TTL" in unknown["hints"][0]


async def test_a_page_past_the_end_is_empty_and_says_how_many(gateway: octo.Gateway) -> None:
    read = await one(gateway, "localGetFileContent", {"path": "src/big.py"})
    past = await one(
        gateway, "getCachedContent", {"handle": read["data"]["contentHandle"], "page": 99}
    )
    assert past["status"] == "empty"
    assert past["data"]["hasMore"] is False
    assert any("page(s)" in hint for hint in past["hints"])


async def test_each_page_says_which_lines_it_holds_and_none_is_skipped(
    gateway: octo.Gateway, root: Path
) -> None:
    # Form feeds and carriage returns are inside a line (Python's splitlines cuts there too,
    # which made the page's line numbers drift from the file's).
    text = "".join(f"line {n}:\f{'x' * 60}\r\n" for n in range(1, 401))
    (root / "src" / "feeds.py").write_bytes(text.encode())
    read = await one(gateway, "localGetFileContent", {"path": "src/feeds.py"})
    pages = await pages_of(gateway, read["data"]["contentHandle"])
    expected_start = 1
    for page in pages:
        data = page["data"]
        lines = data["content"].split("\n")
        assert lines[0].startswith(f"line {expected_start}:")
        assert data["startLine"] == expected_start
        assert data["endLine"] == expected_start + data["content"].count("\n") - 1
        if data["hasMore"]:
            assert data["tokens"]["truncatedAtLine"] == data["endLine"]
        expected_start = data["endLine"] + 1
    assert expected_start == 401


def test_a_line_of_megabytes_is_paged_in_linear_work() -> None:
    """A handle holding 8 MiB on one line (a host's clipped answer) is paged measuring each
    character a few times, not once per page it fills (before: 9 s of JSON encoding on the
    event loop for the first page)."""
    measured = 0

    def as_sent(text: str) -> int:
        nonlocal measured
        measured += len(text)
        return len(json.dumps(text, ensure_ascii=False)) - 2

    text = "word " * (8 * 1024 * 1024 // 5) + "\n"
    pages = text_pages(text, 20_000, as_sent)
    assert "".join(pages) == text
    assert all(as_sent(page) <= 20_000 for page in pages)
    assert measured < 4 * len(text)
