"""lspGotoDefinition: where the symbol is defined (or its type, its implementations, its
declaration), with the code around it."""

from __future__ import annotations

from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.lsp.models import GotoDefinitionQuery
from octo.lsp.models import GotoDefinitionResult
from octo.lsp.navigation.locations import code_location
from octo.lsp.navigation.locations import cut_places
from octo.lsp.navigation.locations import places_of
from octo.lsp.navigation.locations import see_files
from octo.lsp.navigation.locations import withheld_hints
from octo.lsp.navigation.next_calls import definition_hints
from octo.lsp.navigation.next_calls import no_definition_hints
from octo.lsp.navigation.target import Target
from octo.lsp.navigation.target import answer
from octo.lsp.navigation.target import ask
from octo.lsp.navigation.target import navigate
from octo.lsp.navigation.target import require

#: Per kind: the request, the capability that offers it, and its name in errors.
_KINDS = {
    "definition": (lsp.TEXT_DOCUMENT_DEFINITION, "definitionProvider", "go to definition"),
    "typeDefinition": (
        lsp.TEXT_DOCUMENT_TYPE_DEFINITION,
        "typeDefinitionProvider",
        "go to type definition",
    ),
    "implementation": (
        lsp.TEXT_DOCUMENT_IMPLEMENTATION,
        "implementationProvider",
        "go to implementation",
    ),
    "declaration": (lsp.TEXT_DOCUMENT_DECLARATION, "declarationProvider", "go to declaration"),
}


async def goto_definition(
    ctx: QueryContext, query: GotoDefinitionQuery
) -> Answer[GotoDefinitionResult]:
    """Definitions of the symbol at uri near lineHint."""

    async def run(target: Target, _last: bool) -> Answer[GotoDefinitionResult]:
        method, capability, what = _KINDS[query.kind]
        require(target.slot, capability, what)
        sent = await ask(target.slot, method, target.params())
        places = places_of(sent)
        cut = cut_places(sent, target.slot.server_id, "definitions")
        seen = await see_files(ctx.paths, [place.path for place in places], query)
        definitions = [code_location(seen[p.path], p.range, query.contextLines) for p in places]
        result = GotoDefinitionResult(
            resolved=target.resolved, server=target.slot.server_id, definitions=definitions
        )
        if not places:
            hints = no_definition_hints(query, target.resolved.line, str(target.slot.root))
        else:
            # The first definition the caller can read (a header's, a stub's may come first).
            index = next(
                (i for i, d in enumerate(definitions) if not (d.external or d.withheld)), 0
            )
            place = places[index]
            hints = definition_hints(
                query,
                seen[place.path],
                place.range.start.line,
                place.last_line,
                definitions[index].content,
            )
        hints = [*cut, *hints, *withheld_hints(query, seen.values())]
        return answer(target, result, hints, partial=bool(cut))

    return await navigate(ctx, query, run)
