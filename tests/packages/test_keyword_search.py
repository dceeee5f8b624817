"""packageSearch by keywords: one page of the configured npm registry's search endpoint
(registry.test), paged with page/searchLimit; Python indexes cannot search and say so."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from octo import Gateway

NPM = "https://registry.test/"


def found(names: list[str]) -> dict[str, Any]:
    """The documented ``-/v1/search`` answer shape, written by hand."""
    return {
        "objects": [
            {
                "package": {
                    "name": name,
                    "version": "2.1.0",
                    "description": f"{name}: a date library",
                    "keywords": ["date", "time"],
                    "links": {"repository": f"git+https://github.com/org/{name}.git"},
                    "publisher": {"username": "someone"},
                },
                "score": {"final": 0.8},
            }
            for name in names
        ],
        "total": 40,
    }


async def test_keywords_page_through_the_registry_search(
    gateway: Gateway, respx_mock: respx.MockRouter
) -> None:
    second = respx_mock.get(
        f"{NPM}-/v1/search", params={"text": "date format", "size": "2", "from": "2"}
    ).mock(return_value=httpx.Response(200, json=found(["dayjs", "luxon"])))
    response = await gateway.package_search(
        [{"ecosystem": "npm", "keywords": ["date", "format"], "searchLimit": 2, "page": 2}]
    )
    result: dict[str, Any] = response.to_wire()["results"][0]
    assert result["status"] == "success", result
    assert [p["name"] for p in result["data"]["packages"]] == ["dayjs", "luxon"]
    assert result["data"]["pagination"] == {"currentPage": 2, "hasMore": True}
    assert "More packages: page=3." in result["hints"]
    assert any('owner "org", repo "dayjs"' in hint for hint in result["hints"])
    assert second.called


async def test_python_keywords_say_the_index_cannot_search(gateway: Gateway) -> None:
    rows = (
        await gateway.package_search(
            [
                {"ecosystem": "python", "keywords": ["http"]},
                {"ecosystem": "npm", "keywords": ["http"], "name": "axios"},
            ]
        )
    ).to_wire()["results"]
    assert rows[0]["error"]["code"] == "INVALID_QUERY"
    assert "no search API" in rows[0]["error"]["message"]
    assert rows[1]["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.slow
async def test_a_registry_without_search_is_not_available(
    gateway: Gateway, respx_mock: respx.MockRouter
) -> None:
    respx_mock.get(f"{NPM}-/v1/search").mock(return_value=httpx.Response(404))
    [row] = (await gateway.package_search([{"ecosystem": "npm", "keywords": ["http"]}])).to_wire()[
        "results"
    ]
    assert row["error"]["code"] == "TOOL_NOT_AVAILABLE"
    assert "no search endpoint" in row["error"]["message"]
