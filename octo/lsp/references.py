"""lspFindReferences: every use of the symbol, paged, with the code around each."""

from __future__ import annotations

from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.paging import page_of
from octo.lsp.locations import code_location
from octo.lsp.locations import cut_places
from octo.lsp.locations import page_hints
from octo.lsp.locations import places_of
from octo.lsp.locations import see_files
from octo.lsp.models import FindReferencesQuery
from octo.lsp.models import FindReferencesResult
from octo.lsp.target import answer
from octo.lsp.target import ask
from octo.lsp.target import find_target
from octo.lsp.target import require


async def find_references(
    ctx: QueryContext, query: FindReferencesQuery
) -> Answer[FindReferencesResult]:
    """References to the symbol, paged."""
    target = await find_target(ctx, query)
    require(target.slot, "referencesProvider", "find references")
    params = target.params(context={"includeDeclaration": query.includeDeclaration})
    sent = await ask(target.slot, lsp.TEXT_DOCUMENT_REFERENCES, params)
    places = places_of(sent)
    cut = cut_places(sent, target.slot.server_id, "references")
    chosen, pagination = page_of(places, query.referencesPerPage, query.page)
    seen = await see_files(ctx.paths, [place.path for place in chosen])
    result = FindReferencesResult(
        resolved=target.resolved,
        server=target.slot.server_id,
        references=[code_location(seen[p.path], p.range, query.contextLines) for p in chosen],
        totalReferences=len(places),
        pagination=pagination,
    )
    hints = [*cut, *page_hints(pagination, len(places), "references")]
    return answer(target, result, hints, partial=bool(cut))
