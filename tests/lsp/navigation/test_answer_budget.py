"""An LSP answer within maxTokensPerRequest as a whole: a page of references that the budget
cannot hold keeps what fits and names the handle that holds the rest (a fake server answers
20,000 references); a type hierarchy of 300 types is cut list by list; a hover text is cut to
what the budget leaves it."""

from __future__ import annotations

import json

import pytest

from tests.lsp.conftest import DEFINITION
from tests.lsp.conftest import GatewayFactory
from tests.lsp.conftest import fake_env
from tests.lsp.conftest import result_of

# A server start and 20,000 locations read: about a second.
pytestmark = pytest.mark.slow


async def test_a_page_of_references_fits_the_budget(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("many-references", OCTO_MAX_TOKENS="400"))
    query = {**DEFINITION, "referencesPerPage": 50, "contextLines": 2}
    result = result_of(await gw.lsp_find_references([query]))
    assert result["status"] == "success", result
    tokens = result["data"]["tokens"]
    assert tokens["estimatedTokens"] <= 400
    assert tokens["truncated"] is True
    shown = len(result["data"]["references"])
    assert 1 <= shown < 50
    hint = tokens["paginationHint"]
    handle = json.loads(hint[hint.index("{") : hint.index("}") + 1])["handle"]
    assert any(handle in h and "left the last" in h for h in result["hints"])
    rest = result_of(await gw.get_cached_content([{"handle": handle}]))
    assert rest["status"] == "success"
    assert hint.endswith("then page=2")


async def test_a_type_hierarchy_of_two_long_lists_fits_the_budget(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("many-types", OCTO_MAX_TOKENS="200"))
    result = result_of(await gw.lsp_type_hierarchy([{**DEFINITION, "direction": "both"}]))
    assert result["status"] == "success", result
    tokens = result["data"]["tokens"]
    assert tokens["estimatedTokens"] <= 200 and tokens["truncated"] is True
    assert 1 <= len(result["data"]["subtypes"]) < 150
    assert sum("getCachedContent" in hint for hint in result["hints"]) >= 1


async def test_a_long_hover_is_cut_to_the_budget(gateway: GatewayFactory) -> None:
    gw = await gateway(fake_env("long-hover", OCTO_MAX_TOKENS="1000"))
    result = result_of(await gw.lsp_hover([{**DEFINITION, "maxChars": 20000}]))
    assert result["status"] == "success", result
    assert result["data"]["truncated"] is True
    assert result["data"]["tokens"]["estimatedTokens"] <= 1000
    assert any("token budget" in hint for hint in result["hints"])
