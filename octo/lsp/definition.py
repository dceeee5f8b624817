"""lspGotoDefinition: where the symbol is defined, with the code around it."""

from __future__ import annotations

from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.lsp.locations import code_location
from octo.lsp.locations import cut_places
from octo.lsp.locations import places_of
from octo.lsp.locations import see_files
from octo.lsp.models import GotoDefinitionQuery
from octo.lsp.models import GotoDefinitionResult
from octo.lsp.target import answer
from octo.lsp.target import ask
from octo.lsp.target import find_target
from octo.lsp.target import require


async def goto_definition(
    ctx: QueryContext, query: GotoDefinitionQuery
) -> Answer[GotoDefinitionResult]:
    """Definitions of the symbol at uri near lineHint."""
    target = await find_target(ctx, query)
    require(target.slot, "definitionProvider", "go to definition")
    sent = await ask(target.slot, lsp.TEXT_DOCUMENT_DEFINITION, target.params())
    places = places_of(sent)
    cut = cut_places(sent, target.slot.server_id, "definitions")
    seen = await see_files(ctx.paths, [place.path for place in places])
    definitions = [code_location(seen[p.path], p.range, query.contextLines) for p in places]
    result = GotoDefinitionResult(
        resolved=target.resolved, server=target.slot.server_id, definitions=definitions
    )
    if not definitions:
        next_step = (
            "The server found no definition: check the name and line, or use lspFindReferences."
        )
    else:
        next_step = "Next: lspFindReferences or lspCallHierarchy on the definition's line."
    return answer(target, result, [*cut, next_step], partial=bool(cut))
