"""packageSearch over recorded npm registry and Python index answers (hosts scrubbed to
registry.test / pypi.test)."""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from typing import Any

import anyio
import httpx
import pytest
import respx

from octo import Gateway
from octo.core.errors import CallError
from octo.faces.tool_schemas import input_schema
from octo.packages.index_policy import PackageIndexPolicy
from octo.packages.search import PackageIndexes

NPM = "https://registry.test/"
PYPI_JSON = "https://pypi.test/pypi/"
PYPI_SIMPLE = "https://pypi.test/simple/"

Load = Callable[..., dict[str, respx.Route]]


def envelope(response: Any, index: int = 0) -> dict[str, Any]:
    result: dict[str, Any] = response.to_wire()["results"][index]
    return result


def package(response: Any, index: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = envelope(response, index)["data"]["packages"][0]
    return found


def npm(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "ecosystem": "npm", **extra}


def python(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "ecosystem": "python", **extra}


# npm


async def test_npm_latest_manifests(gateway: Gateway, recorded: Load) -> None:
    recorded("npm-latest")
    response = await gateway.package_search([npm("axios"), npm("@babel/core"), npm("express")])

    axios = package(response, 0)
    assert axios["version"] and axios["description"]
    assert axios["repository"] == {
        "type": "git",
        "url": "https://github.com/axios/axios",
        "owner": "axios",
        "repo": "axios",
    }
    assert axios["license"] == "MIT" and axios["author"]
    assert "versions" not in axios and "keywords" not in axios

    babel = package(response, 1)
    assert babel["repository"]["directory"] == "packages/babel-core"
    assert babel["repository"]["webUrl"].endswith("/babel/babel/tree/HEAD/packages/babel-core")
    assert babel["author"] == "The Babel Team"
    assert any('path "packages/babel-core"' in h for h in envelope(response, 1)["hints"])

    express = package(response, 2)  # "expressjs/express" shorthand
    assert (express["repository"]["owner"], express["repository"]["repo"]) == (
        "expressjs",
        "express",
    )


async def test_npm_fetch_metadata_reads_the_packument(gateway: Gateway, recorded: Load) -> None:
    routes = recorded("npm-packument")
    response = await gateway.package_search([npm("left-pad", npmFetchMetadata=True)])
    found = package(response)
    assert routes[f"{NPM}left-pad"].call_count == 1
    assert found["repository"]["owner"] == "stevemao"  # scp-like git@github.com:owner/repo.git
    versions = [v["version"] for v in found["versions"]]
    assert versions[0] == found["version"] == "1.3.0"
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True)
    assert all(v["date"] for v in found["versions"])
    assert found["versionCount"] == len(versions)
    assert found["lastPublished"] == found["versions"][0]["date"]


async def test_npm_mirror_without_latest_falls_back_to_packument(
    gateway: Gateway, recorded: Load, respx_mock: respx.MockRouter
) -> None:
    recorded("npm-packument")
    latest = respx_mock.get(f"{NPM}left-pad/latest").mock(return_value=httpx.Response(404))
    response = await gateway.package_search([npm("left-pad")])
    found = package(response)
    assert latest.call_count == 1
    assert found["version"] == "1.3.0" and "versions" not in found


async def test_npm_missing_package(gateway: Gateway, recorded: Load) -> None:
    routes = recorded("npm-missing")
    response = await gateway.package_search([npm("octo-no-such-package-xyz")])
    result = envelope(response)
    assert result["status"] == "error"
    assert result["error"]["code"] == "NOT_FOUND"
    assert "octo-no-such-package-xyz" in result["error"]["message"]
    assert result["hints"]
    assert all(route.call_count == 1 for route in routes.values())


SEARCH_ANSWER = {  # the documented -/v1/search shape, written by hand
    "objects": [
        {
            "package": {
                "name": name,
                "version": "1.0.0",
                "description": f"{name} package",
                "links": {"repository": f"git+https://github.com/org/{name}.git"},
                "publisher": {"username": "someone", "email": "someone@example.test"},
            },
            "score": {"final": 0.9},
        }
        for name in ("axios", "axios-retry", "redaxios")
    ],
    "total": 3,
}


async def test_npm_missing_package_suggests_close_names(
    gateway: Gateway, respx_mock: respx.MockRouter
) -> None:
    respx_mock.get(f"{NPM}axois/latest").mock(return_value=httpx.Response(404))
    respx_mock.get(f"{NPM}axois").mock(
        return_value=httpx.Response(
            200, json={"_id": "axois", "name": "axois", "dist-tags": {}, "versions": {}, "time": {}}
        )
    )
    search = respx_mock.get(f"{NPM}-/v1/search", params={"text": "axois"}).mock(
        return_value=httpx.Response(200, json=SEARCH_ANSWER)
    )
    result = envelope(await gateway.package_search([npm("axois")]))
    assert result["error"]["code"] == "NOT_FOUND"
    assert search.call_count == 1
    assert result["hints"][0].startswith("Did you mean: axios")


async def test_npm_search_limit_lists_similar_packages(
    gateway: Gateway, recorded: Load, respx_mock: respx.MockRouter
) -> None:
    recorded("npm-latest")
    respx_mock.get(f"{NPM}-/v1/search", params={"text": "axios"}).mock(
        return_value=httpx.Response(200, json=SEARCH_ANSWER)
    )
    response = await gateway.package_search([npm("axios", searchLimit=2)])
    names = [p["name"] for p in envelope(response)["data"]["packages"]]
    assert names == ["axios", "axios-retry"]
    similar = envelope(response)["data"]["packages"][1]
    assert similar["repository"]["repo"] == "axios-retry"


async def test_npm_search_limit_without_search_endpoint_says_so(
    gateway: Gateway, recorded: Load, respx_mock: respx.MockRouter
) -> None:
    recorded("npm-latest")
    respx_mock.get(f"{NPM}-/v1/search").mock(return_value=httpx.Response(404))
    response = await gateway.package_search([npm("axios", searchLimit=3)])
    result = envelope(response)
    assert [p["name"] for p in result["data"]["packages"]] == ["axios"]
    assert any("no search endpoint" in h for h in result["hints"])


# Python


async def test_python_json_api(gateway: Gateway, recorded: Load) -> None:
    recorded("pypi-json")
    response = await gateway.package_search([python("requests"), python("six")])
    requests = package(response, 0)
    assert requests["repository"]["url"] == "https://github.com/psf/requests"  # project_urls Source
    assert requests["author"] and "@" not in requests["author"]
    assert requests["license"]
    assert "versions" not in requests
    six = package(response, 1)  # only the legacy home_page names the repository
    assert six["author"] == "Benjamin Peterson"
    assert (six["repository"]["owner"], six["repository"]["repo"]) == ("benjaminp", "six")


async def test_python_fetch_metadata_lists_versions(gateway: Gateway, recorded: Load) -> None:
    recorded("pypi-json")
    found = package(await gateway.package_search([python("requests", pythonFetchMetadata=True)]))
    assert found["versions"][0]["version"] == found["version"]
    assert found["lastPublished"] == found["versions"][0]["date"]
    assert found["created"] <= found["lastPublished"]
    assert found["requiresPython"]


async def test_python_missing_package(gateway: Gateway, recorded: Load) -> None:
    routes = recorded("pypi-missing")
    result = envelope(await gateway.package_search([python("octo-no-such-package-xyz")]))
    assert result["error"]["code"] == "NOT_FOUND"
    assert any("import yaml is PyYAML" in h for h in result["hints"])
    assert all(route.call_count == 1 for route in routes.values())


async def test_python_index_without_json_api_uses_pep691_and_pep658(
    gateway: Gateway, recorded: Load, respx_mock: respx.MockRouter
) -> None:
    routes = recorded("pypi-simple", "pypi-missing")
    json_api = respx_mock.get(url__regex=rf"^{PYPI_JSON}.*/json$").mock(
        return_value=httpx.Response(404)
    )
    response = await gateway.package_search([python("idna", pythonFetchMetadata=True)])
    found = package(response)
    metadata = next(url for url in routes if url.endswith(".metadata"))
    assert routes[f"{PYPI_SIMPLE}idna/"].calls.last.request.headers["accept"] == (
        "application/vnd.pypi.simple.v1+json"
    )
    assert routes[metadata].call_count == 1
    assert found["name"] == "idna" and found["description"]
    assert found["repository"]["url"] == "https://github.com/kjd/idna"
    assert found["version"] == found["versions"][0]["version"]
    assert json_api.call_count == 1
    # The index is now known to lack the JSON API: a later miss asks only the simple page.
    result = envelope(await gateway.package_search([python("octo-no-such-package-xyz")]))
    assert result["error"]["code"] == "NOT_FOUND"
    assert json_api.call_count == 1


async def test_python_search_limit_cannot_search(gateway: Gateway, recorded: Load) -> None:
    recorded("pypi-json")
    result = envelope(await gateway.package_search([python("requests", searchLimit=5)]))
    assert len(result["data"]["packages"]) == 1
    assert any("no search API" in h for h in result["hints"])


# Caching, coalescing, transport


async def test_repeat_is_cached_and_concurrent_identical_queries_share_a_request(
    gateway: Gateway, recorded: Load
) -> None:
    routes = recorded("npm-latest")
    route = routes[f"{NPM}axios/latest"]
    async with anyio.create_task_group() as tg:
        for _ in range(10):
            tg.start_soon(gateway.package_search, [npm("axios")])
    assert route.call_count == 1
    again = await gateway.package_search([npm("axios")])
    assert envelope(again)["cached"] is True
    assert route.call_count == 1


async def test_expired_entry_is_revalidated_with_its_etag(
    open_gateway: Callable[..., Gateway], respx_mock: respx.MockRouter
) -> None:
    gateway = open_gateway(OCTO_PACKAGE_CACHE_TTL="0.000001")
    manifest = {"name": "tiny", "version": "1.0.0", "repository": "o/tiny"}
    route = respx_mock.get(f"{NPM}tiny/latest").mock(
        side_effect=[
            httpx.Response(200, json=manifest, headers={"etag": '"v1"'}),
            httpx.Response(304),
        ]
    )
    first = await gateway.package_search([npm("tiny")])
    second = await gateway.package_search([npm("tiny")])
    assert route.calls.last.request.headers["if-none-match"] == '"v1"'
    assert package(second) == package(first)
    assert envelope(second)["cached"] is True


async def test_server_errors_and_retry_after_are_retried(
    gateway: Gateway, respx_mock: respx.MockRouter
) -> None:
    indexes = gateway.runtime.backend(PackageIndexes)
    client = indexes.client(NPM, PackageIndexPolicy("the npm registry"))
    waits: list[float] = []

    async def no_wait(seconds: float) -> None:
        waits.append(seconds)

    client.sleep = no_wait
    route = respx_mock.get(f"{NPM}tiny/latest").mock(
        side_effect=[
            httpx.Response(503),
            httpx.Response(429, headers={"retry-after": "7"}),
            httpx.Response(200, json={"name": "tiny", "version": "2.0.0"}),
        ]
    )
    found = package(await gateway.package_search([npm("tiny")]))
    assert found["version"] == "2.0.0"
    assert route.call_count == 3
    assert len(waits) == 2 and waits[1] == 7.0


async def test_bulk_with_one_failure(gateway: Gateway, recorded: Load) -> None:
    recorded("npm-latest", "npm-missing", "pypi-json")
    response = await gateway.package_search(
        [npm("axios"), npm("octo-no-such-package-xyz"), python("requests")]
    )
    assert [r["status"] for r in response.to_wire()["results"]] == ["success", "error", "success"]


async def test_validation(gateway: Gateway) -> None:
    response = await gateway.package_search(
        [npm("../etc/passwd"), python("requests", searchLimit=11), {"name": "x"}]
    )
    results = response.to_wire()["results"]
    assert all(r["error"]["code"] == "VALIDATION_ERROR" for r in results)
    assert "name" in results[0]["error"]["message"]
    assert "searchLimit" in results[1]["error"]["message"]
    assert "ecosystem" in results[2]["error"]["message"]
    with pytest.raises(CallError):
        await gateway.package_search([npm("a")] * 4)


async def test_no_registry_configured_names_the_variable(
    open_gateway: Callable[..., Gateway],
) -> None:
    gateway = open_gateway(
        OCTO_NPM_REGISTRY="", OCTO_PYPI_INDEX="", NPM_CONFIG_GLOBALCONFIG="/none"
    )
    response = await gateway.package_search([npm("axios"), python("requests")])
    npm_result, python_result = response.to_wire()["results"]
    assert npm_result["error"]["code"] == "TOOL_NOT_AVAILABLE"
    assert "OCTO_NPM_REGISTRY" in npm_result["hints"][0]
    assert "OCTO_PYPI_INDEX" in python_result["hints"][0]


async def test_mcp_schema_lists_package_search() -> None:
    spec = next(s for s in Gateway.tools() if s.name == "packageSearch")
    schema = input_schema(spec)
    assert schema["properties"]["queries"]["maxItems"] == 3
    props = schema["properties"]["queries"]["items"]["properties"]
    assert props["ecosystem"]["enum"] == ["npm", "python"]
    assert props["searchLimit"]["maximum"] == 10 and props["searchLimit"]["default"] == 1
    assert spec.category == "packages" and spec.open_world


async def test_index_credentials_leave_the_url_and_never_show(
    open_gateway: Callable[..., Gateway],
    respx_mock: respx.MockRouter,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = "pass-not-real-3c9e"
    gateway = open_gateway(OCTO_PYPI_INDEX=f"https://reader:{secret}@pypi.test/simple/")
    found = respx_mock.get(f"{PYPI_JSON}tiny/json").mock(
        return_value=httpx.Response(200, json={"info": {"name": "tiny", "version": "1.0"}})
    )
    respx_mock.get(f"{PYPI_JSON}gone/json").mock(side_effect=httpx.ConnectError("refused"))
    response = await gateway.package_search([python("tiny"), python("gone")])
    request = found.calls.last.request
    assert "@" not in str(request.url)
    expected = base64.b64encode(f"reader:{secret}".encode()).decode()
    assert request.headers["authorization"] == f"Basic {expected}"
    assert envelope(response, 1)["error"]["code"] == "TOOL_NOT_AVAILABLE"
    for text in (response.to_compact_json(), caplog.text):
        assert secret not in text and expected not in text
